"""Where a click would take the page, judged before the click: a link's href, a submit button's
form action. An `<a href>` to another host, or to a `javascript:` or `data:` URL, is refused with
`blocked_url` and the blocker kind, and nothing is clicked (issue 8: the judge everywhere)."""

from __future__ import annotations

from runtime.browser.action_handlers.scope import ActionScope
from runtime.browser.vocabulary.policy import refused
from runtime.browser.tab.tab import ResolvedElement

async def refuse_off_policy_click(scope: ActionScope, element: ResolvedElement) -> None:
    """Raise `blocked_url` when the session's network policy refuses where a click would go."""
    if scope.policy.network is None:
        return
    followed = await scope.tab.call_script_on(element, "followedUrl")
    if not isinstance(followed, dict) or not followed.get("url"):
        return
    judgement = scope.policy.judge(str(followed["url"]))
    if judgement is not None and not judgement.allowed:
        raise refused(judgement, f"the {followed['via']} of {element.how} goes to {followed['url']}", followed=followed)
