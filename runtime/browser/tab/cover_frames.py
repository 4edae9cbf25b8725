"""The documents of the frames a covering layer holds that the page cannot read (another origin),
read in their own worlds: a sign-in box or a paywall served from another site into a frame drawn
over the page is judged by what it says, as one drawn by the page itself (scripts/covering_layer.js
reads the frames of its own origin)."""

from __future__ import annotations

from typing import Any

from runtime.browser.tab.worlds import FrameWorlds, call_on_frame_owner


async def read_cover_frames(worlds: FrameWorlds, cdp: Any, cover: dict[str, Any] | None, limit: int) -> dict[str, Any] | None:
    """`cover` (coveringLayer's answer in the top document) with what its unread frames show
    added to its text, headings, password field, captcha widget and controls; a frame found gone
    or unreadable stays listed in `unread_frames`."""
    if not cover or not cover.get("unread_frames"):
        return cover
    top = worlds.top_frame_id()
    unread = list(cover["unread_frames"])
    merged = dict(cover)
    for frame in await worlds.frames():
        if frame.get("parentId") != top:
            continue
        try:
            # Which of the layer's unread frames this one is, asked of its element in the top document.
            index = (await call_on_frame_owner(cdp, frame["id"], await worlds.top_context(), "coverFrameIndex", [])).get("result", {}).get("value")
            if not isinstance(index, int) or not 0 <= index < len(unread):
                continue
            # Where the frame is now, which its `src` need not say (a redirect, a navigation).
            where = str(frame.get("url") or unread[index])
            merged["frames"] = [where if url == unread[index] else url for url in merged.get("frames") or ()]
            unread[index] = where
            reply = await worlds.call(await worlds.context_for(frame), "frameLayer", limit)
        except Exception:  # noqa: BLE001 - the frame went meanwhile: it stays unread
            continue
        signs = (reply.get("result") or {}).get("value")
        if not isinstance(signs, dict):
            continue
        unread[index] = ""
        merged["text"] = "\n".join(part for part in (str(merged.get("text") or ""), str(signs.get("text") or "")) if part)[:limit]
        for key in ("headings", "controls"):
            merged[key] = [*(merged.get(key) or []), *(signs.get(key) or [])]
        merged["password"] = bool(merged.get("password") or signs.get("password"))
        merged["captcha"] = bool(merged.get("captcha") or signs.get("captcha"))
    merged["unread_frames"] = [url for url in unread if url]
    return merged
