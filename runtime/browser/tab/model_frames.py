"""Whether a frame's document is an agent's model's own making, asked from the frames around it.

A model's page script (browser_evaluate) can make a frame, or point one at a source of its own (a
`srcdoc`, a `data:` URL), and then read or check what that frame shows: every word of it is the
model's, whatever its origin. Its own document cannot tell (a `data:` document is cross-origin to
the page and to the record of what the script wrote, scripts/script_writes.js), but the element
that holds the frame can: the record of its parent's document says whether the script inserted
it, set its `srcdoc`, or sent it to a source it wrote itself (a `data:` or `blob:` URL). Each
frame between the read and the top is asked, nearest first.
"""

from __future__ import annotations

import re
from typing import Any

from runtime.browser.tab.worlds import FrameWorlds, call_on_frame_owner

# A frame source whose document is written by whoever writes the URL (data:, blob:, about:).
_SERVED = re.compile(r"^https?:", re.IGNORECASE)


async def framed_by_model(worlds: FrameWorlds, cdp: Any, context_id: int | None) -> bool:
    """Whether the document of world `context_id`, or a frame it sits in, is held by a frame
    element the model's own script made or re-sourced (False for the top document)."""
    frame_id = worlds.frame_of(context_id) if context_id is not None else None
    if frame_id is None or frame_id == worlds.top_frame_id():
        return False
    parents = {frame["id"]: frame for frame in await worlds.frames()}
    while frame_id in parents and parents[frame_id].get("parentId"):
        parent = parents.get(parents[frame_id]["parentId"])
        if parent is None:
            return False  # its parent is out of this tab's reach (another process)
        try:
            reply = await call_on_frame_owner(cdp, frame_id, await worlds.context_for(parent), "framedByModel", [parents[frame_id].get("url", "")])
        except Exception:  # noqa: BLE001 - the frame went meanwhile: the read that follows finds it gone
            return False
        if (reply.get("result") or {}).get("value") is True:
            return True
        frame_id = parent["id"]
    return False


async def mark_frames_sent(worlds: FrameWorlds, cdp: Any, requested: list[dict[str, Any]]) -> None:
    """Tell the records which frames the model's function sent to a source it wrote itself, from
    the navigations it requested while it ran (`Page.frameRequestedNavigation`: its window's
    location, a link or a form aimed at a frame), which a cross-origin frame's parent cannot hear."""
    sent = {params["frameId"] for params in requested if params.get("frameId") and not _SERVED.match(str(params.get("url", "")))}
    if not sent:
        return
    parents = {frame["id"]: frame for frame in await worlds.frames()}
    for frame_id in sent:
        parent = parents.get(str((parents.get(frame_id) or {}).get("parentId") or ""))
        if parent is None:
            continue  # the top frame, or one gone meanwhile
        try:
            await call_on_frame_owner(cdp, frame_id, await worlds.context_for(parent), "frameSentByModel", [])
        except Exception:  # noqa: BLE001 - the frame went meanwhile: nothing of it is left to read
            continue
