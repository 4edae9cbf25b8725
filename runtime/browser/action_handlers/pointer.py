"""The pointer's gestures: where a person would put it on an element, hover, click (aimed again
while the element slides, and witnessed where the press landed) and drag with the button held.
gestures.py is what addresses an element and chooses the gesture; this module moves the pointer.
"""

from __future__ import annotations

import math
from typing import Any

from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError
from runtime.browser.scripts.loader import main_world_script
from runtime.browser.tab.tab import ResolvedElement, Tab


async def lands_on(tab: Tab, element: ResolvedElement, x: float, y: float) -> bool:
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


async def hover(tab: Tab, element: ResolvedElement) -> dict[str, Any]:
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
        if await lands_on(tab, element, x, y):
            return point
    raise BrowserActionError(
        ActionErrorCode.NOT_INTERACTABLE,
        f"element {element.how} kept moving away from the pointer ({AIM_ATTEMPTS} aims); it was not clicked",
        state="moved",
    )


async def click(tab: Tab, element: ResolvedElement) -> dict[str, Any]:
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


async def mouse_event(tab: Tab, kind: str, x: float, y: float, pressed: bool) -> None:
    """One CDP mouse event with the left button held (`pressed`) or not, as a pointing device
    reports it: `buttons` says what is held during a move, which pages read as e.buttons."""
    await tab.cdp.send(
        "Input.dispatchMouseEvent",
        {"type": kind, "x": x, "y": y, "button": "left" if pressed or kind == "mouseReleased" else "none", "buttons": 1 if pressed else 0, "clickCount": 1 if kind != "mouseMoved" else 0},
    )


async def drag(tab: Tab, element: ResolvedElement, destination: ResolvedElement) -> dict[str, Any]:
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
    if not await lands_on(tab, element, x, y):
        raise BrowserActionError(
            ActionErrorCode.NOT_INTERACTABLE,
            f"element {element.how} moved away from the pointer before the press (bringing {destination.how} into view moved it?); nothing was dragged",
            state="moved",
        )
    await mouse_event(tab, "mousePressed", x, y, pressed=True)
    moves = max(1, math.ceil(math.hypot(end_x - x, end_y - y) / DRAG_STEP_PX))
    for step in range(1, moves + 1):
        await mouse_event(tab, "mouseMoved", x + (end_x - x) * step / moves, y + (end_y - y) * step / moves, pressed=True)
    await mouse_event(tab, "mouseReleased", end_x, end_y, pressed=False)
    return {"dragged": True, "method": "mouse", "from": [round(x, 1), round(y, 1)], "to": [round(end_x, 1), round(end_y, 1)], "moves": moves, "destination": destination.how}
