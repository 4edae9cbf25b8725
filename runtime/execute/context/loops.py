"""Running `for_each` loops: the frame of each loop in progress, and how a state inside a loop body
is recorded: as `<state id>[<item>]`, so each iteration is its own set of states in
executions.json, the events and the trace."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runtime.plan.model import State


@dataclass
class LoopFrame:
    """A loop in progress: its items (values, or the elements' texts), the item being run, and
    how many matched before `max_items` cut them."""

    items: list[Any]
    matched: int
    index: int = -1
    targets: list[dict[str, Any]] = field(default_factory=list)  # per element: the driver target


@dataclass
class LoopFrames:
    frames: dict[str, LoopFrame] = field(default_factory=dict)

    def iteration_view(self, state: State) -> State:
        """The state as this iteration records it: `click[2]` inside a loop, itself elsewhere."""
        frame = self.frames.get(state.loop) if state.loop else None
        if frame is None or frame.index < 0:
            return state
        return state.model_copy(update={"id": f"{state.id}[{frame.index}]"})
