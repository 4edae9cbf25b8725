"""Checking a page: verify's checks (URL, text, title, element state) and the page fingerprint."""

from __future__ import annotations

import hashlib
import re

from runtime.browser.action_handlers.effects import own_effects
from runtime.browser.action_handlers.params import invalid, required_str, target_param
from runtime.browser.action_handlers.scope import ActionScope, Result
from runtime.browser.vocabulary.actions import Action
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError
from runtime.browser.vocabulary.observation import PageFingerprint, VerifyOutcome
from runtime.browser.tab.model_frames import framed_by_model
from runtime.browser.tab.tab import Tab

# An element check's states of an element that is not there.
_ABSENT = {"exists": False, "visible": False, "enabled": False, "checked": False, "selected": False, "value": None}


async def fingerprint_of(tab: Tab, closed_roots: bool = False) -> PageFingerprint:
    """URL, DOM structure, form values and visible text of the tab's document, hashed. With
    `closed_roots`, a closed shadow root attached since the last read is adopted first, so a wall
    drawn there after validation changes the fingerprint as one drawn in the light DOM does."""
    if closed_roots:
        await tab.adopt_closed_roots()
    return fingerprint_from(await tab.call_script("fingerprint"), tab)


def fingerprint_from(raw: dict[str, str], tab: Tab) -> PageFingerprint:
    """The fingerprint of what page_reads.js's `fingerprint` read in `tab`, just read."""
    digest = hashlib.sha256(
        "\u0000".join((raw["url"], raw["structure"], raw["fields"], raw["text"])).encode("utf-8")
    ).hexdigest()
    return PageFingerprint(
        url=raw["url"],
        digest=digest,
        element_count=raw["structure"].count(",") + 1 if raw["structure"] else 0,
        text_length=len(raw["text"]),
        document=tab.document(),
    )


async def page_fingerprint(scope: ActionScope, action: Action) -> Result:
    fingerprint = await fingerprint_of(scope.tab, bool(action.params.get("closed_roots")))
    return fingerprint.to_dict(), fingerprint


async def verify(scope: ActionScope, action: Action) -> Result:
    tab = scope.tab
    params = action.params
    check = params.get("check")
    if check == "url_matches":
        value = required_str(params, "value")
        url = await tab.current_url()
        if params.get("editable", True) is False:
            # An agent step's reading: where the page is by its own doing, not where the model's own
            # script moved its URL (history.pushState).
            url = str(await tab.call_script("pageUrl") or url)
        passed = bool(re.search(value, url)) if params.get("regex") else value in url
        outcome = VerifyOutcome(check, passed, value, url, f"url {url} {'matches' if passed else 'does not match'} {value!r}")
    elif check == "text_present":
        value = required_str(params, "value")
        editable, erased = params.get("editable", True), params.get("erased", False)
        if not isinstance(editable, bool) or not isinstance(erased, bool):
            raise invalid("params.editable and params.erased must be true or false")
        read = await tab.call_script("textShown", value, editable, erased)
        passed = bool(read["shown"])
        outcome = VerifyOutcome(check, passed, value, read["text"],
                                f"text {value!r} {'is' if passed else 'is not'} on the page")
    elif check == "element_state":
        target = target_param(params)
        state = params.get("state", "exists")
        if state not in ("exists", "visible", "enabled", "checked", "selected", "value"):
            raise invalid(f"params.state must be exists, visible, enabled, checked, selected or value, got {state!r}")
        expected = params.get("expected", True if state != "value" else None)
        if state == "value" and not isinstance(expected, str):
            raise invalid("element_state with state=value needs params.expected (a string)")
        try:
            element = await tab.resolve(target)
            observed_states = await tab.call_script_on(element, "elementState")
            if params.get("editable", True) is False and await framed_by_model(tab.worlds, tab.cdp, element.context_id):
                observed_states["inserted"] = True  # in a frame the model's own script made or re-sourced
        except BrowserActionError as exc:
            if exc.error.code is not ActionErrorCode.NOT_FOUND:
                raise
            observed_states = dict(_ABSENT)
        # `editable: false` (an agent step's reading): what the model's own script made is not the page's.
        own = ""
        if params.get("editable", True) is False and observed_states.get("inserted"):
            observed_states, own = dict(_ABSENT), " (the agent's model's own script inserted it)"
        elif params.get("editable", True) is False and state == "value" and observed_states.get("valueWritten"):
            observed_states, own = {**observed_states, "value": None}, " (the agent's model's own script wrote its value)"
        observed = observed_states[state]
        passed = observed == expected
        outcome = VerifyOutcome(check, passed, expected, observed,
                                f"{target.to_dict()} {state}={observed!r} (expected {expected!r}){own}")
    elif check == "title_includes":
        value = required_str(params, "value")
        title = await tab.title()
        passed = " ".join(value.split()).casefold() in " ".join(title.split()).casefold()
        outcome = VerifyOutcome(check, passed, value, title,
                                f"title {title!r} {'includes' if passed else 'does not include'} {value!r}")
    elif check == "own_effect":
        judged = await own_effects(tab)
        outcome = VerifyOutcome(check, judged.passed, "a change the act caused", judged.effects, judged.message)
    else:
        raise invalid(
            f"params.check must be url_matches, text_present, title_includes, element_state or own_effect, got {check!r}"
        )
    # The document the check read, so a verdict can say where its evidence came from.
    return {**outcome.to_dict(), "document": tab.document().to_dict()}, outcome
