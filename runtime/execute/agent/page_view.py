"""What an agent's <page> section shows: the tab's accessibility tree (runtime/browser/tab/
snapshot_tree.py), the shape models know from Playwright MCP.

Before each model request the tree is written again if the page changed since the last one (its
fingerprint differs), so the model always reads the page as it is and acts on refs of the tab's
latest snapshot without spending a turn asking for it. The model may still call
`browser_snapshot` for a depth, the part under a ref (a collapsed run, a stub) or a fresh tree,
and `browser_find` to search the tree; the part it asked for is shown beside the whole.

The tree is a read of the page for the prompt, not an act: it goes to the session directly, with
no ToolUsed event, as the fingerprints of tool_calls.py do.
"""

from __future__ import annotations

from typing import Any

from runtime.browser import ActionResult, ObservationContext, SnapshotTree
from runtime.browser.session.verbs import SessionVerbs
from runtime.execute.context.run_context import RunContext
from runtime.llm import ImagePart, PageContext

# Matches one browser_find lists at most: each is a path of a few ancestors.
FIND_LIMIT = 20
# The agent step's parameter that makes its trees keep their ids when the page reads the same
# (set by an MCP browser session, runtime/mcp/browser_session.py; no recipe field).
KEEP_SAME_PARAM = "keep_same_refs"


class PageTree:
    """The tree a model reads in one execution of one agent step: the latest whole tree, and the
    latest part of it the model asked for (dropped when a new whole tree is written)."""

    def __init__(self, ctx: RunContext, timeout: int, keep_same: bool = False) -> None:
        self.ctx = ctx
        self.timeout = timeout
        # A tree that reads as the latest keeps its snapshot id, so the refs a client holds stay
        # valid (an MCP session's step: runtime/mcp/shown_pages.py says "unchanged" instead).
        self.keep_same = keep_same
        self.whole: SnapshotTree | None = None
        self.part: SnapshotTree | None = None
        self.failure = ""
        # The fingerprint of the page the whole tree was written from.
        self.digest = ""
        # The snapshot whose page the last screenshot sent to the model showed.
        self.pictured = ""

    async def refresh(self, page: PageContext, digest: str = "") -> PageContext:
        """A new whole tree of the acting tab when its page changed since the last one (or there
        is none yet); answers where the page is. `digest`: the tab's fingerprint taken just now
        (the turn's page check took one), so it is not asked for twice."""
        if self.ctx.browser.current is None:
            return page  # no browser yet: nothing to read, and nothing worth starting one for
        session = await self.ctx.browser.verbs()  # the tab browser_tabs selected, not the primary one
        digest = digest or await self._digest(session)
        if self.whole is not None and digest and digest == self.digest:
            return page
        result = await session.snapshot_tree(keep_same=self.keep_same, action_id=self.ctx.browser.new_action_id("page_tree"), timeout_ms=self.timeout)
        return self._took(result, {}, digest) or page

    async def _digest(self, session: SessionVerbs) -> str:
        printed = await session.fingerprint(action_id=self.ctx.browser.new_action_id("fingerprint"), timeout_ms=self.timeout)
        return str(printed.data.get("digest", "")) if printed.ok else ""

    async def new_screenshot(self) -> ImagePart | None:
        """The page's screenshot when the page changed since the last one sent (a new whole tree
        was written since), else None. Typed secrets are masked in it, as in every screenshot
        the session takes (runtime/browser/action_handlers/read.py)."""
        session = self.ctx.browser.current
        if session is None or self.whole is None or self.whole.snapshot_id == self.pictured:
            return None
        shot = await (await self.ctx.browser.verbs()).screenshot(action_id=self.ctx.browser.new_action_id("model_screenshot"), timeout_ms=self.timeout)
        if not shot.ok:
            return None  # the tree still says what the page holds; the picture is a help, not a need
        self.pictured = self.whole.snapshot_id
        return ImagePart("image/png", session.artifacts.read(shot.value))

    async def snapshot(self, arguments: dict[str, Any], digest: str = "") -> ActionResult:
        """`browser_snapshot`: a new whole tree, of a `depth` if given, or the part of the latest
        tree under `ref` (from its child `start`). `digest`: the tab's fingerprint the call took
        just before, if any."""
        params = {key: arguments[key] for key in ("ref", "depth", "start") if arguments.get(key) not in (None, "")}
        for key in ("depth", "start"):
            if isinstance(params.get(key), float) and params[key].is_integer():
                params[key] = int(params[key])  # some providers send integral numbers as floats
        if "ref" not in params:
            params["keep_same"] = self.keep_same
            digest = digest or await self._digest(await self.ctx.browser.verbs())
        result = await self.ctx.browser.run_action(
            "snapshot", "the page tree for the model", lambda s, a: s.snapshot_tree(action_id=a, timeout_ms=self.timeout, **params)
        )
        self._took(result, params, digest)
        return result

    async def find(self, arguments: dict[str, Any]) -> ActionResult:
        """`browser_find`: the nodes of the tree matching a text or /regex/, with their paths."""
        text = arguments.get("text")
        return await self.ctx.browser.run_action(
            "find", f"find {str(text)[:60]!r} in the page tree",
            lambda s, a: s.find_nodes(str(text or ""), limit=FIND_LIMIT, action_id=a, timeout_ms=self.timeout),
        )  # fmt: skip

    def context(self, verdict: tuple[str, str] = ("", "")) -> ObservationContext | None:
        """The trees for <page>: the whole, then the part asked for; None before any tree.
        `verdict` (url, text): the target check's verdict on the latest prepared page, said first
        while the tree shows that URL."""
        if self.whole is None and not self.failure:
            return None
        url, said = verdict
        shown = said if said and self.whole is not None and self.whole.url == url else ""
        return page_section(self.whole, self.part, self.failure, shown)

    def _took(self, result: ActionResult, params: dict[str, Any], digest: str) -> PageContext | None:
        if not result.ok:
            assert result.error is not None
            # A part asked for and refused (a stale ref) leaves the whole tree as it was.
            if "ref" not in params:
                self.failure = f"{result.error.code.value}: {result.error.message}"[:300]
            return None
        tree: SnapshotTree = result.value
        self.failure = ""
        if "ref" in params:
            self.part = tree
        else:
            self.whole, self.part, self.digest = tree, None, digest
        return PageContext(tree.url, tree.tab_id, tree.title)


def page_section(whole: SnapshotTree | None, part: SnapshotTree | None = None, failure: str = "", verdict: str = "") -> ObservationContext:
    """What <page> lists after the URL: the target check's verdict on a page that is not the
    target (a valid page's goes unsaid: AgentView.judged), the whole tree,
    the part under a ref the model asked for, and why the tree could not be read
    (tools/bench_page_section.py measures it as sent)."""
    shown = ObservationContext(keep_observes=0, keep_snapshots=2, max_chars=20_000)
    if verdict:
        shown.add_other("page check", verdict)
    if whole is not None:
        shown.add_snapshot(whole.label(), whole.render())
    if part is not None:
        shown.add_snapshot(part.label(), part.render())
    if failure:
        shown.add_other("tree", f"[the page tree could not be read: {failure}]")
    return shown
