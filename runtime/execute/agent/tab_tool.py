"""An agent's `browser_tabs` (Playwright MCP's shape): list the run's open tabs, select the one
the agent acts in, close one, or open a new blank one.

Selecting moves only where this agent step acts (`RunTabs.acting`): the primary tab stays where
it is (seed 004), and the next step acts in it again unless it names another. A new tab is a
blank page of the run's own browser context, so the context's policy proxy and the tab's
top-frame watch fence it as they fence a popup; the model then opens a URL there with open_url,
which the run's URL judge checks first.
"""

from __future__ import annotations

from typing import Any

from runtime.browser.session.tab_tracking import TabInfo
from runtime.execute.agent.tool_outcome import ToolOutcome
from runtime.execute.context.run_context import RunContext
from runtime.llm import PageContext

TAB_ACTIONS = ("list", "select", "close", "new")


def open_tabs(ctx: RunContext) -> list[TabInfo]:
    """The run's open tabs, oldest first: their positions are the indexes the model uses."""
    session = ctx.browser.current
    return [] if session is None else [info for info in session.tabs.values() if not info.closed]


def tab_lines(ctx: RunContext) -> tuple[str, ...]:
    """The open tabs as the agent's page section lists them, once there is more than one."""
    tabs = open_tabs(ctx)
    return tuple(_describe(ctx, index, info) for index, info in enumerate(tabs)) if len(tabs) > 1 else ()


def _describe(ctx: RunContext, index: int, info: TabInfo) -> str:
    marks = [mark for mark, holds in (("current", info.tab_id == ctx.browser.tabs.acting_id), ("primary", info.tab_id == ctx.browser.tabs.primary)) if holds]
    return f"{index}: {info.url or 'about:blank'}" + (f" ({', '.join(marks)})" if marks else "")


def _listing(ctx: RunContext) -> dict[str, Any]:
    tabs = open_tabs(ctx)
    acting = ctx.browser.tabs.acting_id
    return {
        "ok": True,
        "tabs": [{"index": i, "url": info.url, "current": info.tab_id == acting, "primary": info.tab_id == ctx.browser.tabs.primary} for i, info in enumerate(tabs)],
    }


async def use_tabs(ctx: RunContext, arguments: dict[str, Any], timeout: int) -> tuple[ToolOutcome, PageContext | None]:
    """One browser_tabs call; with the page the agent acts in afterwards when it changed."""
    await ctx.browser.session()
    action = arguments.get("action")
    if action not in TAB_ACTIONS:
        return ToolOutcome.failed("invalid_params", f"browser_tabs needs action: one of {', '.join(TAB_ACTIONS)}"), None
    if action == "list":
        listing = _listing(ctx)
        return ToolOutcome(True, listing, f"{len(listing['tabs'])} open tab(s)"), None
    if action == "new":
        opened = await ctx.browser.run_action("new_tab", "open a blank tab", lambda s, a: s.new_tab(action_id=a, timeout_ms=timeout))
        if not opened.ok:
            return ToolOutcome.from_error(opened), None
        return _now_in(ctx, str(opened.data["tab_id"]), "opened a blank tab; open_url loads a page in it")
    tabs = open_tabs(ctx)
    index = arguments.get("index")
    if index is None and action == "close":
        chosen = ctx.browser.tabs.acting_id
    elif isinstance(index, (int, float)) and float(index).is_integer() and 0 <= int(index) < len(tabs):
        chosen = tabs[int(index)].tab_id
    else:
        return ToolOutcome.failed("invalid_params", f"index must be one of 0..{len(tabs) - 1} (browser_tabs list shows them)"), None
    if action == "select":
        return _now_in(ctx, chosen, "selected")
    closed = await ctx.browser.run_action("close_tab", f"close tab {chosen}", lambda s, a: s.close_tab(chosen, action_id=a, timeout_ms=timeout))
    if not closed.ok:
        return ToolOutcome.from_error(closed), None
    if ctx.browser.tabs.acting == chosen:
        ctx.browser.tabs.acting = None  # back to the primary tab (the closed tab's opener, if it was primary)
    return _now_in(ctx, ctx.browser.tabs.acting_id, f"closed {closed.data.get('url') or 'the tab'}")


def _now_in(ctx: RunContext, tab_id: str, said: str) -> tuple[ToolOutcome, PageContext]:
    """The agent acts in `tab_id` from now on (in this step); the answer lists the open tabs."""
    tabs = ctx.browser.tabs
    tabs.acting = None if tab_id == tabs.primary else tab_id
    url = next((info.url for info in open_tabs(ctx) if info.tab_id == tab_id), "")
    listing = _listing(ctx)
    return ToolOutcome(True, {**listing, "url": url}, f"{said}; now in {tab_id} {url}"), PageContext(url, tab_id)
