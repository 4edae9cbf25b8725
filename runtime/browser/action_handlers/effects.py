"""What an act changed by itself: the one judge of "did this act have its own effect".

Before the gesture a watch is set up in the isolated world (page scripts cannot see or disturb it;
runtime/browser/scripts/effects.js):
a MutationObserver on the whole document (and the target's shadow root) first watches for a short
baseline window with nobody acting. Whatever changes then (a clock, a ticker, a carousel: which
elements, which attributes) changes by itself, and the same change after the act is not the act's.
So is what the document's churn ledger (scripts/ledger.js) saw change by itself at two moments or
more in the seconds before the gesture (a clock ticking once a second would slip past the short window);
the act marks its own window in the ledger, from the gesture to the end of its settle.
After the gesture the act waits for the page to settle: until no change but the baseline's has come
for a quiet period (the page's own MutationObserver says when), a second at most.

The act is then judged by what it is:

- a `type` by the field holding the typed text, in the form the control keeps it (kept_forms.py);
  focus is never an effect of typing;
- a `select` by the chosen option being selected;
- a `select_text` by the document's selection holding the text meant (whitespace runs as one);
- a click on a checkbox or radio (or what a label names, or an aria checkbox/radio/switch) by its
  checked state;
- a `hover` also by elements near its target becoming visible (a CSS `:hover` menu changes no
  node, only what is shown);
- any other act by any change in the document up to the settle (text, attributes, nodes, a dialog,
  focus moving for a click or a key press), in the target's own scopes (its form, dialog, landmark,
  aria-controls elements) until the check reads it, a new document or URL, or for a scroll a new
  scroll position.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runtime.browser.action_handlers.kept_forms import judge_typed
from runtime.browser.vocabulary.document import DocumentIdentity
from runtime.browser.tab.tab import ResolvedElement, Tab

# How long the page is watched with nobody acting; an act with an explicit expectation skips it.
BASELINE_MS = 300
# The settle after the gesture: this long without a change of the act's own, at most SETTLE_MAX_MS.
SETTLE_QUIET_MS = 120
SETTLE_MAX_MS = 1000
# An act's own window in the churn ledger ends with its settle, or after this if it never says so.
ACT_WINDOW_MAX_MS = 60_000

_LANDMARKS = (
    "form,dialog,[role=dialog],[role=alertdialog],main,nav,aside,header,footer,[role=main],[role=navigation],"
    "[role=complementary],[role=banner],[role=contentinfo],[role=region],[role=search],[role=form],"
    "section[aria-label],section[aria-labelledby]"
)


@dataclass
class EffectWatch:
    """An act's watch: its target (in the world the watch lives in), the document it began on, and
    what the act meant to do (`intent`: the text typed, the option chosen)."""

    element: ResolvedElement
    document: DocumentIdentity
    url: str
    kind: str
    scopes: list[str]
    baseline_churn: list[str]
    recurring_churn: list[str]
    baseline_ms: int
    intent: dict[str, Any] = field(default_factory=dict)
    settled_ms: int | None = None


@dataclass(frozen=True)
class ActEffect:
    """The judge's answer: did the act have its own effect, the effects in words, what was watched."""

    passed: bool
    effects: list[str]
    message: str
    watched: dict[str, Any]


async def watch_effects(tab: Tab, element: ResolvedElement | None, kind: str, baseline_ms: int = BASELINE_MS) -> None:
    """Set up the watch and take the baseline before the gesture; an act with no target watches
    the focused element."""
    if element is None:
        element = await tab.active_element()
    installed = await tab.call_script_on(element, "watchEffects", kind, _LANDMARKS, baseline_ms, ACT_WINDOW_MAX_MS) or {}
    document = tab.document()
    tab.effect_watch = EffectWatch(
        element, document, document.url, kind, list(installed.get("scopes") or []), list(installed.get("baseline_churn") or []),
        list(installed.get("recurring_churn") or []), baseline_ms,
    )  # fmt: skip


def note_intent(tab: Tab, **intent: Any) -> None:
    """What the act meant to do, for the judge (the typed text, the option chosen)."""
    if tab.effect_watch is not None:
        tab.effect_watch.intent.update(intent)


async def settle_effects(tab: Tab) -> None:
    """After the gesture: wait until the page settles, on the document the act began on (an act
    with no baseline, whose step says what it expects, does not wait), and end the act's window."""
    watch = tab.effect_watch
    if watch is None or not tab.document().same_document(watch.document):
        return
    try:
        if not watch.baseline_ms:
            await tab.call_script_on(watch.element, "endAct")
            return
        watch.settled_ms = await tab.call_script_on(watch.element, "settleEffects", SETTLE_QUIET_MS, SETTLE_MAX_MS)
    except Exception:  # noqa: BLE001 - the document went while settling; the check sees the new one
        return


def _checkable(found: dict[str, Any] | None) -> str | None:
    """'checkbox' or 'radio' when the element is one (natively or by its ARIA role)."""
    if not found:
        return None
    if found["tag"] == "input" and found["type"] in ("checkbox", "radio"):
        return found["type"]
    role = (found.get("role") or "").lower()
    if role in ("checkbox", "switch", "menuitemcheckbox"):
        return "checkbox"
    if role in ("radio", "menuitemradio"):
        return "radio"
    return None


def _is_checked(found: dict[str, Any]) -> bool:
    return bool(found["checked"]) if found["tag"] == "input" else found.get("aria_checked") == "true"


def _judge(watch: EffectWatch, read: dict[str, Any]) -> tuple[bool, list[str], str]:
    kind, intent = watch.kind, watch.intent
    target = read["target"]
    if kind == "type":
        # With submit, Enter may rightly empty the field (a chat box): the text is judged as it
        # was held before Enter.
        field = intent.get("held_before_submit") if intent.get("submit") else target
        judged = judge_typed(field or target, str(intent.get("text", "")), cleared=bool(intent.get("clear", True)))
        message = judged.message + (" (read before Enter)" if intent.get("submit") else "")
        return judged.holds, [message], message
    if kind == "select":
        wanted, held = intent.get("value"), list(target.get("selected") or [])
        # `remove` (a <select multiple>) is proven by the option no longer being chosen.
        removing = intent.get("mode") == "remove"
        passed = (wanted not in held) if removing else (wanted in held)
        state = "is" if (wanted in held) else "is not"
        message = f"the option {wanted!r} {state} selected (selected: {held})" + (" after removing it" if removing else "")
        return passed, [message], message
    if kind == "select_text":
        wanted, held = " ".join(str(intent.get("text", "")).split()), " ".join(str(read.get("selection") or "").split())
        message = f"the selection holds {held!r}" + ("" if held == wanted else f", not {wanted!r}")
        return held == wanted and bool(wanted), [message], message
    # A click on a checkbox or radio (or on the label of one) is judged by its checked state.
    for index, found in enumerate((target, read.get("control"))):
        checkable = _checkable(found) if kind == "click" else None
        if checkable is None:
            continue
        assert found is not None
        before_native, before_aria = read["checked_before"][min(index, len(read["checked_before"]) - 1)]
        was = bool(before_native) if found["tag"] == "input" else before_aria == "true"
        now = _is_checked(found)
        passed = now != was if checkable == "checkbox" else now
        message = f"the {checkable}'s checked state {was!s} -> {now!s}" + ("" if passed or checkable == "radio" else " (unchanged)")
        return passed, [message], message
    # A field taking focus is a click's effect; a key press focuses its target itself first.
    counted = [c["what"] for c in read["state_changes"] if c["key"] != "focused" or kind == "click"]
    effects = counted + [f"{read['change_count']} change(s) in the document: " + ", ".join(read["changes"])] if read["changes"] else counted
    if read.get("dialog"):
        effects.append(f"a dialog opened or changed: {read['dialog']}")
    if read.get("focus_moved") and kind in ("click", "press"):
        effects.append(f"focus moved to {read['focus_moved']}")
    if read.get("shown"):
        effects.append(f"shown by the hover (CSS, no node changed): {', '.join(read['shown'])}")
    if read.get("scrolled"):
        effects.append(f"scrolled to {read['scrolled']}")
    if effects:
        return True, effects, "; ".join(effects)
    ignored = f"; ignored the page's own changes seen before the act: {', '.join(read['ignored'])}" if read.get("ignored") else ""
    # What the ledger knew changes by itself, whether or not it changed again in the settle.
    recurring = [churn for churn in watch.recurring_churn if churn not in (read.get("ignored") or [])]
    periodic = f"; the page changes by itself (never the act's): {', '.join(recurring)}" if recurring else ""
    return False, [], f"no change the act caused anywhere in the document{ignored}{periodic}"


async def own_effects(tab: Tab) -> ActEffect:
    """Did the tab's latest act have an effect of its own? The one judge of that question."""
    watch = tab.effect_watch
    if watch is None:
        return ActEffect(False, [], "no act set up a watch on this tab", {"watched": "nothing"})
    watched: dict[str, Any] = {
        "kind": watch.kind, "watched_scopes": watch.scopes, "baseline_churn": watch.baseline_churn,
        "recurring_churn": watch.recurring_churn,
        "settled_ms": watch.settled_ms, "document": watch.document.to_dict(),
    }
    document = tab.document()
    navigated = None
    if not document.same_document(watch.document):
        navigated = f"a new document: {watch.document.url} -> {document.url}"
    elif document.url != watch.url:
        navigated = f"the URL changed: {watch.url} -> {document.url}"
    if navigated is not None and watch.kind == "type":
        # The text went in before Enter sent the page on: what the field held then is the proof.
        held = watch.intent.get("held_before_submit")
        if held is None:
            return ActEffect(False, [navigated], f"{navigated}; the field was not read before it went", watched)
        judged = judge_typed(held, str(watch.intent.get("text", "")), cleared=bool(watch.intent.get("clear", True)))
        message = f"{judged.message} (read before Enter); {navigated}"
        return ActEffect(judged.holds, [message], message, watched)
    if navigated is not None:
        return ActEffect(True, [navigated], navigated, watched)
    try:
        read = await tab.call_script_on(watch.element, "readEffects")
    except Exception:  # noqa: BLE001 - the watched world went with its document; the next check sees the new one
        read = None
    if read is None:
        return ActEffect(False, [], "the watch on the act's target is gone (the target left the page)", watched)
    passed, effects, message = _judge(watch, read)
    if read.get("ignored"):
        watched["ignored_churn"] = read["ignored"]
    return ActEffect(passed, effects, message, watched)
