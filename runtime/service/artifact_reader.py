"""GetArtifact: the bytes of an artifact GetRun lists, read from the run's own directory only.

An artifact is served only when the store lists it for that run, and only from a file that
resolves (symlinks followed) inside that run's directory, or, when that file is not on this
server (another server ran the run), from the copy a PostgreSQL store keeps by sha256. The bytes
are hashed as they are sent; bytes that do not match the recorded sha256 end the stream with
DATA_LOSS, so a client never mistakes a changed file for the artifact the run recorded.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from pathlib import Path

import grpc

from runtime.service.rich_errors import ServiceError
from runtime.store import ArtifactRecord

DEFAULT_CHUNK_BYTES = 64 * 1024
_MESSAGE_OVERHEAD = 1024  # room for the ArtifactInfo and framing beside a chunk


def artifact_not_found(run_id: str, artifact_id: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.NOT_FOUND,
        f"run {run_id!r} has no artifact {artifact_id!r} (GetRun lists its artifacts)",
        resource_type="verity.v1.Artifact",
        resource_name=f"{run_id}/{artifact_id}",
    )


def artifact_path(runs_dir: Path, record: ArtifactRecord) -> Path:
    """Where a listed artifact's file is, refused unless it lies inside the run's own directory."""
    run_dir = (runs_dir / record.run_id).resolve()
    path = (run_dir / record.path).resolve()
    if not path.is_relative_to(run_dir):
        raise ServiceError(
            grpc.StatusCode.PERMISSION_DENIED,
            f"artifact {record.artifact_id!r} of run {record.run_id!r} points outside the run's directory; it is not served",
            reason="ARTIFACT_OUTSIDE_RUN",
        )
    return path


def artifact_missing(record: ArtifactRecord) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.DATA_LOSS,
        f"artifact {record.artifact_id!r} of run {record.run_id!r} is listed but its bytes are gone from the run directory",
        reason="ARTIFACT_MISSING",
    )


def chunk_size(requested: int, max_message_bytes: int) -> int:
    ceiling = max(1024, max_message_bytes - _MESSAGE_OVERHEAD)
    return min(requested if requested > 0 else DEFAULT_CHUNK_BYTES, ceiling)


async def read_chunks(source: Path | bytes, record: ArtifactRecord, size: int) -> AsyncIterator[tuple[int, bytes]]:
    """(offset, bytes) in order, from the run directory's file or the store's copy of its bytes;
    DATA_LOSS at the end when the bytes are not the recorded ones."""
    digest = hashlib.sha256()
    offset = 0
    async for chunk in _chunks(source, size):
        digest.update(chunk)
        yield offset, chunk
        offset += len(chunk)
    if digest.hexdigest() != record.sha256 or offset != record.size:
        raise ServiceError(
            grpc.StatusCode.DATA_LOSS,
            f"artifact {record.artifact_id!r} of run {record.run_id!r} changed since it was recorded "
            f"(sha256 {digest.hexdigest()[:12]}…, {offset} bytes; recorded {record.sha256[:12]}…, {record.size} bytes)",
            reason="ARTIFACT_CHANGED",
        )


async def _chunks(source: Path | bytes, size: int) -> AsyncIterator[bytes]:
    if isinstance(source, bytes):
        for start in range(0, len(source), size):
            yield source[start : start + size]
        return
    with source.open("rb") as handle:
        while chunk := await asyncio.to_thread(handle.read, size):
            yield chunk
