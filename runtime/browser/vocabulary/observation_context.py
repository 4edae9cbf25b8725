"""Seed 002's context compression for prompts, as a small pure class.

Keep only the latest observe and the latest two snapshots verbatim (each cut to a character
budget); every older one stays in place as a short placeholder, so the model still sees that it
happened and in which order, without paying for stale page state.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ContextEntry:
    kind: str  # "observe" | "snapshot" | "other"
    label: str
    text: str


class ObservationContext:
    """Collects observe/snapshot texts in order and renders them under seed 002's limits."""

    def __init__(self, keep_observes: int = 1, keep_snapshots: int = 2, max_chars: int = 10_000) -> None:
        if keep_observes < 0 or keep_snapshots < 0 or max_chars < 1:
            raise ValueError("keep_observes/keep_snapshots must be >= 0 and max_chars >= 1")
        self.keep_observes = keep_observes
        self.keep_snapshots = keep_snapshots
        self.max_chars = max_chars
        self._entries: list[ContextEntry] = []

    def add_observe(self, label: str, text: str) -> None:
        self._entries.append(ContextEntry("observe", label, text))

    def add_snapshot(self, label: str, text: str) -> None:
        self._entries.append(ContextEntry("snapshot", label, text))

    def add_other(self, label: str, text: str) -> None:
        """Anything else (tool outputs, notes): kept verbatim, cut to the budget."""
        self._entries.append(ContextEntry("other", label, text))

    def render(self) -> list[ContextEntry]:
        """Entries in insertion order: kept ones cut to `max_chars`, older ones as placeholders."""
        keep_limits = {"observe": self.keep_observes, "snapshot": self.keep_snapshots}
        seen = {"observe": 0, "snapshot": 0}
        rendered: list[ContextEntry] = []
        for entry in reversed(self._entries):
            if entry.kind in keep_limits:
                seen[entry.kind] += 1
                if seen[entry.kind] > keep_limits[entry.kind]:
                    placeholder = f"[older {entry.kind} {entry.label} omitted]"
                    rendered.append(ContextEntry(entry.kind, entry.label, placeholder))
                    continue
            rendered.append(ContextEntry(entry.kind, entry.label, self._cut(entry.text)))
        rendered.reverse()
        return rendered

    def render_text(self) -> str:
        return "\n\n".join(entry.text for entry in self.render())

    def _cut(self, text: str) -> str:
        if len(text) <= self.max_chars:
            return text
        marker = f"\n[cut {len(text) - self.max_chars} chars]"
        if len(marker) >= self.max_chars:
            return text[: self.max_chars]
        return text[: self.max_chars - len(marker)] + marker
