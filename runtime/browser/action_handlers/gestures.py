"""Acting on a page like a person would: click, hover, type, select, press, scroll and drag
(check, uncheck and upload: form_controls.py).

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
from runtime.browser.scripts.loader import main_world_script
from runtime.browser.tab.tab import ResolvedElement, Tab


async def _lands_on(tab: Tab, element: ResolvedElement, x: float, y: float) -> bool:
    """Is the node at page point (x, y) the element or inside it? When the browser cannot say
    (a point in another process's frame), the earlier hit test stands. The hit test is a mouse
    press's: an element with `pointer-events: none` (the box a styled checkbox's label draws over
    its input) is passed through, as `elementFromPoint` in the first hit test passes it."""
    try:
        # The hit test takes document coordinates; the pointer's are the viewport's (a page
        # scrolled to bring the element into view is offset by its scroll position).
        viewport = (await tab.cdp.send("Page.getLayoutMetrics")).get("cssLayoutViewport") or {}
        at_x, at_y = x + viewport.get("pageX", 0), y + viewport.get("pageY", 0)
        located = await tab.cdp.send("DOM.getNodeForLocation", {"x": round(at_x), "y": round(at_y), "ignorePointerEventsNone": False})
        hit = await tab.cdp.send("DOM.resolveNode", {"backendNodeId": located["backendNodeId"]})
        # Both nodes in the page's own world (the element may have been found in an isolated one).
        ours = await tab.cdp.send("DOM.describeNode", {"objectId": element.object_id})
        mine = await tab.cdp.send("DOM.resolveNode", {"backendNodeId": ours["node"]["backendNodeId"]})
        reply = await tab.cdp.send(
            "Runtime.callFunctionOn",
            {
                "objectId": mine["object"]["objectId"],
                "functionDeclaration": main_world_script("node_contains"),
                "arguments": [{"objectId": hit["object"]["objectId"]}],
                "returnByValue": True,
            },
        )
    except Exception:  # noqa: BLE001 - CDP refuses nodes across frames or worlds; no answer is not a "no"
        return True
    if "exceptionDetails" in reply:
        return True
    return bool(reply.get("result", {}).get("value"))


async def _press_missed(tab: Tab, element: ResolvedElement) -> str | None:
    """What a press landed on when it was not the element (nor inside it); None when it landed
    on it, or when nothing says (the click took the document away)."""
    try:
        landed = await tab.call_script_on(element, "pressWitnessed")
    except Exception:  # noqa: BLE001 - the press navigated or removed the element: no witness left
        return None
    if not landed or landed.get("on_target"):
        return None
    return str(landed.get("hit") or "another element")


async def _pointer_point(tab: Tab, element: ResolvedElement, verb: str, block: str = "center") -> tuple[float, float] | None:
    """The page point a person would put the pointer on (its box settled, the part they can see);
    None when the element has no content quads. Raises when it cannot be reached at all."""
    state = await tab.call_script_on(element, "prepareClick", block)
    if state == "detached":
        raise BrowserActionError(ActionErrorCode.STALE_REF, f"element {element.how} is no longer in the page")
    if state in ("hidden", "disabled", "off_screen"):
        raise BrowserActionError(
            ActionErrorCode.NOT_INTERACTABLE, f"element {element.how} is {state.replace('_', ' ')}; it cannot be {verb}", state=state
        )
    if state.startswith("covered"):
        # A person could not click it either: report what is on top (a cookie banner, a modal)
        # rather than clicking through it or clicking the overlay instead.
        covering = state.partition(":")[2] or "another element"
        raise BrowserActionError(
            ActionErrorCode.NOT_INTERACTABLE,
            f"element {element.how} is covered by {covering}; dismiss it first",
            state="covered",
            covered_by=covering,
        )
    fx, fy = (float(part) for part in state.partition(":")[2].split(","))
    quads = (await tab.cdp.send("DOM.getContentQuads", {"objectId": element.object_id})).get("quads") or []
    if not quads:
        return None
    # The chosen point of the box in page coordinates (a quad runs top-left, top-right,
    # bottom-right, bottom-left; an element in a frame has its quad in the top page).
    x1, y1, x2, y2, _x3, _y3, x4, y4 = quads[0]
    return x1 + fx * (x2 - x1) + fy * (x4 - x1), y1 + fx * (y2 - y1) + fy * (y4 - y1)


async def _hover(tab: Tab, element: ResolvedElement) -> dict[str, Any]:
    """Put the pointer on the element as a person would (mouseover, mouseenter, :hover) and let
    what the hover loads land; the pointer stays there."""
    point = await _pointer_point(tab, element, "hovered")
    if point is None:
        await tab.call_script_on(element, "dispatchHover")
        return {"hovered": True, "method": "dom"}
    x, y = point
    await tab.page.mouse.move(x, y)
    await tab.call_script("hoverSettled")
    return {"hovered": True, "method": "mouse", "x": round(x, 1), "y": round(y, 1)}


# Times the pointer is put on an element that slid away from it before anything was pressed (a
# section still opening above it, a list re-flowing): each time its box is waited on to settle
# again. Nothing was pressed in between, so aiming again cannot act twice.
AIM_ATTEMPTS = 3


async def _aimed_point(tab: Tab, element: ResolvedElement) -> tuple[float, float] | None:
    """The point to press, with the pointer already on it and the element under it; None when the
    element has no content quads. Raises `moved` when it keeps sliding away from the pointer."""
    for _ in range(AIM_ATTEMPTS):
        point = await _pointer_point(tab, element, "clicked")
        if point is None:
            return None
        x, y = point
        # Hover first, as a person's pointer does, and let the hover land: a :hover style that
        # swaps in another picture (an icon's hover image) loses a press made while it loads.
        await tab.page.mouse.move(x, y)
        await tab.call_script("hoverSettled")
        # The page may have moved meanwhile: press only where the element itself is, never on
        # whatever came under the pointer.
        if await _lands_on(tab, element, x, y):
            return point
    raise BrowserActionError(
        ActionErrorCode.NOT_INTERACTABLE,
        f"element {element.how} kept moving away from the pointer ({AIM_ATTEMPTS} aims); it was not clicked",
        state="moved",
    )


async def _click(tab: Tab, element: ResolvedElement) -> dict[str, Any]:
    point = await _aimed_point(tab, element)
    if point is not None:
        x, y = point
        await tab.call_script_on(element, "armPressWitness")
        await tab.page.mouse.click(x, y)
        missed = await _press_missed(tab, element)
        if missed is not None:
            raise BrowserActionError(
                ActionErrorCode.NOT_INTERACTABLE,
                f"the press meant for {element.how} landed on {missed} (the page moved under the pointer); that element was pressed instead",
                state="missed",
                landed_on=missed,
            )
        return {"clicked": True, "method": "mouse", "x": round(x, 1), "y": round(y, 1)}
    # Visible by the hit test but without content quads (e.g. inline boxes split oddly): the click
    # goes to this element itself, never to a point that could belong to another one.
    await tab.call_script_on(element, "click")
    return {"clicked": True, "method": "dom"}


# Pixels between two pointer moves of a drag: a page that follows mousemove (a calendar marking
# the slots a drag crosses, a slider) sees every element on the way, as it does under a hand.
DRAG_STEP_PX = 5


async def _mouse(tab: Tab, kind: str, x: float, y: float, pressed: bool) -> None:
    """One CDP mouse event with the left button held (`pressed`) or not, as a pointing device
    reports it: `buttons` says what is held during a move, which pages read as e.buttons."""
    await tab.cdp.send(
        "Input.dispatchMouseEvent",
        {"type": kind, "x": x, "y": y, "button": "left" if pressed or kind == "mouseReleased" else "none", "buttons": 1 if pressed else 0, "clickCount": 1 if kind != "mouseMoved" else 0},
    )


async def _drag(tab: Tab, element: ResolvedElement, destination: ResolvedElement) -> dict[str, Any]:
    """Press on the element, move the pointer onto the destination in steps of DRAG_STEP_PX with
    the button held, release there: mousedown, mousemoves, mouseup, as a hand makes them."""
    start = await _pointer_point(tab, element, "dragged")
    # Only as much scrolling as the destination needs, so the source stays where it was measured.
    end = await _pointer_point(tab, destination, "dragged onto", block="nearest")
    if start is None or end is None:
        raise BrowserActionError(ActionErrorCode.NOT_INTERACTABLE, f"element {(destination if start else element).how} has no box to put the pointer on", state="hidden")
    (x, y), (end_x, end_y) = start, end
    await tab.page.mouse.move(x, y)
    await tab.call_script("hoverSettled")
    if not await _lands_on(tab, element, x, y):
        raise BrowserActionError(
            ActionErrorCode.NOT_INTERACTABLE,
            f"element {element.how} moved away from the pointer before the press (bringing {destination.how} into view moved it?); nothing was dragged",
            state="moved",
        )
    await _mouse(tab, "mousePressed", x, y, pressed=True)
    moves = max(1, math.ceil(math.hypot(end_x - x, end_y - y) / DRAG_STEP_PX))
    for step in range(1, moves + 1):
        await _mouse(tab, "mouseMoved", x + (end_x - x) * step / moves, y + (end_y - y) * step / moves, pressed=True)
    await _mouse(tab, "mouseReleased", end_x, end_y, pressed=False)
    return {"dragged": True, "method": "mouse", "from": [round(x, 1), round(y, 1)], "to": [round(end_x, 1), round(end_y, 1)], "moves": moves, "destination": destination.how}


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
    if not await _lands_on(tab, element, x, y):
        raise BrowserActionError(ActionErrorCode.NOT_INTERACTABLE, f"the start of {ends['text']!r} in element {element.how} is covered", state="covered")
    await tab.page.mouse.move(x, y)
    await _mouse(tab, "mousePressed", x, y, pressed=True)
    moves = max(1, math.ceil(math.hypot(end_x - x, end_y - y) / DRAG_STEP_PX))
    for step in range(1, moves + 1):
        await _mouse(tab, "mouseMoved", x + (end_x - x) * step / moves, y + (end_y - y) * step / moves, pressed=True)
    await _mouse(tab, "mouseReleased", end_x, end_y, pressed=False)
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
        data = await _click(tab, element)
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
        data = await _hover(tab, element)
    elif kind is ActKind.DRAG:
        assert element is not None
        data = await _drag(tab, element, await tab.resolve(target_param(params, "to")))
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
            return await _click(tab, pressed)

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
    return await _click(scope.tab, element), None


async def browser_type(scope: ActionScope, action: Action) -> Result:
    xpath = str_param(action.params, "xpath")
    text = required_str(action.params, "text")
    await scope.refuse_blocked_tab()
    element = await scope.tab.resolve(Target(xpath=xpath))
    navigations, document = scope.tab.documents.navigations_started, scope.tab.document()
    data = await _type(scope.tab, element, text, clear=True, submit=bool(action.params.get("submit")), secret_typed=scope.secret_typed)
    return {**data, **await scope.tab.settle_navigation(navigations, document)}, None
