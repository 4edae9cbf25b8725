"""The tab actions: make the action's tab the session's primary tab, close it, open a new one.

They act on the session's tabs rather than on a page, through `scope.tabs`; the action's own tab
(`Action.tab_id`) is the tab switched to or closed.
"""

from __future__ import annotations

from runtime.browser.action_handlers.scope import ActionScope, Result, SessionTabs
from runtime.browser.vocabulary.actions import Action
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError


def _tabs(scope: ActionScope) -> SessionTabs:
    if scope.tabs is None:
        raise BrowserActionError(ActionErrorCode.INVALID_PARAMS, "this session does not manage tabs")
    return scope.tabs


async def switch_tab(scope: ActionScope, action: Action) -> Result:
    tabs = _tabs(scope)
    info = tabs.make_primary(scope.tab.tab_id)
    return {**info.to_dict(), "primary_tab_id": tabs.primary_tab_id}, None


async def close_tab(scope: ActionScope, action: Action) -> Result:
    tabs = _tabs(scope)
    info = await tabs.close(scope.tab.tab_id)
    return {**info.to_dict(), "primary_tab_id": tabs.primary_tab_id}, None


async def new_tab(scope: ActionScope, action: Action) -> Result:
    tabs = _tabs(scope)
    info = await tabs.open_new()
    return {**info.to_dict(), "primary_tab_id": tabs.primary_tab_id}, None
