"""What browser-area tests hold: a session on the shared browser, and small helpers."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

from runtime.artifacts import ArtifactStore
from runtime.browser import ActionResult, BrowserSession, Snapshot, SnapshotElement, TabEvent
from tests.fixtures.browser_loop import LoopThread

T = TypeVar("T")


class SessionHarness:
    """What a test holds: the session, its artifact store, tab events seen, and `run`."""

    def __init__(self, loop_thread: LoopThread, session: BrowserSession, artifacts: ArtifactStore,
                 tab_events: list[TabEvent]) -> None:
        self.loop_thread = loop_thread
        self.session = session
        self.artifacts = artifacts
        self.tab_events = tab_events
        self.results: dict[str, Any] = {}

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return self.loop_thread.run(coro, timeout)


def remember(harness: SessionHarness, result: ActionResult) -> ActionResult:
    harness.results["last"] = result
    return result


def last(harness: SessionHarness) -> ActionResult:
    return harness.results["last"]


def find_element(snapshot: Snapshot, role: str, name: str) -> SnapshotElement:
    for element in snapshot.elements:
        if element.role == role and element.name == name:
            return element
    listed = "\n".join(e.describe() for e in snapshot.elements)
    raise AssertionError(f"snapshot {snapshot.snapshot_id} has no {role} {name!r}:\n{listed}")


def page_text(harness: SessionHarness, tab_id: str | None = None) -> str:
    tab = harness.session.tab(tab_id)
    return str(harness.run(tab.evaluate("document.body.innerText")))
