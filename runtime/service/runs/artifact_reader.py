"""GetArtifact: the bytes of an artifact GetRun lists, read from the run's own directory only.

An artifact is served only when the store lists it for that run, and only from a file that
resolves (symlinks followed) inside that run's directory, or, when that file is not on this
server (another server ran the run), from the copy a PostgreSQL store keeps by sha256. The bytes
are hashed as they are sent; bytes that do not match the recorded sha256 end the stream with
`ArtifactChanged` (DATA_LOSS on the wire), so a client never mistakes a changed file for the
artifact the run recorded.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from pathlib import Path

from runtime.service.runs.errors import ArtifactChanged, ArtifactOutsideRun
from runtime.store import ArtifactRecord

DEFAULT_CHUNK_BYTES = 64 * 1024
_MESSAGE_OVERHEAD = 1024  # room for the ArtifactInfo and framing beside a chunk


def artifact_path(runs_dir: Path, record: ArtifactRecord) -> Path:
    """Where a listed artifact's file is, refused unless it lies inside the run's own directory."""
    run_dir = (runs_dir / record.run_id).resolve()
    path = (run_dir / record.path).resolve()
    if not path.is_relative_to(run_dir):
        raise ArtifactOutsideRun(record)
    return path


def chunk_size(requested: int, max_message_bytes: int) -> int:
    ceiling = max(1024, max_message_bytes - _MESSAGE_OVERHEAD)
    return min(requested if requested > 0 else DEFAULT_CHUNK_BYTES, ceiling)


async def read_chunks(source: Path | bytes, record: ArtifactRecord, size: int) -> AsyncIterator[tuple[int, bytes]]:
    """(offset, bytes) in order, from the run directory's file or the store's copy of its bytes;
    ArtifactChanged at the end when the bytes are not the recorded ones."""
    digest = hashlib.sha256()
    offset = 0
    async for chunk in _chunks(source, size):
        digest.update(chunk)
        yield offset, chunk
        offset += len(chunk)
    if digest.hexdigest() != record.sha256 or offset != record.size:
        raise ArtifactChanged(record, digest.hexdigest(), offset)


async def _chunks(source: Path | bytes, size: int) -> AsyncIterator[bytes]:
    if isinstance(source, bytes):
        for start in range(0, len(source), size):
            yield source[start : start + size]
        return
    with source.open("rb") as handle:
        while chunk := await asyncio.to_thread(handle.read, size):
            yield chunk
