"""Where a click would take the page, judged before the click: a link's href, a submit button's
form action. An `<a href>` to another host, or to a `javascript:` or `data:` URL, is refused with
`blocked_url` and the blocker kind, and nothing is clicked (issue 8: the judge everywhere)."""

from __future__ import annotations

from runtime.browser.action_handlers.scope import ActionScope
from runtime.browser.vocabulary.policy import refused
from runtime.browser.tab.tab import ResolvedElement

# The URL a click on this element would follow: the closest link's href (absolute, as the
# browser resolves it), or for a submit control its form's action (a formaction of its own first).
_FOLLOWED_URL = """function() {
  const link = this.closest ? this.closest('a[href], area[href]') : null;
  if (link) return {via: 'link', url: link.href, target: link.target || ''};
  const type = (this.getAttribute('type') || (this.tagName === 'BUTTON' ? 'submit' : '')).toLowerCase();
  if (this.form && (type === 'submit' || type === 'image')) {
    const url = this.hasAttribute('formaction') ? this.formAction : this.form.action;
    return {via: 'form', url: url, method: (this.form.method || 'get').toLowerCase()};
  }
  return null;
}"""


async def refuse_off_policy_click(scope: ActionScope, element: ResolvedElement) -> None:
    """Raise `blocked_url` when the session's network policy refuses where a click would go."""
    if scope.policy.network is None:
        return
    followed = await scope.tab.call_on(element, _FOLLOWED_URL)
    if not isinstance(followed, dict) or not followed.get("url"):
        return
    judgement = scope.policy.judge(str(followed["url"]))
    if judgement is not None and not judgement.allowed:
        raise refused(judgement, f"the {followed['via']} of {element.how} goes to {followed['url']}", followed=followed)
