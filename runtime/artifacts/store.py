"""A file-based artifact store rooted in a run directory.

Ids are content-addressed: ``<kind>-<first 16 hex of sha256>``. The same screenshot taken twice
during a run is stored once, ids are reproducible when a run is replayed, and an id alone lets a
reader verify the bytes it points to were not changed afterwards.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass
from collections.abc import Callable
from pathlib import Path
from typing import Any

from runtime.run_layout import ARTIFACTS_DIR

_KIND_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,31}$")

_EXTENSION_BY_MEDIA_TYPE = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "text/html": ".html",
    "text/plain": ".txt",
    "text/markdown": ".md",
    "application/json": ".json",
}


class ArtifactError(Exception):
    """Bad input to the artifact store (unknown id, invalid kind) or a tampered file."""


@dataclass(frozen=True)
class ArtifactRef:
    """A reference to stored bytes; this, never the bytes, travels in results and events."""

    id: str
    kind: str
    path: str
    media_type: str
    size: int
    sha256: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class ArtifactStore:
    """Stores large payloads (screenshots, HTML, long text) under ``<run_dir>/artifacts/``."""

    def __init__(self, run_dir: Path | str) -> None:
        self.root = Path(run_dir) / ARTIFACTS_DIR
        self._refs: dict[str, ArtifactRef] = {}
        # Rewrites a textual artifact before it is stored (a run's secrets become their markers).
        self.redact_text: Callable[[str], str] | None = None

    def put(self, kind: str, data: bytes, media_type: str) -> ArtifactRef:
        """Store ``data`` and return its reference; storing identical bytes again is free."""
        if not _KIND_PATTERN.match(kind):
            raise ArtifactError(
                f"invalid artifact kind {kind!r}: use lowercase letters, digits and '_' "
                "(e.g. 'screenshot', 'html', 'text')"
            )
        if not isinstance(data, (bytes, bytearray)):
            raise ArtifactError(f"artifact data must be bytes, got {type(data).__name__}")
        if self.redact_text is not None and _is_text(media_type):
            text = bytes(data).decode("utf-8", errors="replace")
            redacted = self.redact_text(text)
            if redacted != text:
                data = redacted.encode("utf-8")
        digest = hashlib.sha256(data).hexdigest()
        artifact_id = f"{kind}-{digest[:16]}"
        extension = _EXTENSION_BY_MEDIA_TYPE.get(media_type, ".bin")
        path = self.root / kind / f"{digest[:16]}{extension}"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            # Write then rename so a reader never sees a half-written artifact.
            partial = path.with_suffix(path.suffix + ".partial")
            partial.write_bytes(bytes(data))
            partial.replace(path)
        ref = ArtifactRef(
            id=artifact_id,
            kind=kind,
            path=str(path),
            media_type=media_type,
            size=len(data),
            sha256=digest,
        )
        self._refs[artifact_id] = ref
        return ref

    def get(self, artifact_id: str) -> ArtifactRef:
        """The reference for an id stored by this store instance."""
        try:
            return self._refs[artifact_id]
        except KeyError:
            raise ArtifactError(f"unknown artifact id {artifact_id!r} in {self.root}") from None

    def read(self, ref: ArtifactRef | str) -> bytes:
        """The stored bytes, checked against the recorded sha256."""
        resolved = self.get(ref) if isinstance(ref, str) else ref
        data = Path(resolved.path).read_bytes()
        if hashlib.sha256(data).hexdigest() != resolved.sha256:
            raise ArtifactError(f"artifact {resolved.id} at {resolved.path} does not match its sha256")
        return data

    def list(self) -> list[ArtifactRef]:
        """Every reference stored through this instance, in insertion order."""
        return list(self._refs.values())


def _is_text(media_type: str) -> bool:
    return media_type.startswith("text/") or media_type in ("application/json", "application/xhtml+xml")
