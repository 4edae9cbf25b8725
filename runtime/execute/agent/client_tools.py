"""Tools an agent step offers only when its tool list names them: what an MCP client driving the
step may ask for, and a model is not offered by default (every declaration goes with every model
request, and a model has no use for a picture file or a page script of its own).

- `browser_screenshot` (an MCP client's `browser_take_screenshot`): the viewport, the whole page
  or one element as a PNG or JPEG run artifact, every secret the run knows covered while it is
  taken (the same mask every screenshot of a run gets: runtime/browser/action_handlers/read.py).
- `browser_evaluate`: a function run in the page, as a recipe's `evaluate` step runs its script
  (the same driver action: an isolated world, the run's timeout, the same result limit). Offered
  only when the recipe names it in tools.allow, the rule for every page script. Whatever it
  fetches passes the run's fence like any request of the page; its result is redacted like every
  result; and the page is judged again after it, since it may have changed it. What it writes into
  the document (text, attributes, a control's value, the title) is the model's word, not the
  page's: no check and no extract of the step takes it for what the page states.
"""

from __future__ import annotations

from typing import Any

from runtime.execute.agent.tool_outcome import ToolOutcome
from runtime.plan.state_kinds import EVALUATE_RESULT_MAX_BYTES
from runtime.execute.context.run_context import RunContext
from runtime.plan.agent_vocabulary import TargetInvalid, agent_target

SCREENSHOT_TOOL = "browser_screenshot"
EVALUATE_TOOL = "browser_evaluate"
IMAGE_TYPES = ("png", "jpeg")


async def take_screenshot(ctx: RunContext, arguments: dict[str, Any], timeout: int) -> ToolOutcome:
    """The acting tab as an image artifact; its path, size and type go back (never the bytes)."""
    image_type = str(arguments.get("type") or "png")
    if image_type not in IMAGE_TYPES:
        return ToolOutcome.invalid(f"type must be one of {', '.join(IMAGE_TYPES)}, got {image_type!r}")
    target = None
    if arguments.get("target") not in (None, ""):
        try:
            target = agent_target(arguments["target"])
        except TargetInvalid as error:
            return ToolOutcome.invalid(str(error))
    full_page = bool(arguments.get("fullPage"))
    if target is not None and full_page:
        return ToolOutcome.invalid("give either a target (one element) or fullPage, not both")
    shot = await ctx.browser.run_action(
        "screenshot", f"a {image_type} screenshot for the client",
        lambda s, a: s.screenshot(full_page=full_page, image_type=image_type, target=target, action_id=a, timeout_ms=timeout),
    )  # fmt: skip
    if not shot.ok:
        return ToolOutcome.from_error(shot)
    data = shot.data
    what = "the element" if target is not None else "the whole page" if full_page else "the viewport"
    response = {
        "ok": True, "type": image_type, "width": data.get("width"), "height": data.get("height"), "url": data.get("url"),
        "artifact": data["artifact"]["path"],
    }  # fmt: skip
    return ToolOutcome(True, response, f"a {image_type} screenshot of {what}, {data.get('width')}x{data.get('height')}")


async def run_function(ctx: RunContext, arguments: dict[str, Any], timeout: int) -> ToolOutcome:
    """`function` (Playwright MCP's: `() => document.title`, async or not) called in the page; its
    JSON result goes back, at most EVALUATE_RESULT_MAX_BYTES of it, as a recipe's evaluate step's."""
    function = arguments.get("function")
    if not isinstance(function, str) or not function.strip():
        return ToolOutcome.invalid("browser_evaluate needs function, a JavaScript function such as '() => document.title'")
    if arguments.get("target") not in (None, ""):
        # Playwright MCP hands an element to the function; here the function finds its own.
        return ToolOutcome.invalid("browser_evaluate takes no element here: leave ref out and find the element in the function (document.querySelector)")
    # The recipe vocabulary's script is an async function body: this one calls the client's function.
    script = f"return await ({function})();"
    ran = await ctx.browser.run_action(
        "evaluate", "a function of the client in the page",
        lambda s, a: s.evaluate(script, max_bytes=EVALUATE_RESULT_MAX_BYTES, model_script=True, action_id=a, timeout_ms=timeout),
    )  # fmt: skip
    if not ran.ok:
        return ToolOutcome.from_error(ran)
    size = ran.data.get("size")
    return ToolOutcome(True, {"ok": True, "result": ran.data.get("result"), "size": size}, f"evaluated a function: {size} bytes of JSON back")
