"""`TargetGate`: every new target of a browser waits until whoever claims it has attached (issue 33).

A shared or service worker runs its first script before anyone can attach to it, and may send at
once what a page handed it: its requests must be watched before then. Chromium can hold every new
target before it runs anything: with
`Target.setAutoAttach` at the browser's level and `waitForDebuggerOnStart`, a new target is
attached to the connection in a flat session, paused, and runs once told
`Runtime.runIfWaitingForDebugger`. The gate asks each claimer (a session's tab tracker) whether
the target is its own and for the work to finish first (attaching its watches); any other target
(another run's context, an operator's own tab on an attached browser) runs at once. A claimer
may keep the paused target's flat session (`FlatSession`) to watch it from its first moment: a
run's tab tracker hears a popup's hand-offs to the desktop there until its own tab is adopted.
pyppeteer's set-up of a page cannot be the claim itself: it waits for the target to run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from runtime.browser.launch.transport import FlatSession

# What a claimer answers for a new target, given the target's paused flat session: the work to
# finish before it runs, or None (not its own). Work that returns True keeps the flat session
# attached after the target runs (its claimer detaches it); otherwise the gate detaches it.
Claim = Callable[[dict[str, Any], FlatSession], Awaitable[object] | None]
# A ceiling for a claimer's attach, after which the target runs anyway: never a target left paused.
CLAIM_CEILING_SECONDS = 10.0


class TargetGate:
    """Holds a browser connection's new targets until their claimer is ready; opened lazily."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection
        self._claims: dict[str, Claim] = {}
        self._armed: asyncio.Future[None] | None = None
        self._released: set[str] = set()  # targets being let run (an attach may be announced twice)

    async def claim(self, key: str, claim: Claim) -> None:
        """Have `claim` asked about every target created from now on, until `drop(key)`."""
        self._claims[key] = claim
        if self._armed is None:
            self._armed = asyncio.ensure_future(self._arm())
        await asyncio.shield(self._armed)

    def drop(self, key: str) -> None:
        self._claims.pop(key, None)

    async def _arm(self) -> None:
        self._connection.on("Target.attachedToTarget", self._on_attached)
        # Flat sessions are the only kind Chromium offers at the browser's level; the targets that
        # exist already are attached too, not paused, and left alone.
        await self._connection.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True})

    def _on_attached(self, event: dict[str, Any]) -> None:
        info = event.get("targetInfo") or {}
        target_id = str(info.get("targetId", ""))
        if not event.get("waitingForDebugger") or target_id in self._released:
            return
        self._released.add(target_id)
        asyncio.ensure_future(self._release(str(event.get("sessionId", "")), info))

    async def _release(self, session_id: str, info: dict[str, Any]) -> None:
        session = FlatSession(self._connection, session_id)
        kept = False
        try:
            claims = (claim(info, session) for claim in list(self._claims.values()))
            pending = {asyncio.ensure_future(work) for work in claims if work is not None}
            if pending:  # waited for, not cancelled: an attach that outlasts the ceiling goes on
                await asyncio.wait(pending, timeout=CLAIM_CEILING_SECONDS)
                kept = any(task.done() and not task.cancelled() and task.exception() is None and task.result() is True for task in pending)
        finally:
            with contextlib.suppress(Exception):  # the target may be gone already: nothing to run
                await session.send("Runtime.runIfWaitingForDebugger")
                if not kept:
                    await session.detach()
            self._released.discard(str(info.get("targetId", "")))
