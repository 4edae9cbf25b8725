"""The tabs an agent step's kept values were read in, judged again when the model closes.

A close is judged on the document of the tab it is made in. A value the model read in another tab
(a quote the page opened in a tab of its own) came from that tab's document, which may have moved
since: a session that ended from another tab sends a members' page to its sign-in wall. In one tab
such a move fails the close; across tabs it must too, so the close judges each tab a kept value
was read in as it judges its own (validated, or blocked with the blocker kind). A tab the model
closed is not judged: nothing of it is shown any more.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from runtime.execute.agent.tab_tool import open_tabs
from runtime.execute.context.run_context import RunContext
from runtime.execute.reads.provenance import DocumentCheck
from runtime.execute.step_outcome import StepResult


class ReadTabs:
    """Which tab each kept field was last read in, for one execution of one agent step."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.tab_of: dict[str, str] = {}

    def note(self, names: Iterable[str]) -> None:
        """The fields `names` were just read in the tab the step acts in."""
        for name in names:
            self.tab_of[name] = self.ctx.browser.tabs.acting_id

    async def blocked_elsewhere(self, document_for_read: Callable[[], Awaitable[DocumentCheck]]) -> tuple[StepResult, list[str]] | None:
        """The blocked result of the first open tab, other than the one the step acts in, whose
        document a kept value was read from and which no longer passes the target check, with
        the fields read there (which then count for nothing)."""
        tabs = self.ctx.browser.tabs
        acting = tabs.acting
        still_open = {info.tab_id for info in open_tabs(self.ctx)}
        for tab_id in dict.fromkeys(self.tab_of.values()):
            if tab_id == tabs.acting_id or tab_id not in still_open:
                continue
            # Judged as the acting tab would be, then the model is back where it was.
            tabs.acting = None if tab_id == tabs.primary else tab_id
            try:
                document = await document_for_read()
            finally:
                tabs.acting = acting
            if document.blocked is not None:
                return document.blocked, [name for name, read_in in self.tab_of.items() if read_in == tab_id]
        return None
