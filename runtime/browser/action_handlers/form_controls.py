"""Acting on form controls by their state: check / uncheck a box, put files into a file input.

`check` presses only when the control is not yet in the state asked for (a checked box is left as
it is, as Playwright's check does) and reads the state back: a press that left it unchanged fails
the act. `upload` sets a file input's files through CDP (DOM.setFileInputFiles, which fires the
input's `input` and `change` as a person's choice does) and reads back the names it holds. Which
files may be uploaded is the executor's question; the driver is given paths it already allowed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from runtime.browser.action_handlers.params import invalid
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError
from runtime.browser.tab.tab import ResolvedElement, Tab

# The element a file input's files are set on: the input itself, or the input a label names.
_CONTROL = "function() { return this.control || this; }"


async def set_checked(tab: Tab, element: ResolvedElement, checked: bool, press: Callable[[], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
    """Bring a checkbox, radio or switch to `checked` with `press` (a person's click) when it is
    not there yet; fails unless it is there afterwards."""
    verb = "checked" if checked else "unchecked"
    before = await _checkable(tab, element)
    if before["checked"] == checked:
        return {"checked": checked, "already": True, "control": before["kind"]}
    if not checked and before["kind"] in ("radio", "menuitemradio"):
        raise invalid(f"element {element.how} is a radio button: it cannot be unchecked; check another option of its group")
    data = await press()
    after = await _checkable(tab, element)
    if after["checked"] != checked:
        raise BrowserActionError(
            ActionErrorCode.NOT_INTERACTABLE, f"element {element.how} was pressed but is still not {verb} (the page kept its state)", state="unchanged"
        )
    return {**data, "checked": checked, "already": False, "control": after["kind"]}


async def _checkable(tab: Tab, element: ResolvedElement) -> dict[str, Any]:
    found = await tab.call_script_on(element, "checkable")
    if found["state"] == "detached":
        raise BrowserActionError(ActionErrorCode.STALE_REF, f"element {element.how} is no longer in the page")
    if found["state"] != "ok":
        shown = found.get("role") or (f"{found['tag']}[type={found['type']}]" if found.get("type") else found["tag"])
        raise BrowserActionError(
            ActionErrorCode.NOT_INTERACTABLE, f"element {element.how} ({shown}) is not a checkbox, radio or switch", state="not_checkable"
        )
    return found


async def upload_files(tab: Tab, element: ResolvedElement, paths: list[str]) -> dict[str, Any]:
    """Put the files at `paths` into the file input; fails unless it then holds exactly them."""
    if not paths or not all(isinstance(p, str) and p for p in paths):
        raise invalid("params.files must be a non-empty list of file paths")
    found = await tab.call_script_on(element, "fileInput")
    if found["state"] == "detached":
        raise BrowserActionError(ActionErrorCode.STALE_REF, f"element {element.how} is no longer in the page")
    if found["state"] != "ok":
        why = "is disabled" if found["state"] == "disabled" else f"({found.get('tag')}) is not a file input, nor the label of one"
        raise BrowserActionError(ActionErrorCode.NOT_INTERACTABLE, f"element {element.how} {why}", state=found["state"])
    if len(paths) > 1 and not found["multiple"]:
        raise BrowserActionError(
            ActionErrorCode.NOT_INTERACTABLE, f"element {element.how} takes one file (no `multiple`); {len(paths)} were given", state="single_file"
        )
    control = await tab.cdp.send(
        "Runtime.callFunctionOn", {"objectId": element.object_id, "functionDeclaration": _CONTROL, "returnByValue": False}
    )
    await tab.cdp.send("DOM.setFileInputFiles", {"files": list(paths), "objectId": control["result"]["objectId"]})
    held = (await tab.call_script_on(element, "fileInput")).get("held") or []
    wanted = [Path(p).name for p in paths]
    if held != wanted:
        raise BrowserActionError(ActionErrorCode.NOT_INTERACTABLE, f"element {element.how} holds {held} after the upload, not {wanted}", state="unchanged")
    return {"uploaded": held, "replaced": found["held"]}
