"""Waiting on a tab: for the load to complete, for text or a URL to appear, or for a set time."""

from __future__ import annotations

import asyncio
import re

from runtime.browser.action_handlers.params import enum_param, int_param, invalid, required_str
from runtime.browser.action_handlers.scope import ActionScope, Result
from runtime.browser.actions import Action, WaitKind
from runtime.browser.errors import ActionErrorCode, BrowserActionError
from runtime.browser.tab import Tab

POLL_SECONDS = 0.05


async def wait_until_loaded(tab: Tab) -> None:
    while True:
        if await tab.evaluate("document.readyState") == "complete":
            return
        if tab.remaining_ms() < 100:
            raise BrowserActionError(
                ActionErrorCode.TIMEOUT, f"tab {tab.tab_id} did not finish loading in time", url=tab.page.url
            )
        await asyncio.sleep(POLL_SECONDS)


async def wait_for_loaded(scope: ActionScope, action: Action) -> Result:
    await wait_until_loaded(scope.tab)
    return {"status": "complete", "url": await scope.tab.current_url()}, None


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
    else:
        value = required_str(params, "value")
        pattern = re.compile(value) if (kind is WaitKind.URL and params.get("regex")) else None
        while True:
            if kind is WaitKind.TEXT_INCLUDES:
                body = await tab.evaluate("document.body ? document.body.innerText : ''")
                satisfied = value in str(body or "")
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
