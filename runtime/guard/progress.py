"""Seed 004's no_progress detector: stop a run that keeps doing the same thing.

The executor records one signature per action; a signature is the tool, its target and the page
fingerprints before and after, so "the same action, from the same page, to the same page" is
one repeated string. Two patterns stop a run:

- repeat: the last `window` signatures are all one signature;
- round_trip: the last max(window, 4) signatures alternate between two signatures (A-B-A-B).
  Round trips need two full cycles, so a single "go there and come back" never trips it.
"""

from __future__ import annotations

import hashlib
from collections import deque
from dataclasses import dataclass
from typing import Literal

MIN_ROUND_TRIP_LENGTH = 4

NoProgressPattern = Literal["repeat", "round_trip"]


def action_signature(tool: str, target: str, before: str, after: str) -> str:
    """A short stable signature of one action: tool and a digest of target + fingerprints.

    The tool stays readable so the verdict's evidence says what repeated.
    """
    digest = hashlib.sha256("\x1f".join((tool, target, before, after)).encode("utf-8")).hexdigest()[:16]
    return f"{tool}:{digest}"


@dataclass(frozen=True)
class NoProgressVerdict:
    pattern: NoProgressPattern
    signatures: tuple[str, ...]  # the window that matched, oldest first

    @property
    def detail(self) -> str:
        if self.pattern == "repeat":
            return f"the last {len(self.signatures)} actions repeated one signature {self.signatures[0]} without changing the page"
        return (
            f"the last {len(self.signatures)} actions alternated between {self.signatures[0]} and {self.signatures[1]} "
            "(A-B-A-B round trips) without progress"
        )


class NoProgressDetector:
    def __init__(self, window: int, enabled: bool = True) -> None:
        if not isinstance(window, int) or window < 2:
            raise ValueError(f"no_progress window must be an integer >= 2, got {window!r}")
        self.window = window
        # The `no_progress` switch (seed 004 section 6): off, nothing ever trips.
        self.enabled = enabled
        self._round_trip_window = max(window, MIN_ROUND_TRIP_LENGTH)
        self._recent: deque[str] = deque(maxlen=self._round_trip_window)

    def record(self, signature: str) -> NoProgressVerdict | None:
        """Add one action's signature; a verdict when the run should stop with no_progress."""
        if not self.enabled:
            return None
        self._recent.append(signature)
        recent = list(self._recent)
        last = recent[-self.window :]
        if len(last) == self.window and len(set(last)) == 1:
            return NoProgressVerdict("repeat", tuple(last))
        trip = recent[-self._round_trip_window :]
        if len(trip) == self._round_trip_window and trip[0] != trip[1]:
            if all(signature == trip[index % 2] for index, signature in enumerate(trip)):
                return NoProgressVerdict("round_trip", tuple(trip))
        return None

    def reset(self) -> None:
        """Forget history, e.g. after a replan starts a fresh approach."""
        self._recent.clear()
