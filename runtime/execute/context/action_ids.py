"""Action ids of one run: `<run_id>:a<n>:<name>`, numbered in the order the run asks for them.

The driver answers a repeated action id from its cache, so every action, blocked tool call and
verification takes a new one from the run's single counter.
"""

from __future__ import annotations

import itertools


class ActionIds:
    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self._numbers = itertools.count(1)

    def new(self, name: str) -> str:
        return f"{self.run_id}:a{next(self._numbers)}:{name}"
