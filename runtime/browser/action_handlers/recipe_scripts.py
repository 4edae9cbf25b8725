"""`browser_evaluate`: run a recipe's script in the page and bring back its JSON result.

The script is the body of an async function of `args`. It runs in a fresh isolated world of the
top frame by default (it sees the DOM, not the page's own scripts, and leaves nothing behind for
the next script); `world: main` runs it in the page's own world, globals included. With
`model_script`, the script is an agent's model's function: what it writes into the document is kept
as the model's words, which no check of the page takes for the page's (scripts/script_writes.js),
and it runs in an isolated world of its own, sealed once it returns so that nothing it left running
writes afterwards (scripts/model_world/seal.js). The action's
timeout bounds it (a synchronous loop is terminated by Chromium), and a result whose JSON is
larger than `max_bytes` fails as `result_too_large`.
"""

from __future__ import annotations

import json
from typing import Any

from runtime.browser.action_handlers.params import int_param, invalid, required_str
from runtime.browser.action_handlers.scope import ActionScope, Result
from runtime.browser.vocabulary.actions import Action
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError
from runtime.browser.tab.model_frames import mark_frames_sent
from runtime.browser.tab.tab import Tab
from runtime.browser.scripts.loader import model_world_script

EVALUATE_WORLD = "verity-evaluate"
DEFAULT_MAX_BYTES = 64 * 1024
WORLDS = ("isolated", "main")
FRAME_SENT = "Page.frameRequestedNavigation"


async def browser_evaluate(scope: ActionScope, action: Action) -> Result:
    tab = scope.tab
    params = action.params
    script = required_str(params, "script")
    world = params.get("world", "isolated")
    if world not in WORLDS:
        raise invalid(f"params.world must be one of {list(WORLDS)}, got {world!r}")
    args = params.get("args", {})
    try:
        args_json = json.dumps(args, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise invalid(f"params.args must be JSON: {error}") from None
    max_bytes = int_param(params, "max_bytes", DEFAULT_MAX_BYTES, minimum=1)
    model_script = params.get("model_script", False)
    if not isinstance(model_script, bool):
        raise invalid("params.model_script must be true or false")
    request: dict[str, Any] = {
        "expression": f"(async (args) => {{\n{script}\n}})({args_json})",
        "returnByValue": True,
        "awaitPromise": True,
        # Chromium terminates a script still running when this runs out (a synchronous loop too).
        "timeout": max(1, int(tab.remaining_ms())),
    }
    if world == "isolated":
        frame = (await tab.worlds.frames())[0]
        # A model's function gets a world of its own: sealed once it returns, it must not be the next one's.
        name = f"{EVALUATE_WORLD}-{action.action_id}" if model_script else EVALUATE_WORLD
        created = await tab.cdp.send("Page.createIsolatedWorld", {"frameId": frame["id"], "worldName": name})
        request["contextId"] = created["executionContextId"]
    # What the script changes is the run's own doing, not the page changing by itself: the churn
    # ledger (scripts/ledger.js) keeps none of it, nor what lands while the page settles after it.
    await _own_change(tab, True, model_script)
    # The frames a model's function sends elsewhere, which the watch in the page cannot hear.
    requested: list[dict[str, Any]] = []
    heard = requested.append
    if model_script:
        tab.cdp.on(FRAME_SENT, heard)
    try:
        reply = await tab.cdp.send("Runtime.evaluate", request)
    finally:
        if model_script and "contextId" in request:
            await _seal(tab, request["contextId"])
        if model_script:
            tab.cdp.remove_listener(FRAME_SENT, heard)
            await mark_frames_sent(tab.worlds, tab.cdp, requested)
        await _own_change(tab, False)
    if "exceptionDetails" in reply:
        details = reply["exceptionDetails"]
        text = str((details.get("exception") or {}).get("description") or details.get("text") or "script error").splitlines()[0]
        if "terminated" in text.lower():
            raise BrowserActionError(ActionErrorCode.TIMEOUT, f"the script did not finish in time: {text}", world=world)
        raise BrowserActionError(ActionErrorCode.SCRIPT_FAILED, f"the script threw: {text}", world=world)
    result = reply.get("result", {})
    value = result.get("value") if result.get("type") != "undefined" else None
    size = len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
    if size > max_bytes:
        raise BrowserActionError(
            ActionErrorCode.RESULT_TOO_LARGE, f"the script's result is {size} bytes of JSON; at most {max_bytes} may come back", size=size, max_bytes=max_bytes
        )
    return {"result": value, "world": world, "size": size, "url": await tab.current_url()}, None


async def _seal(tab: Tab, context_id: int) -> None:
    """What a model's function left running in its world writes nothing into the document from now
    on (scripts/model_world/seal.js), before the watch of what it wrote ends."""
    try:
        await tab.cdp.send("Runtime.evaluate", {"expression": f"({model_world_script('seal')})()", "contextId": context_id})
    except Exception:  # noqa: BLE001 - the document (and the world with it) went: nothing is left to seal
        pass


async def _own_change(tab: Tab, begins: bool, model_script: bool = False) -> None:
    try:
        await tab.call_script("ownChange", begins, model_script)
    except Exception:  # noqa: BLE001 - the script took the document away: no ledger to tell
        pass
