"""Which document a read came from: `DocumentIdentity`, plain data.

A tab shows one document at a time. A navigation (a link, a redirect, `location.href = ...`, a
`blob:` URL) commits a new one with a new loader id; a `javascript:` URL that returns a string
replaces the document without one, so every document is also numbered by the main-world
JavaScript context it got. Two identities name the same document when tab, frame, loader id and
number agree; the URL may still change inside one document (history.pushState, a #fragment).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class DocumentIdentity:
    """One document of one tab's top frame: where it is, how it was loaded and when.

    `number` counts the documents this tab has shown (1 for the first); `status` and `headers`
    are those of the HTTP response that delivered it (None/empty when it came from no response:
    about:blank, a blob: URL, a javascript: swap keeps the loader's); `committed_at` is the
    wall-clock time it committed, in seconds since the epoch.
    """

    tab_id: str
    frame_id: str
    url: str
    loader_id: str
    number: int
    status: int | None = None
    committed_at: float = 0.0
    headers: dict[str, str] = field(default_factory=dict, compare=False)

    def same_document(self, other: DocumentIdentity | None) -> bool:
        """Is `other` this very document (a URL change inside it aside)?"""
        return (
            other is not None
            and (self.tab_id, self.frame_id, self.loader_id, self.number) == (other.tab_id, other.frame_id, other.loader_id, other.number)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "tab_id": self.tab_id,
            "frame_id": self.frame_id,
            "url": self.url,
            "loader_id": self.loader_id,
            "document_number": self.number,
            "status": self.status,
            "committed_at": round(self.committed_at, 3),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DocumentIdentity:
        return cls(
            tab_id=str(data.get("tab_id", "")),
            frame_id=str(data.get("frame_id", "")),
            url=str(data.get("url", "")),
            loader_id=str(data.get("loader_id", "")),
            number=int(data.get("document_number", 0)),
            status=data.get("status"),
            committed_at=float(data.get("committed_at", 0.0)),
        )
