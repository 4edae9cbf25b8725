"""Starting, navigating and closing: the actions that move a tab to a URL or end the session."""

from __future__ import annotations

import asyncio
from typing import Any

from runtime.browser.action_handlers.params import required_str, str_param
from runtime.browser.action_handlers.scope import ActionScope, Result
from runtime.browser.vocabulary.actions import Action
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError, document_replaced
from runtime.browser.vocabulary.policy import SessionPolicy
from runtime.browser.tab.tab import Tab


async def navigate(tab: Tab, policy: SessionPolicy, url: str) -> dict[str, Any]:
    policy.check_navigation(url)
    tab.last_status = None
    # Leave a little of the action budget so pyppeteer's own timeout reports first, precisely.
    budget = max(1, int(tab.remaining_ms()) - 250)
    loader_before = tab.documents.latest_loader()
    try:
        response = await tab.page.goto(url, {"waitUntil": "load", "timeout": budget})
    except Exception as exc:
        if type(exc).__name__ == "TimeoutError":
            raise BrowserActionError(
                ActionErrorCode.TIMEOUT, f"{url} did not finish loading within {budget} ms", url=url
            ) from None
        if "net::" in str(exc) or type(exc).__name__ == "PageError":
            # A response may have come before the failure (a 401 whose auth challenge nobody
            # answers): its status and headers still say what the page is.
            loader = tab.documents.latest_loader()
            status, headers = tab.documents.response_of(loader) if loader != loader_before else (None, {})
            raise BrowserActionError(
                ActionErrorCode.NAVIGATION_FAILED, f"could not load {url}: {exc}", url=url, status=status, headers=headers
            ) from None
        raise
    status = response.status if response is not None else tab.last_status
    tab.last_status = status
    title = await _title(tab)
    final_url = tab.page.url
    tab.note_url(final_url)
    return {"url": final_url, "status": status, "title": title}


# A page can move on by itself right after its load (a timer or a load handler setting
# location.href): the document may be replaced while it is read, and the next one still loading.
_REREAD_PAUSE_S = 0.05


async def _title(tab: Tab) -> str:
    """The title of the document the tab shows once it has loaded. When a navigation of the
    page's own replaced the document while it was read, it is the next document's (the URL
    returned is read after it, so they agree). A page that keeps moving, or never says it has
    loaded, is read again until the action's budget is spent; then the title is read as it is."""
    while True:
        out_of_time = tab.remaining_ms() <= _REREAD_PAUSE_S * 1000
        # Both reads in one round on the tab's session, which the renderer answers in order: a
        # title read with a "complete" is the loaded document's (or a later one's).
        ready, title = await asyncio.gather(tab.ready_state(), tab.title(), return_exceptions=True)
        if isinstance(title, BaseException) and (out_of_time or not _replaced(title)):
            raise title
        if out_of_time or ready == "complete" and not isinstance(title, BaseException):
            return str(title)
        if isinstance(ready, BaseException) and not _replaced(ready):
            raise ready
        await asyncio.sleep(_REREAD_PAUSE_S)


def _replaced(failure: BaseException) -> bool:
    return isinstance(failure, Exception) and document_replaced(failure)


async def session_start(scope: ActionScope, action: Action) -> Result:
    url = str_param(action.params, "url", required=False)
    primary = scope.primary_tab()
    data: dict[str, Any] = {"tab_id": primary.tab_id, "session_id": scope.session_id}
    if url:
        data.update(await navigate(primary, scope.policy, url))
    else:
        data.update({"url": primary.page.url, "title": await primary.title(), "status": primary.last_status})
    return data, None


async def session_stop(scope: ActionScope, action: Action) -> Result:  # handled by the session itself
    return {"stopped": True}, None


async def open_url(scope: ActionScope, action: Action) -> Result:
    return await navigate(scope.tab, scope.policy, required_str(action.params, "url")), None


async def navigate_back(scope: ActionScope, action: Action) -> Result:
    """The tab's previous history entry, as the browser's Back button goes there; the network
    policy judges its URL first, as it judges any navigation. A page restored from the
    back-forward cache fires no load event: the tab has gone back once it shows that entry's URL
    and its document is complete."""
    tab = scope.tab
    history = await tab.cdp.send("Page.getNavigationHistory")
    index, entries = int(history.get("currentIndex", 0)), history.get("entries") or []
    if not 1 <= index < len(entries):
        raise BrowserActionError(ActionErrorCode.NOT_FOUND, "this tab has no previous page to go back to")
    previous = str(entries[index - 1].get("url", ""))
    scope.policy.check_navigation(previous)
    tab.last_status = None
    loader_before = tab.documents.latest_loader()
    await tab.cdp.send("Page.navigateToHistoryEntry", {"entryId": entries[index - 1]["id"]})
    while True:
        if tab.remaining_ms() <= _REREAD_PAUSE_S * 1000:
            raise BrowserActionError(ActionErrorCode.TIMEOUT, f"going back to {previous} did not finish loading in time", url=previous)
        await asyncio.sleep(_REREAD_PAUSE_S)
        try:
            there = await tab.current_url() == previous and await tab.ready_state() == "complete"
        except Exception as exc:
            if not _replaced(exc):
                raise
            there = False  # the document is being replaced: ask again
        if there and not tab.documents.loading:
            break
    loader = tab.documents.latest_loader()
    # A page the cache restored was not fetched again: it has no new status.
    status = tab.documents.response_of(loader)[0] if loader != loader_before else None
    tab.last_status = status
    final_url = tab.page.url
    tab.note_url(final_url)
    return {"url": final_url, "status": status, "title": await _title(tab), "went_back_from": str(entries[index].get("url", ""))}, None


async def close(scope: ActionScope, action: Action) -> Result:
    summary = str_param(action.params, "summary", required=False)
    await scope.end_session()
    return {"closed": True, "summary": summary}, None
