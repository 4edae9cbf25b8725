"""The model's acts and waits: one function per tool, each turning the model's arguments into the
params a plan act (or wait) carries and running it the one way acts run (execute/acts/): the
same driver call, then the same judge of the act's own effect, whose verdict goes back to the
model (`effect`, and what was seen) instead of deciding a step.

Arguments are read as Playwright MCP shapes them, and as the tools' old names took them
(`value`/`label` for a select, `kind`/`value` for a wait, a target object), so a model's habits
and older scripts keep working.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from runtime.execute.acts.expectations import await_expectations
from runtime.execute.acts.gestures import driver_call, only_types, put_text
from runtime.execute.acts.waits import wait_for
from runtime.execute.agent.tool_outcome import ToolOutcome
from runtime.execute.context.run_context import RunContext
from runtime.plan.agent_vocabulary import UPLOAD_TOOL, TargetInvalid, UploadRefused, agent_target

SEEN_CHARS = 200
SCROLL_DIRECTIONS = ("up", "down", "left", "right", "top", "bottom")
WAIT_STATES = ("visible", "hidden", "attached", "detached")


class ArgumentsInvalid(ValueError):
    """Arguments the model sent that no act can run with; the message says what to send."""


def literal_text(value: Any) -> Any:
    """Model-written text passed where recipe text is filled: braces stay braces, not placeholders."""
    if isinstance(value, str):
        return value.replace("{", "{{").replace("}", "}}")
    if isinstance(value, dict):
        return {k: literal_text(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class ToolCall:
    """One call of the model: the run it acts in, the step's timeout and the arguments as sent."""

    ctx: RunContext
    timeout: int
    arguments: dict[str, Any]

    def target(self, *keys: str, required: bool = True) -> dict[str, Any] | None:
        """The locator under the first of `keys` the model gave (older names of the argument after the first)."""
        for key in keys:
            if self.arguments.get(key) is not None:
                return agent_target(self.arguments[key], key)
        if required:
            raise TargetInvalid(f"{keys[0]} is required: a ref such as s3:e12 or a locator such as label=Email")
        return None

    def text(self, key: str, *, required: bool = False) -> str | None:
        value = self.arguments.get(key)
        if value is None:
            if required:
                raise ArgumentsInvalid(f"{key} is required (a string)")
            return None
        if isinstance(value, (dict, list)):
            raise ArgumentsInvalid(f"{key} must be a string")
        return str(value)


ToolFunction = Callable[[ToolCall], Awaitable[ToolOutcome]]


async def run_tool(function: ToolFunction, call: ToolCall) -> ToolOutcome:
    """Run one of the functions below; arguments it cannot use come back as invalid_params."""
    try:
        return await function(call)
    except (TargetInvalid, ArgumentsInvalid) as error:
        return ToolOutcome.invalid(str(error))
    except UploadRefused as refused:
        return ToolOutcome.failed("upload_refused", str(refused))


async def _act(call: ToolCall, action: str, params: dict[str, Any], paths: list[str] | None = None) -> ToolOutcome:
    """Run the act as a plan act runs, then judge whether it had an effect of its own; the model
    hears which (a check by the box's state: one already checked is no effect, and still done)."""
    ctx = call.ctx
    described = params.get(action) if isinstance(params.get(action), (dict, str)) else action
    ctx.browser.sent_data.put(put_text(action, params))  # before the page has it (EXEC-101)
    refused_before = ctx.browser.sent_data.pending
    with ctx.browser.sent_data.typing(only_types(action, params)):
        result = await ctx.browser.run_action("act", f"{action} {described}", driver_call(action, params, call.timeout, None, paths))
    if not result.ok:
        return ToolOutcome.from_error(result)
    opened = [str(tab.get("url")) for tab in result.data.get("opened_tabs") or []]
    if action in ("check", "uncheck"):
        effect = not result.data.get("already")
        seen = f"it was {action}ed already" if not effect else f"it is {action}ed now"
    else:
        checks = await await_expectations(ctx, None, "", call.timeout, tuple(f"opened tab {url}" for url in opened))
        effect = all(check.passed for check in checks)
        seen = "; ".join(check.message or str(check.observed) for check in checks)
    refused = ctx.browser.sent_data.since(refused_before)
    if refused:
        # The page sent the run's data where the fence refused it: the act did not succeed,
        # whatever the page shows next (EXEC-101); the step fails for it unless it fails otherwise.
        kind = refused[0].kind
        return ToolOutcome.failed(kind.value, ctx.browser.sent_data.describe(refused[0]), refused=kind)
    response: dict[str, Any] = {"ok": True, "effect": effect, "seen": seen[:SEEN_CHARS]}
    for key in ("chosen", "uploaded", "selected_text"):
        if key in result.data:
            response[key] = result.data[key]
    if opened:
        response["opened_tabs"] = opened
    # A typed secret is kept as its marker, never its value (the run files redact it too).
    kept = {**params, "text": call.ctx.secrets.redact(params["text"])} if "text" in params else params
    performed = {"act": kept, "resolved": result.data.get("target"), "effect": effect}
    return ToolOutcome(True, response, f"{action} done, {'an effect' if effect else 'no effect'}: {seen[:120]}", performed=performed)


async def click(call: ToolCall) -> ToolOutcome:
    return await _act(call, "click", {"click": call.target("target", "ref")})


async def hover(call: ToolCall) -> ToolOutcome:
    return await _act(call, "hover", {"hover": call.target("target", "ref")})


async def check(call: ToolCall) -> ToolOutcome:
    return await _act(call, "check", {"check": call.target("target", "ref")})


async def uncheck(call: ToolCall) -> ToolOutcome:
    return await _act(call, "uncheck", {"uncheck": call.target("target", "ref")})


async def type_text(call: ToolCall) -> ToolOutcome:
    target, text = call.target("target", "ref"), call.text("text", required=True)
    # The model writes a secret as its marker; only here, typed into the field, is it the value.
    typed = call.ctx.secrets.reveal(text or "")
    params = {"type": target, "text": typed, "submit": bool(call.arguments.get("submit")), "keys": bool(call.arguments.get("slowly"))}
    return await _act(call, "type", params)


async def press_key(call: ToolCall) -> ToolOutcome:
    key = call.text("key", required=True)
    return await _act(call, "press", {"press": key, "target": call.target("target", "ref", required=False)})


async def select_option(call: ToolCall) -> ToolOutcome:
    target = call.target("target", "ref")
    values = call.arguments.get("values")
    if values is None:  # the old browser_select: one value, or one visible label
        single = call.text("value") or call.text("label")
        values = [single] if single is not None else None
    if isinstance(values, str):
        values = [values]
    if not isinstance(values, list) or not values or not all(isinstance(v, (str, int, float)) for v in values):
        raise ArgumentsInvalid("values is required: a list of option values or labels, such as [\"Blue\"]")
    mode = call.text("mode") or "replace"
    if mode not in ("replace", "add", "remove"):
        raise ArgumentsInvalid(f"mode must be add or remove (or left out to choose exactly these), got {mode!r}")
    outcome = ToolOutcome.invalid("no option was given")
    for index, value in enumerate(values):
        # Exactly these options: the first replaces the choice, the others join it.
        chosen_mode = mode if mode != "replace" or index == 0 else "add"
        params = {"select": target, "value": str(value), "add": chosen_mode == "add", "remove": chosen_mode == "remove"}
        outcome = await _act(call, "select", params)
        if not outcome.ok:
            return outcome
    return outcome


async def drag(call: ToolCall) -> ToolOutcome:
    start = call.target("startTarget", "target", "startRef")
    end = call.target("endTarget", "to", "endRef")
    return await _act(call, "drag", {"drag": start, "to": end})


async def select_text(call: ToolCall) -> ToolOutcome:
    return await _act(call, "select_text", {"select_text": call.target("target", "ref"), "text": call.text("text") or ""})


async def scroll(call: ToolCall) -> ToolOutcome:
    direction = call.text("direction") or "down"
    if direction not in SCROLL_DIRECTIONS:
        raise ArgumentsInvalid(f"direction must be one of {', '.join(SCROLL_DIRECTIONS)}, got {direction!r}")
    return await _act(call, "scroll", {"scroll": direction, "target": call.target("target", "ref", required=False)})


async def file_upload(call: ToolCall) -> ToolOutcome:
    target = call.target("target", "ref")
    names = call.arguments.get("files", call.arguments.get("paths"))
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise ArgumentsInvalid(f"files is required: names the recipe declares ({', '.join(call.ctx.uploads.names) or 'none'})")
    # Names only: the recipe's declared files, each still inside its directory now.
    paths = [str(call.ctx.uploads.path_of(name)) for name in names]
    return await _act(call, "upload", {"upload": target, "files": names}, paths)


async def wait(call: ToolCall) -> ToolOutcome:
    params = _wait_params(call)
    timeout = call.timeout
    waited = await wait_for(call.ctx, params, timeout)
    if not waited.ok:
        return ToolOutcome.failed(waited.error or "timeout", waited.summary)
    return ToolOutcome(True, {"ok": True}, waited.summary, performed={"wait": params})


def _wait_params(call: ToolCall) -> dict[str, Any]:
    """A wait step's params from Playwright MCP's wait arguments (time in seconds), or the old
    browser_wait's kind/value; texts kept literal (no placeholders)."""
    arguments = dict(call.arguments)
    kind = arguments.pop("kind", None)
    if kind is not None:  # the old browser_wait
        value = arguments.pop("value", None)
        old = {"load": "load", "text_includes": "text", "url": "url", "timeout": "timeout_ms"}
        if kind not in old:
            raise ArgumentsInvalid(f"kind must be one of {', '.join(old)}, got {kind!r}")
        arguments = {"load": True} if kind == "load" else {old[kind]: value}
    given = [key for key in ("text", "textGone", "url", "selector", "load", "time", "timeout_ms") if arguments.get(key) not in (None, False)]
    if len(given) != 1:
        raise ArgumentsInvalid(f"give exactly one of text, textGone, url, selector, load, time (got {', '.join(given) or 'none'})")
    key = given[0]
    if key in ("time", "timeout_ms"):
        try:
            milliseconds = float(arguments[key]) * (1000 if key == "time" else 1)
        except (TypeError, ValueError):
            raise ArgumentsInvalid(f"{key} must be a number{' of seconds' if key == 'time' else ''}") from None
        # One wait stays inside the step's time.
        return {"timeout_ms": max(0, min(int(milliseconds), call.timeout))}
    if key == "load":
        return {"load": True}
    value = literal_text(call.text(key))
    if key == "textGone":
        return {"text": value, "gone": True}
    if key == "selector":
        state = call.text("state")
        if state is not None and state not in WAIT_STATES:
            raise ArgumentsInvalid(f"state must be one of {', '.join(WAIT_STATES)}, got {state!r}")
        return {"selector": value, **({"state": state} if state else {})}
    return {key: value}


# Each act and wait tool's function; the other tools are the tool calls' own (tool_calls.py).
ACT_TOOLS: dict[str, ToolFunction] = {
    "browser_click": click,
    "browser_type": type_text,
    "browser_press_key": press_key,
    "browser_select_option": select_option,
    "browser_check": check,
    "browser_uncheck": uncheck,
    "browser_hover": hover,
    "browser_drag": drag,
    "browser_select_text": select_text,
    "browser_scroll": scroll,
    UPLOAD_TOOL: file_upload,
    "browser_wait_for": wait,
}
