"""Acting on a page like a person would: click, hover, type, select, press, scroll and drag
(check, uncheck and upload: form_controls.py; the pointer's own moves: pointer.py).

`act` addresses its element through any target; `browser_click` / `browser_type` are seed 003's
XPath forms of the same gestures. A covered, hidden, off-screen or disabled element (by itself, its
<fieldset> or aria-disabled) fails as not_interactable and is never pressed. What each gesture
asks of the page is runtime/browser/scripts/gestures.js.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from pyppeteer.us_keyboard_layout import keyDefinitions

from runtime.browser.action_handlers.link_targets import refuse_off_policy_click
from runtime.browser.action_handlers.effects import BASELINE_MS, note_intent, settle_effects, watch_effects
from runtime.browser.action_handlers.params import enum_param, int_param, invalid, required_str, str_param, target_param
from runtime.browser.action_handlers.scope import ActionScope, Result
from runtime.browser.vocabulary.actions import Action, ActKind, Target
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError
from runtime.browser.action_handlers.field_dates import field_value
from runtime.browser.action_handlers.form_controls import set_checked, upload_files
from runtime.browser.action_handlers.pointer import DRAG_STEP_PX, click, drag, hover, lands_on, mouse_event
from runtime.browser.tab.tab import ResolvedElement, Tab




async def _select_text(tab: Tab, element: ResolvedElement, wanted: str) -> dict[str, Any]:
    """Select text in the element as a person does: press before its first character, drag with
    the button held, release after its last. The selection it made is judged afterwards."""
    ends = await tab.call_script_on(element, "textEnds", wanted)
    state = ends["state"]
    if state == "detached":
        raise BrowserActionError(ActionErrorCode.STALE_REF, f"element {element.how} is no longer in the page")
    if state == "no_text":
        raise BrowserActionError(ActionErrorCode.NOT_FOUND, f"element {element.how} does not show the text {wanted!r}", text=ends["text"])
    if state != "ok":
        raise BrowserActionError(ActionErrorCode.NOT_INTERACTABLE, f"the text {wanted!r} in element {element.how} is {state}", state=state)
    # Points in the viewport of the element's document: the top page's (in a frame the start is
    # not found under the pointer, and the act fails as covered rather than selecting elsewhere).
    (x, y), (end_x, end_y) = ends["start"], ends["end"]
    if not await lands_on(tab, element, x, y):
        raise BrowserActionError(ActionErrorCode.NOT_INTERACTABLE, f"the start of {ends['text']!r} in element {element.how} is covered", state="covered")
    await tab.page.mouse.move(x, y)
    await mouse_event(tab, "mousePressed", x, y, pressed=True)
    moves = max(1, math.ceil(math.hypot(end_x - x, end_y - y) / DRAG_STEP_PX))
    for step in range(1, moves + 1):
        await mouse_event(tab, "mouseMoved", x + (end_x - x) * step / moves, y + (end_y - y) * step / moves, pressed=True)
    await mouse_event(tab, "mouseReleased", end_x, end_y, pressed=False)
    return {"selected_text": ends["text"], "method": "mouse", "from": [round(x, 1), round(y, 1)], "to": [round(end_x, 1), round(end_y, 1)]}


async def _type(
    tab: Tab,
    element: ResolvedElement,
    text: str,
    *,
    clear: bool,
    submit: bool,
    keys: bool = False,
    key_delay_ms: int = 0,
    secret_typed: Callable[[str], None] | None = None,
    watched: bool = False,
) -> dict[str, Any]:
    state = await tab.call_script_on(element, "prepareType", clear)
    if state == "ok:secret":
        if secret_typed is not None and text:
            secret_typed(text)
        state = "ok"
    if state == "detached":
        raise BrowserActionError(ActionErrorCode.STALE_REF, f"element {element.how} is no longer in the page")
    if state != "ok" and not state.startswith("ok:keys"):
        raise BrowserActionError(
            ActionErrorCode.NOT_INTERACTABLE, f"element {element.how} is {state.replace('_', ' ')}", state=state
        )
    # A date or time as a person writes it ("6:09 AM", "24 Nov 2026") lands whatever the field's
    # locale: its segments' key order differs per locale, its value does not (field_dates.py).
    written_as = field_value(state.removeprefix("ok:keys:"), text) if state.startswith("ok:keys:") and not keys else None
    if written_as is not None and await tab.call_script_on(element, "setFieldValue", written_as):
        pass
    elif text and (keys or state.startswith("ok:keys")):
        # Key by key: each character is a keydown, keypress, input and keyup, as a keyboard makes them.
        await tab.page.keyboard.type(text, {"delay": key_delay_ms} if key_delay_ms else {})
    elif text:
        await tab.cdp.send("Input.insertText", {"text": text})
    # Read the field before Enter: a submit may navigate, and the element's document with it.
    held = await tab.call_script_on(element, "heldValue")
    if watched:
        note_intent(tab, text=text, clear=clear, submit=submit, held_before_submit=held)
    if submit:
        await tab.page.keyboard.press("Enter")
    # A password's value is never put into a result, nor its length: only whether it holds one.
    shown = {"value_changed": bool(held["value"])} if held["type"] == "password" else {"value": held["text"] if held["contenteditable"] else held["value"]}
    return {"typed": True, **shown, "submitted": submit}


async def _select(tab: Tab, element: ResolvedElement, value: str | None, label: str | None, mode: str) -> dict[str, Any]:
    outcome = await tab.call_script_on(element, "selectOption", value, label, mode)
    state = outcome["state"]
    if state == "detached":
        raise BrowserActionError(ActionErrorCode.STALE_REF, f"element {element.how} is no longer in the page")
    if state == "no_option":
        raise BrowserActionError(
            ActionErrorCode.NOT_FOUND,
            f"no option with {'value ' + repr(value) if value is not None else 'label ' + repr(label)}",
            options=outcome["options"],
        )
    if state == "not_multiple":
        raise BrowserActionError(
            ActionErrorCode.NOT_INTERACTABLE, f"element {element.how} is a single-choice select; {mode} needs a <select multiple>", state=state
        )
    if state != "ok":
        raise BrowserActionError(ActionErrorCode.NOT_INTERACTABLE, f"element {element.how}: {state}", state=state)
    return {"selected": mode != "remove", "mode": mode, "value": outcome["value"], "label": outcome["label"], "chosen": outcome["chosen"]}


async def _press(tab: Tab, key: str) -> dict[str, Any]:
    *modifiers, main = key.split("+") if key != "+" else ["+"]
    for name in [*modifiers, main]:
        if name not in keyDefinitions:
            raise invalid(f"unknown key {name!r} in {key!r}; use names like Enter, Tab, Escape, ArrowDown, a, Shift+Tab")
    for modifier in modifiers:
        await tab.page.keyboard.down(modifier)
    await tab.page.keyboard.press(main)
    for modifier in reversed(modifiers):
        await tab.page.keyboard.up(modifier)
    return {"pressed": key}


async def _scroll(tab: Tab, element: ResolvedElement | None, direction: str, amount: int) -> dict[str, Any]:
    if element is not None:
        await tab.call_script_on(element, "scrollIntoCenter")
    else:
        dx, dy = {"down": (0, amount), "up": (0, -amount), "right": (amount, 0), "left": (-amount, 0)}[direction]
        await tab.call_script("scrollBy", dx, dy)
    position = await tab.call_script("scrollPosition")
    return {"scrolled": True, "scroll_x": position["x"], "scroll_y": position["y"]}


async def _arm_reads_at_press(tab: Tab, kind: ActKind, reads: dict[str, Any]) -> ResolvedElement | None:
    """Resolve each element to read at the press and arm its reading; the first one, to read back."""
    if not reads:
        return None
    if kind not in (ActKind.CLICK, ActKind.PRESS, ActKind.DRAG):
        raise invalid(f"params.read_at_press goes with click, press or drag, not {kind.value}")
    first = None
    for name in reads:
        element = await tab.resolve(target_param(reads, name))
        await tab.call_script_on(element, "armReadAtPress", name, first is None)
        first = first or element
    return first


async def _reads_at_press(tab: Tab, armed: ResolvedElement | None, names: list[str]) -> dict[str, Any]:
    if armed is None:
        return {}
    try:
        box = await tab.call_script_on(armed, "readAtPress") or {}
    except Exception:  # noqa: BLE001 - the gesture took the page away; nothing was read there
        box = {}
    values, events = box.get("values") or {}, box.get("events") or {}
    return {"read_at_press": {name: values.get(name) for name in names}, "read_at_event": {name: events.get(name) for name in names}}


async def act(scope: ActionScope, action: Action) -> Result:
    tab = scope.tab
    params = action.params
    kind = enum_param(params, "kind", ActKind)
    await scope.refuse_blocked_tab()
    element: ResolvedElement | None = None
    needs_target = kind not in (ActKind.PRESS, ActKind.SCROLL)
    if needs_target or params.get("target") is not None:
        element = await tab.resolve(target_param(params))
    # 0: nothing will ask for this act's own effect (its step says what it expects), so neither the
    # baseline before the gesture nor the settle after it is worth its time.
    baseline_ms = int_param(params, "effect_baseline_ms", BASELINE_MS, minimum=0)
    # A check is a click on the box, judged as one (its checked state) when it presses.
    await watch_effects(tab, element, "click" if kind in (ActKind.CHECK, ActKind.UNCHECK) else kind.value, baseline_ms)
    reads = params.get("read_at_press") or {}
    armed = await _arm_reads_at_press(tab, kind, reads)
    navigations, document = tab.documents.navigations_started, tab.document()
    data: dict[str, Any]
    if kind is ActKind.CLICK:
        assert element is not None
        await refuse_off_policy_click(scope, element)
        data = await click(tab, element)
    elif kind is ActKind.TYPE:
        assert element is not None
        text = required_str(params, "text")
        data = await _type(
            tab, element, text, clear=bool(params.get("clear", True)), submit=bool(params.get("submit")),
            keys=bool(params.get("keys")), key_delay_ms=int_param(params, "key_delay_ms", 0, minimum=0),
            secret_typed=scope.secret_typed, watched=True,
        )  # fmt: skip
    elif kind is ActKind.HOVER:
        assert element is not None
        data = await hover(tab, element)
    elif kind is ActKind.DRAG:
        assert element is not None
        data = await drag(tab, element, await tab.resolve(target_param(params, "to")))
    elif kind is ActKind.SELECT_TEXT:
        assert element is not None
        data = await _select_text(tab, element, str_param(params, "text", required=False) or "")
        note_intent(tab, text=data["selected_text"])
    elif kind is ActKind.SELECT:
        assert element is not None
        value = str_param(params, "value", required=False)
        label = str_param(params, "label", required=False)
        if (value is None) == (label is None):
            raise invalid("select needs exactly one of params.value or params.label")
        mode = params.get("mode") or "replace"
        if mode not in ("replace", "add", "remove"):
            raise invalid(f"params.mode must be replace, add or remove, got {mode!r}")
        data = await _select(tab, element, value, label, mode)
        note_intent(tab, value=data["value"], mode=mode)
    elif kind in (ActKind.CHECK, ActKind.UNCHECK):
        assert element is not None
        pressed = element

        async def press() -> dict[str, Any]:
            await refuse_off_policy_click(scope, pressed)
            return await click(tab, pressed)

        data = await set_checked(tab, element, kind is ActKind.CHECK, press)
    elif kind is ActKind.UPLOAD:
        assert element is not None
        data = await upload_files(tab, element, list(params.get("files") or []))
    elif kind is ActKind.PRESS:
        key = required_str(params, "key")
        if element is not None:
            await tab.call_script_on(element, "focus")
        data = await _press(tab, key)
    else:
        direction = params.get("direction", "down")
        if direction not in ("up", "down", "left", "right"):
            raise invalid(f"params.direction must be up, down, left or right, got {direction!r}")
        data = await _scroll(tab, element, direction, int_param(params, "amount", 600, minimum=1))
    data.update(await _reads_at_press(tab, armed, list(reads)))
    # A gesture that starts a navigation is over when the new document has loaded.
    data.update(await tab.settle_navigation(navigations, document))
    # The act's effects land over a moment: it is over once the page has settled.
    await settle_effects(tab)
    return {"kind": kind.value, "target": element.how if element else None, **data}, None


async def browser_click(scope: ActionScope, action: Action) -> Result:
    xpath = str_param(action.params, "xpath")
    await scope.refuse_blocked_tab()
    element = await scope.tab.resolve(Target(xpath=xpath))
    await refuse_off_policy_click(scope, element)
    return await click(scope.tab, element), None


async def browser_type(scope: ActionScope, action: Action) -> Result:
    xpath = str_param(action.params, "xpath")
    text = required_str(action.params, "text")
    await scope.refuse_blocked_tab()
    element = await scope.tab.resolve(Target(xpath=xpath))
    navigations, document = scope.tab.documents.navigations_started, scope.tab.document()
    data = await _type(scope.tab, element, text, clear=True, submit=bool(action.params.get("submit")), secret_typed=scope.secret_typed)
    return {**data, **await scope.tab.settle_navigation(navigations, document)}, None
