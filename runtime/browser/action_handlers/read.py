"""Reading a page: screenshots, HTML, readable text, XPath scans, snapshots and observations."""

from __future__ import annotations

import asyncio
import base64
import struct
from typing import Any


from runtime.artifacts import ArtifactRef
from runtime.browser.action_handlers.params import int_param, invalid, required_str, str_param, target_param
from runtime.browser.action_handlers.scope import ActionScope, Result
from runtime.browser.action_handlers.checks import fingerprint_from
from runtime.browser.action_handlers.waiting import wait_until_loaded
from runtime.browser.vocabulary.actions import Action, Target
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError, document_replaced
from runtime.browser.vocabulary.observation import Observation, PageSigns, PreparedPage, Snapshot
from runtime.browser.launch.readable_text import readable_text
from runtime.browser.tab.cover_frames import read_cover_frames
from runtime.browser.tab.snapshot_pages import SnapshotQuery
from runtime.browser.tab.tab import ResolvedElement, Tab

# A page read while its document is being replaced is read again, at most this many times.
PREPARE_ATTEMPTS = 3
# The visible text kept for blocker detection and the keyword check: enough for a long article.
VISIBLE_TEXT_CHARS = 200_000
# Up to this much innerText, the visible text is the shown text (runtime/browser/scripts/shown.js), which
# leaves out text no one can see (opacity 0, clipped, off the page); a longer page is read as its
# innerText, because walking every text node of a page that size costs most of a second
# (BENCHMARKS.md, "Observe"). PageSigns.visible_text_source says which.
SHOWN_TEXT_LIMIT_CHARS = 100_000
# What a screenshot may be encoded as (CDP's Page.captureScreenshot formats, Playwright MCP's `type`).
IMAGE_TYPES = ("png", "jpeg")

async def _capture(tab: Tab, full_page: bool, secrets: tuple[str, ...] = (), image_type: str = "png", element: ResolvedElement | None = None) -> tuple[bytes, int, int]:
    """The tab (or the box of `element`) as a PNG or JPEG; with `secrets`, the fields and texts
    showing one are covered for the capture (a password field the browser masks itself) and
    uncovered right after."""
    if not secrets:
        return await _capture_unmasked(tab, full_page, image_type, element)
    context_id = await tab.worlds.top_context()
    await tab.worlds.call(context_id, "maskSecrets", list(secrets))
    try:
        return await _capture_unmasked(tab, full_page, image_type, element)
    finally:
        await tab.worlds.call(context_id, "unmaskSecrets")


async def _capture_unmasked(tab: Tab, full_page: bool, image_type: str = "png", element: ResolvedElement | None = None) -> tuple[bytes, int, int]:
    # Faster zlib settings: the PNG is about a quarter larger and costs Chromium about a third
    # less CPU to encode (BENCHMARKS.md, "Suite"); every prepared page takes one.
    params: dict[str, Any] = {"format": image_type, "optimizeForSpeed": True}
    if element is not None:
        params["clip"] = await _element_clip(tab, element)
        params["captureBeyondViewport"] = True
    elif full_page:
        metrics = await tab.cdp.send("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        params["captureBeyondViewport"] = True
    # Raw CDP rather than page.screenshot(): pyppeteer's activates (focuses) the tab first.
    reply = await tab.cdp.send("Page.captureScreenshot", params)
    image = base64.b64decode(reply["data"])
    width, height = struct.unpack(">II", image[16:24]) if image_type == "png" else _jpeg_size(image)  # PNG IHDR
    return image, width, height


async def _element_clip(tab: Tab, element: ResolvedElement) -> dict[str, float]:
    """The element's box in page coordinates (scrolled into view first), for a capture's clip."""
    await tab.cdp.send("DOM.scrollIntoViewIfNeeded", {"objectId": element.object_id})
    quads = (await tab.cdp.send("DOM.getContentQuads", {"objectId": element.object_id})).get("quads") or []
    if not quads:
        raise BrowserActionError(ActionErrorCode.NOT_INTERACTABLE, f"element {element.how} has no box to capture (hidden or not laid out)")
    xs, ys = quads[0][0::2], quads[0][1::2]
    viewport = (await tab.cdp.send("Page.getLayoutMetrics"))["cssVisualViewport"]
    # Quads are in the viewport's coordinates; a clip is in the page's.
    return {"x": min(xs) + viewport["pageX"], "y": min(ys) + viewport["pageY"], "width": max(xs) - min(xs), "height": max(ys) - min(ys), "scale": 1}


def _jpeg_size(image: bytes) -> tuple[int, int]:
    """A JPEG's width and height, from its first start-of-frame segment; (0, 0) without one."""
    at = 2
    while at + 9 < len(image) and image[at] == 0xFF:
        marker, length = image[at + 1], struct.unpack(">H", image[at + 2 : at + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", image[at + 5 : at + 9])
            return width, height
        at += 2 + length
    return 0, 0


async def screenshot(scope: ActionScope, action: Action) -> Result:
    """`browser_screenshot`: the viewport, the whole page (`full_page`) or one element (`target`),
    as `image_type` png or jpeg; every secret the session knows is covered while it is taken."""
    tab = scope.tab
    image_type = str(action.params.get("image_type") or "png")
    if image_type not in IMAGE_TYPES:
        raise invalid(f"params.image_type must be one of {list(IMAGE_TYPES)}, got {image_type!r}")
    element = await tab.resolve(target_param(action.params)) if action.params.get("target") is not None else None
    image, width, height = await _capture(tab, bool(action.params.get("full_page", False)), scope.secret_values(), image_type, element)
    ref = scope.artifacts.put("screenshot", image, f"image/{image_type}")
    return {"artifact": ref.to_dict(), "url": await tab.current_url(), "width": width, "height": height, "image_type": image_type}, ref


async def _readable_text(tab: Tab, html: str, url: str, limit_bytes: int | None = None) -> tuple[str, str, str]:
    """The readable text, where it came from, and a note when the HTML was too large for
    trafilatura (`limit_bytes`): then it is the visible text, read at once."""
    size = len(html.encode("utf-8"))
    if limit_bytes is not None and size > limit_bytes:
        inner = await tab.call_script("innerText")
        note = (f"html {size:,} bytes > readable_html_limit_bytes={limit_bytes:,}: trafilatura not run; "
                "the readable text is the page's visible text")
        return str(inner or "").strip(), "inner_text", note
    text, source = await _extracted_text(tab, html, url)
    return text, source, ""


async def _extracted_text(tab: Tab, html: str, url: str) -> tuple[str, str]:
    extracted = await asyncio.to_thread(readable_text, html, url)
    if extracted:
        return extracted, "trafilatura"
    # trafilatura looks for an article-like main block and returns nothing on small pages
    # (forms, one-line pages); the visible text is then the honest reduction.
    inner = await tab.call_script("innerText")
    return str(inner or "").strip(), "inner_text"


def _inline_or_artifact(scope: ActionScope, text: str) -> tuple[str, ArtifactRef | None]:
    encoded = text.encode("utf-8")
    if len(encoded) <= scope.policy.inline_limit_bytes:
        return text, None
    return "", scope.artifacts.put("text", encoded, "text/plain")


async def readability_extract(scope: ActionScope, action: Action) -> Result:
    tab = scope.tab
    html = await tab.call_script("pageHtml")
    url = await tab.current_url()
    text, source, _ = await _readable_text(tab, str(html or ""), url)
    inline, ref = _inline_or_artifact(scope, text)
    data = {"text": inline, "title": await tab.title(), "url": url, "source": source,
            "artifact": ref.to_dict() if ref else None}
    return data, None


async def get_html(scope: ActionScope, action: Action) -> Result:
    tab = scope.tab
    xpath = str_param(action.params, "xpath", required=False)
    if xpath:
        element = await tab.resolve(Target(xpath=xpath))
        html = await tab.call_script_on(element, "elementHtml")
    else:
        html = await tab.call_script("documentHtml")
    encoded = str(html).encode("utf-8")
    ref = scope.artifacts.put("html", encoded, "text/html")
    return {"artifact": ref.to_dict(), "url": await tab.current_url(), "size": len(encoded)}, ref


async def prepare_page(scope: ActionScope, action: Action) -> Result:
    tab = scope.tab
    for attempt in range(1, PREPARE_ATTEMPTS + 1):
        # A late redirect or a script that swaps the document while it is read: read it again,
        # so every part of the prepared page belongs to the one document it names.
        try:
            prepared = await _prepare_once(scope, tab)
        except Exception as exc:  # noqa: BLE001 - only a context lost to a new document is retried
            if attempt == PREPARE_ATTEMPTS or not document_replaced(exc):
                raise
            continue
        if prepared.document is not None and prepared.document.same_document(tab.document()):
            break
    return prepared.to_dict(), prepared


async def _prepare_once(scope: ActionScope, tab: Tab) -> PreparedPage:
    secrets = scope.secret_values()
    while True:
        document = tab.document()
        # A loaded page is the rule here (a navigation waited for its load), so the load check
        # and the reads (HTML, URL, title, signs and fingerprint, one evaluation) go in one round
        # of concurrent CDP calls on the tab's session, which the renderer answers in order: when
        # the first says the document is complete, the reads see it complete too. With no
        # secret to cover, the capture overlaps them as well; a secret's mask changes the DOM,
        # so the capture then waits for the reads. trafilatura (a worker thread) overlaps it.
        capture = asyncio.ensure_future(_capture(tab, False)) if not secrets else None
        try:
            # A closed shadow root draws what the page shows as much as the light DOM: its
            # judgments read it too (a search costing 0.03 s on a huge page, when it has none).
            await tab.adopt_closed_roots()
            ready, reads = await asyncio.gather(tab.ready_state(), tab.call_script("pageReads", VISIBLE_TEXT_CHARS, SHOWN_TEXT_LIMIT_CHARS))
        except BaseException:
            if capture is not None:
                capture.cancel()
                await asyncio.gather(capture, return_exceptions=True)
            raise
        if ready == "complete":
            break
        # Still loading: what was read is dropped; read again once it is loaded.
        if capture is not None:
            await asyncio.gather(capture, return_exceptions=True)
        await wait_until_loaded(tab)
    html, url, title, signs = str(reads["html"] or ""), str(reads["url"]), reads["title"], reads["signs"]
    # A frame of another origin in the layer over the page is read in its own world.
    signs["cover"] = await read_cover_frames(tab.worlds, tab.cdp, signs.get("cover"), VISIBLE_TEXT_CHARS)
    fingerprint = fingerprint_from(reads["fingerprint"], tab)
    limit = scope.policy.readable_html_limit_bytes
    (png, _, _), (text, source, note) = await asyncio.gather(
        capture if capture is not None else _capture(tab, False, secrets), _readable_text(tab, html, url, limit)
    )
    shot = scope.artifacts.put("screenshot", png, "image/png")
    inline, text_ref = _inline_or_artifact(scope, text)
    html_bytes = html.encode("utf-8")
    html_ref = (
        scope.artifacts.put("html", html_bytes, "text/html")
        if len(html_bytes) > scope.policy.inline_limit_bytes
        else None
    )
    return PreparedPage(
        tab_id=tab.tab_id,
        url=url,
        status=document.status if document.status is not None else tab.last_status,
        title=str(title or ""),
        text=inline,
        text_source=source,
        text_note=note,
        screenshot=shot,
        html_artifact=html_ref,
        text_artifact=text_ref,
        signals=signs_from(signs, document.headers),
        document=document,
        content_digest=fingerprint.digest,
    )


async def xpath_scan(scope: ActionScope, action: Action) -> Result:
    area = action.params.get("scope", "viewport")
    if area not in ("viewport", "document"):
        raise invalid(f"params.scope must be 'viewport' or 'document', got {area!r}")
    limit = int_param(action.params, "limit", 500, minimum=1)
    found = await scope.tab.call_script("xpathScan", area, limit)
    return {"elements": found["elements"], "total": found["total"], "truncated": found["total"] > limit}, None


def signs_from(signs: dict[str, Any], headers: dict[str, str]) -> PageSigns:
    """The signs page_reads.js's pageSigns read, with the response headers the tab kept."""
    return PageSigns(
        headings=tuple(signs["headings"]),
        visible_text=str(signs["text"]),
        visible_text_source=str(signs["source"]),
        has_password_field=bool(signs["password"]),
        has_captcha_widget=bool(signs["captcha"]),
        headers=headers,
        cover=signs.get("cover") or None,
    )


async def read_links(scope: ActionScope, action: Action) -> Result:
    """Every link of the top document for ranking (a fallback search page's results), and with
    `served` the links of the HTML the server sent for its URL."""
    navigation = required_str(action.params, "navigation")
    found = await scope.tab.call_script("readLinks", navigation, bool(action.params.get("served")))
    return dict(found or {}), None


async def _snapshot_page(scope: ActionScope, action: Action, max_chars: int) -> Snapshot:
    """A new snapshot's page, or (with `snapshot_id`, or a `within` ref) another page of the tab's
    latest snapshot, whose refs all stay valid."""
    query = SnapshotQuery.from_params(action.params, scope.policy.snapshot_max_elements)
    of = str_param(action.params, "snapshot_id", required=False)
    within_ref = query.within_ref()
    if of is None and within_ref is not None:
        of = within_ref.snapshot_id
    if of is not None:
        return await scope.tab.show_snapshot(of, query, max_chars)
    return await scope.tab.take_snapshot(query.max_elements, query, max_chars)


async def snapshot(scope: ActionScope, action: Action) -> Result:
    max_chars = int_param(action.params, "max_chars", scope.policy.snapshot_max_chars, minimum=100)
    taken = await _snapshot_page(scope, action, max_chars)
    return {**taken.to_dict(), "rendered": taken.render(max_chars)}, taken


async def observe(scope: ActionScope, action: Action) -> Result:
    tab = scope.tab
    text_chars = int_param(action.params, "text_chars", 2000, minimum=0)
    max_chars = int_param(action.params, "max_chars", scope.policy.snapshot_max_chars, minimum=100)
    url, title, excerpt = await tab.call_script("observeHead", text_chars)
    # The page is fitted to what the rendered observation leaves it (a little spare: the URL or
    # title may change between these reads).
    head_chars = len(Observation.head(tab.tab_id, str(url), str(title), str(excerpt or "")))
    taken = await _snapshot_page(scope, action, max(100, max_chars - head_chars - 100))
    excerpt = str(excerpt or "")
    observation = Observation(tab_id=tab.tab_id, url=taken.url, title=taken.title, text_excerpt=excerpt, snapshot=taken)
    return {**observation.to_dict(), "rendered": observation.render(max_chars)}, observation
