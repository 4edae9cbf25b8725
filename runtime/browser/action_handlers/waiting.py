"""Waiting on a tab: for the load to complete, for text or a URL to appear, or for a set time."""

from __future__ import annotations

import asyncio
import itertools
import re

from runtime.browser.action_handlers.params import enum_param, int_param, invalid, required_str
from runtime.browser.action_handlers.scope import ActionScope, Result
from runtime.browser.vocabulary.actions import Action, WaitKind
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError
from runtime.browser.tab.tab import Tab

POLL_SECONDS = 0.05
# network_idle: this long without a new resource entry (after load) counts as idle.
NETWORK_QUIET_MS = 500
# A text wait looks for closed shadow roots attached since the last read on this many polls' first.
CLOSED_ROOT_POLLS = 4

async def wait_until_loaded(tab: Tab) -> None:
    while True:
        if await tab.ready_state() == "complete":
            return
        if tab.remaining_ms() < 100:
            raise BrowserActionError(
                ActionErrorCode.TIMEOUT, f"tab {tab.tab_id} did not finish loading in time", url=tab.page.url
            )
        await asyncio.sleep(POLL_SECONDS)


async def wait_for_loaded(scope: ActionScope, action: Action) -> Result:
    await wait_until_loaded(scope.tab)
    return {"status": "complete", "url": await scope.tab.current_url()}, None


async def _wait_selector(tab: Tab, css: str) -> None:
    while True:
        try:
            if await tab.call_script("selectorVisible", css):
                return
        except BrowserActionError as exc:
            raise invalid(f"bad selector {css!r}: {exc.error.message}") from None
        if tab.remaining_ms() < 100:
            raise BrowserActionError(ActionErrorCode.TIMEOUT, f"no visible element matched {css!r} on tab {tab.tab_id} in time", url=tab.page.url)
        await asyncio.sleep(POLL_SECONDS)


async def _wait_network_idle(tab: Tab, quiet_ms: int) -> None:
    """Loaded, then no new resource fetched for `quiet_ms` (the Resource Timing entries stop growing)."""
    await wait_until_loaded(tab)
    loop = asyncio.get_running_loop()
    count, since = -1, loop.time()
    while True:
        now_count = await tab.call_script("resourceCount")
        if now_count != count:
            count, since = now_count, loop.time()
        elif (loop.time() - since) * 1000 >= quiet_ms:
            return
        if tab.remaining_ms() < 100:
            raise BrowserActionError(ActionErrorCode.TIMEOUT, f"tab {tab.tab_id} kept fetching; no {quiet_ms} ms without a request in time", url=tab.page.url)
        await asyncio.sleep(POLL_SECONDS)


async def wait(scope: ActionScope, action: Action) -> Result:
    tab = scope.tab
    params = action.params
    kind = enum_param(params, "kind", WaitKind)
    started = asyncio.get_running_loop().time()
    if kind is WaitKind.TIMEOUT:
        milliseconds = int_param(params, "value", 0)
        if milliseconds > tab.remaining_ms():
            raise invalid(f"wait timeout {milliseconds} ms exceeds the action's timeout; raise timeout_ms")
        await asyncio.sleep(milliseconds / 1000)
    elif kind is WaitKind.LOAD:
        await wait_until_loaded(tab)
    elif kind is WaitKind.NETWORK_IDLE:
        await _wait_network_idle(tab, int_param(params, "value", NETWORK_QUIET_MS, minimum=1))
    elif kind is WaitKind.SELECTOR:
        await _wait_selector(tab, required_str(params, "value"))
    else:
        value = required_str(params, "value")
        pattern = re.compile(value) if (kind is WaitKind.URL and params.get("regex")) else None
        for poll in itertools.count():
            if kind is WaitKind.TEXT_INCLUDES:
                satisfied = bool((await tab.call_script("textShown", value))["shown"])
                # Text a closed shadow root attached since the last read shows is shown text too
                # (BROWSER-080); its search is asked every few polls, not on each.
                if not satisfied and poll % CLOSED_ROOT_POLLS == 0 and await tab.adopt_closed_roots():
                    satisfied = bool((await tab.call_script("textShown", value))["shown"])
            else:
                url = await tab.current_url()
                satisfied = bool(pattern.search(url)) if pattern else value in url
            if satisfied:
                break
            if tab.remaining_ms() < 100:
                what = f"text {value!r}" if kind is WaitKind.TEXT_INCLUDES else f"url matching {value!r}"
                raise BrowserActionError(
                    ActionErrorCode.TIMEOUT, f"{what} did not appear on tab {tab.tab_id} in time", url=tab.page.url
                )
            await asyncio.sleep(POLL_SECONDS)
    waited = (asyncio.get_running_loop().time() - started) * 1000
    return {"kind": kind.value, "satisfied": True, "waited_ms": round(waited)}, None
