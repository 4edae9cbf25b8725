"""A served run's wait for its run slot (`--max-concurrent-runs`) before it runs at all: the run is
`waiting_for_browser_selection` meanwhile, can be stopped, and ends `browser_unavailable` when
the server's queue is full or the wait outlasts its bound (runtime/service/runs/run_slots.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from runtime.browser.supply.waiting_line import BrowserUnavailable
from runtime.events import EventLog, StatusChanged
from runtime.execute.step_outcome import RunStopped
from runtime.outcomes import StopReason, TaskState

if TYPE_CHECKING:
    from runtime.execute.run import RunHandle

# A server's run slot: awaits one (calling its argument with why, when it must wait), or raises
# BrowserUnavailable when the queue is full or the wait outlasted its bound.
Admission = Callable[[Callable[[str], None]], Awaitable[None]]


async def wait_for_admission(handle: RunHandle, admission: Admission, events: EventLog) -> None:
    """Wait for the server's run slot; a stop meanwhile ends the run (RunStopped) as it asked."""

    def waiting(detail: str) -> None:
        events.emit(StatusChanged(status=TaskState.WAITING_FOR_BROWSER_SELECTION, detail=detail))

    handle._work = asyncio.ensure_future(admission(waiting))
    if handle._stop_reason is not None:
        handle._work.cancel()
    try:
        await asyncio.shield(handle._work)
    except asyncio.CancelledError:
        if not (handle._work.cancelled() and handle._stop_reason is not None):
            handle._work.cancel()
            raise
        reason = handle._stop_reason
        raise RunStopped(reason, f"stopped ({reason.value}) by request while it waited for a run slot") from None
    except BrowserUnavailable as error:
        raise RunStopped(StopReason.BROWSER_UNAVAILABLE, error.message) from None
    finally:
        handle._work = None
