"""A tab's isolated worlds, one per frame's document, and calls to the page scripts there.

The driver reads, checks and acts in the isolated world `WORLD_NAME` of each document: it has the
DOM without the page's own scripts, so a page that redefines `document.title`, `innerText` or
`querySelectorAll` for its scripts cannot change what Verity reads, and nothing a page does can
see or call the page scripts installed there (runtime/browser/scripts).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from runtime.browser.scripts.loader import CALL, NOT_INSTALLED, WORLD_NAME, install_declaration


class FrameWorlds:
    """Isolated-world execution contexts per frame, recreated when a frame loads a new document.

    Chromium makes the driver's world in every new document itself (the tab adds the page scripts
    to every new document in that world) and says so in `Runtime.executionContextCreated`; those events are
    followed, so a read needs no round trip to learn its world. `Page.createIsolatedWorld` on a
    frame returns that same world, and is asked only for a document whose world was not
    announced (one that existed before the tab was attached)."""

    def __init__(self, cdp: Any, top_frame_id: Callable[[], str] = lambda: "") -> None:
        self._cdp = cdp
        self._top_frame_id = top_frame_id
        self._contexts: dict[tuple[str, str], int] = {}
        # The announced worlds, by frame id, as of the last CDP event received.
        self._announced: dict[str, int] = {}
        cdp.on("Runtime.executionContextCreated", self._on_created)
        cdp.on("Runtime.executionContextDestroyed", self._on_destroyed)
        cdp.on("Runtime.executionContextsCleared", lambda _params: self._announced.clear())

    def _on_created(self, params: dict[str, Any]) -> None:
        context = params.get("context") or {}
        aux = context.get("auxData") or {}
        if context.get("name") == WORLD_NAME and aux.get("type") == "isolated" and aux.get("frameId"):
            self._announced[aux["frameId"]] = context["id"]

    def _on_destroyed(self, params: dict[str, Any]) -> None:
        gone = params.get("executionContextId")
        for frame_id, context_id in list(self._announced.items()):
            if context_id == gone:
                del self._announced[frame_id]

    async def top_context(self) -> int:
        """The world of the document the top frame shows."""
        announced = self._announced.get(self._top_frame_id())
        if announced is not None:
            return announced
        return await self.context_for((await self.frames())[0])

    async def frames(self) -> list[dict[str, Any]]:
        """Frames of the tab in document (pre-)order, each with id, url, loaderId, parentId."""
        tree = (await self._cdp.send("Page.getFrameTree"))["frameTree"]
        ordered: list[dict[str, Any]] = []
        pending = [tree]
        while pending:
            node = pending.pop()
            ordered.append(node["frame"])
            pending.extend(reversed(node.get("childFrames", [])))
        return ordered

    async def context_for(self, frame: dict[str, Any]) -> int:
        announced = self._announced.get(frame["id"])
        if announced is not None:
            return announced
        key = (frame["id"], frame.get("loaderId", ""))
        if key not in self._contexts:
            reply = await self._cdp.send(
                "Page.createIsolatedWorld", {"frameId": frame["id"], "worldName": WORLD_NAME}
            )
            context_id = reply["executionContextId"]
            # The world of a document that began before the tab was followed has no page scripts
            # yet (one Chromium made already has them: installing is then a no-op).
            await self._cdp.send("Runtime.callFunctionOn", {"functionDeclaration": install_declaration(), "executionContextId": context_id})
            self._contexts[key] = context_id
        return self._contexts[key]

    def top_frame_id(self) -> str:
        return self._top_frame_id()

    def frame_of(self, context_id: int) -> str | None:
        """The id of the frame whose document has world `context_id`, if it is one of the driver's."""
        for frame_id, announced in self._announced.items():
            if announced == context_id:
                return frame_id
        return next((frame_id for (frame_id, _loader), made in self._contexts.items() if made == context_id), None)

    def reset(self) -> None:
        """Forget every world: a document replaced without a new loader id (a javascript: URL)
        took its worlds with it."""
        self._contexts.clear()
        self._announced.clear()

    def forget(self, frame: dict[str, Any]) -> None:
        self._contexts.pop((frame["id"], frame.get("loaderId", "")), None)
        self._announced.pop(frame["id"], None)

    async def evaluate(self, context_id: int, expression: str, *, by_value: bool = True, await_promise: bool = False) -> dict[str, Any]:
        """The CDP reply of `expression` evaluated in world `context_id`."""
        return await self._cdp.send(
            "Runtime.evaluate",
            {"expression": expression, "contextId": context_id, "returnByValue": by_value, "awaitPromise": await_promise},
        )

    async def call(self, context_id: int, name: str, *args: Any, by_value: bool = True) -> dict[str, Any]:
        """The CDP reply of the page scripts' function `name` called in world `context_id` with
        JSON `args` (its JSON value, or with `by_value=False` a handle on it; a promise is awaited)."""
        return await call_page_script(self._cdp, {"executionContextId": context_id}, name, args, by_value=by_value)


async def call_page_script(cdp: Any, where: dict[str, Any], name: str, args: Sequence[Any], *, by_value: bool = True) -> dict[str, Any]:
    """The CDP reply of the page scripts' function `name`, called with JSON `args` in a world
    (`{"executionContextId": ...}`) or on an object of one (`{"objectId": ...}`, its `this`).
    A world found without the page scripts gets them, and the call is made again."""
    params = {
        "functionDeclaration": CALL,
        **where,
        "arguments": [{"value": name}, *({"value": arg} for arg in args)],
        "returnByValue": by_value,
        "awaitPromise": True,
    }
    reply = await cdp.send("Runtime.callFunctionOn", params)
    if NOT_INSTALLED in str(((reply.get("exceptionDetails") or {}).get("exception") or {}).get("description", "")):
        await cdp.send("Runtime.callFunctionOn", {"functionDeclaration": install_declaration(), **where})
        reply = await cdp.send("Runtime.callFunctionOn", params)
    return reply  # type: ignore[no-any-return]


async def call_on_frame_owner(
    cdp: Any, frame_id: str, context_id: int, name: str, args: Sequence[Any], *, object_group: str | None = None
) -> dict[str, Any]:
    """The reply of the page scripts' function `name` called on the element that holds frame
    `frame_id` (its `this`), in the world `context_id` of the document that element is in; its
    handle kept in `object_group` when one is named (for the caller to release)."""
    owner = await cdp.send("DOM.getFrameOwner", {"frameId": frame_id})
    resolve = {"backendNodeId": owner["backendNodeId"], "executionContextId": context_id}
    handle = await cdp.send("DOM.resolveNode", {**resolve, "objectGroup": object_group} if object_group else resolve)
    return await call_page_script(cdp, {"objectId": handle["object"]["objectId"]}, name, args)
