"""The driver call each act makes, from its params as a plan act carries them (the action's key
holds the element's locator: `{click: {...}}`, `{drag: {...}, to: {...}}`, `{upload: {...},
files: [...]}`), and what the act must show by default."""

from __future__ import annotations

from typing import Any

from runtime.browser import ActionErrorCode, ActionResult, BrowserSession
from runtime.execute.context.browser_access import DriverCall

ACTIONS = ("click", "hover", "type", "select", "press", "scroll", "drag", "select_text", "check", "uncheck", "upload")
# Actions whose key holds the element acted on (press and scroll act on the page).
TARGETED = ("click", "hover", "type", "select", "drag", "select_text", "check", "uncheck", "upload")

SCROLL_STEP_PX = 600
SCROLL_TO_END_PX = 1_000_000


def scroll_motion(direction: str) -> tuple[str, int]:
    """A recipe's or model's scroll direction as the driver's: top/bottom scroll all the way."""
    if direction in ("top", "bottom"):
        return ("up" if direction == "top" else "down"), SCROLL_TO_END_PX
    return direction, SCROLL_STEP_PX


def act_action(params: dict[str, Any]) -> str:
    """Which act `params` make."""
    return next(k for k in ACTIONS if k in params)


def default_expect(action: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """What the act must show when its step says nothing: a check or uncheck by the box's state
    (checking a box already checked is no effect, and still done), any other act by an effect of
    its own (None)."""
    if params.get("expect") is not None or action not in ("check", "uncheck"):
        return params.get("expect")
    checked = {"element": {**params[action], "state": "checked"}}
    return checked if action == "check" else {"not": checked}


def put_text(action: str, params: dict[str, Any]) -> str | None:
    """The text the act puts into the page (typed, or an option chosen), else None."""
    return {"type": params.get("text"), "select": params.get("value")}.get(action)


def only_types(action: str, params: dict[str, Any]) -> bool:
    """Whether the act only types or chooses: a type without `submit`, a select, a key of text
    pressed. Anything else may submit (a click, Enter, `submit: true`): RunSentData.typing."""
    if action == "press":
        key = str(params.get("press") or "")
        return len(key) == 1 and key.isprintable()
    return action == "select" or (action == "type" and not params.get("submit"))


def driver_call(action: str, params: dict[str, Any], timeout: int, baseline: int | None = None, paths: list[str] | None = None) -> DriverCall:
    """The driver call of the act `params` make; `paths` are an upload's files, already allowed."""
    target = params.get(action)
    read = params.get("read_at_press") or None
    if action == "click":
        return lambda s, a: s.click(target, action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline, read_at_press=read)
    if action == "hover":
        return lambda s, a: s.hover(target, action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline)
    if action == "type":
        keys, delay = bool(params.get("keys")), int(params.get("key_delay_ms") or 0)
        return lambda s, a: s.type_text(
            target, params["text"], submit=bool(params.get("submit")), keys=keys, key_delay_ms=delay,
            action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline,
        )  # fmt: skip
    if action == "select":
        mode = "add" if params.get("add") else "remove" if params.get("remove") else "replace"
        return lambda s, a: select_by_value_or_label(s, a, target, params["value"], timeout, baseline, mode=mode)
    if action == "select_text":
        return lambda s, a: s.select_text(target, params.get("text") or "", action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline)
    if action == "drag":
        return lambda s, a: s.drag(target, params["to"], action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline, read_at_press=read)
    if action in ("check", "uncheck"):
        return lambda s, a: s.check(target, checked=action == "check", action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline)
    if action == "upload":
        return lambda s, a: s.upload(target, list(paths or []), action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline)
    if action == "press":
        return lambda s, a: s.press(params["press"], target=params.get("target"), action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline, read_at_press=read)
    direction, amount = scroll_motion(params["scroll"])
    return lambda s, a: s.scroll(direction=direction, amount=amount, target=params.get("target"), action_id=a, timeout_ms=timeout, effect_baseline_ms=baseline)


async def select_by_value_or_label(
    session: BrowserSession, action_id: str, target: Any, value: str, timeout: int, baseline: int | None = None, *, mode: str = "replace"
) -> ActionResult:
    # A recipe's `value` is an option value or its visible label; try the value first.
    result = await session.select(target, value=value, mode=mode, action_id=action_id, timeout_ms=timeout, effect_baseline_ms=baseline)
    if result.ok or result.error_code is not ActionErrorCode.NOT_FOUND or "options" not in (result.error.details if result.error else {}):
        return result
    return await session.select(target, label=value, mode=mode, action_id=action_id + ":label", timeout_ms=timeout, effect_baseline_ms=baseline)
