"""`RunSlots`: the server's `--max-concurrent-runs` as slots a run waits for in turn.

A run over the limit is recorded and answered at once like any other; its engine then waits
(`waiting_for_browser_selection`, `RunHandle.admitted` in runtime/execute/run.py) until a running run ends, first
come first served, within the queue length and wait the operator sets (`browser_queue_length`,
`browser_wait_seconds`: the same bounds a run waiting for a busy browser has).
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.browser.supply.waiting_line import WaitingLine, WaitLimits


class RunSlots:
    def __init__(self, most: int, limits: WaitLimits) -> None:
        self.most = most
        self.taken = 0
        self.waiting: WaitingLine[bool] = WaitingLine(limits, what="a run slot", give_back=lambda _: self.release())

    def _take(self) -> bool | None:
        if self.taken >= self.most:
            return None
        self.taken += 1
        return True

    async def admit(self, on_wait: Callable[[str], None]) -> None:
        """Take a slot, waiting in turn when none is free (raises BrowserUnavailable past the bounds)."""
        detail = f"{self.taken} of {self.most} runs are running (max_concurrent_runs)"
        await self.waiting.wait(self._take, on_wait=on_wait, detail=detail)

    def release(self) -> None:
        self.taken -= 1
        self.waiting.offer()
