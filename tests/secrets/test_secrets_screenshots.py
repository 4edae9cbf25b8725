"""Binds features/secrets_screenshots.feature: a real Chromium session on the loopback fixture
page, its screenshots decoded pixel by pixel."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pytest_bdd import given, scenarios, then, when

from runtime.artifacts import ArtifactStore
from runtime.browser import Browser, BrowserSession, open_session
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.site_server import FixtureSite

scenarios("secrets_screenshots.feature")

TOKEN = "Zq8-LIVE-4f9a2c71e0"
# The boxes of the token field's inner text area and of the echoed token, in CSS pixels.
_BOXES = """(() => {
  const box = (r, inset) => ({x: r.left + inset, y: r.top + inset, w: r.width - 2 * inset, h: r.height - 2 * inset});
  const echo = document.createRange();
  echo.selectNodeContents(document.getElementById('echo'));
  return {field: box(document.getElementById('token').getBoundingClientRect(), 3), echo: box(echo.getBoundingClientRect(), 1), dpr: devicePixelRatio};
})()"""


@pytest.fixture
def shots(loop_thread: LoopThread, shared_browser: Browser, tmp_path: Path) -> Iterator[dict[str, Any]]:
    session = loop_thread.run(open_session(shared_browser, artifacts=ArtifactStore(tmp_path / "run")))
    state: dict[str, Any] = {"session": session}
    yield state
    loop_thread.run(session.stop())


def _capture(loop_thread: LoopThread, session: BrowserSession) -> Image.Image:
    result = loop_thread.run(session.screenshot())
    assert result.ok, result.error
    return Image.open(io.BytesIO(Path(result.data["artifact"]["path"]).read_bytes())).convert("RGB")


def _pixels(image: Image.Image, box: dict[str, float], dpr: float) -> list[tuple[int, int, int]]:
    left, top = int(box["x"] * dpr) + 1, int(box["y"] * dpr) + 1
    right, bottom = int((box["x"] + box["w"]) * dpr) - 1, int((box["y"] + box["h"]) * dpr) - 1
    assert right > left and bottom > top, box
    crop = image.crop((left, top, right, bottom))
    return [crop.getpixel((x, y)) for y in range(crop.height) for x in range(crop.width)]


@given('a browser session showing "/secrets.html" with the token typed into the plain token field')
def typed(shots: dict[str, Any], loop_thread: LoopThread, site: FixtureSite) -> None:
    session: BrowserSession = shots["session"]
    assert loop_thread.run(session.open_url(site.url("/secrets.html"))).ok
    result = loop_thread.run(session.type_text({"css": "#token"}, TOKEN))
    assert result.ok, result.error
    # Focus elsewhere, so no caret blinks inside the field.
    assert loop_thread.run(session.evaluate("document.activeElement.blur(); return true;")).ok
    shots["boxes"] = loop_thread.run(session.tab().evaluate(_BOXES))


@when("the session knows the token as a secret and takes a screenshot")
def masked(shots: dict[str, Any], loop_thread: LoopThread) -> None:
    session: BrowserSession = shots["session"]
    session.secret_values = lambda: (TOKEN,)
    shots["masked"] = _capture(loop_thread, session)


@then("every pixel inside the token field and inside the echoed token is black")
def all_black(shots: dict[str, Any]) -> None:
    boxes = shots["boxes"]
    for name in ("field", "echo"):
        pixels = _pixels(shots["masked"], boxes[name], boxes["dpr"])
        assert set(pixels) == {(0, 0, 0)}, (name, sorted(set(pixels))[:5])


@then("the page has no cover left over, and its own element marked like a cover is still there")
def no_cover(shots: dict[str, Any], loop_thread: LoopThread) -> None:
    session: BrowserSession = shots["session"]
    marked = "Array.from(document.querySelectorAll('[data-verity-secret-mask]')).map(el => el.id)"
    assert loop_thread.run(session.tab().evaluate(marked)) == ["notice"]
    assert loop_thread.run(session.tab().evaluate("document.getElementById('token').value")) == TOKEN


@then("a screenshot by a session that does not know the token shows non-black pixels inside the token field")
def unmasked(shots: dict[str, Any], loop_thread: LoopThread) -> None:
    session: BrowserSession = shots["session"]
    session.secret_values = tuple
    boxes = shots["boxes"]
    pixels = _pixels(_capture(loop_thread, session), boxes["field"], boxes["dpr"])
    assert any(pixel != (0, 0, 0) for pixel in pixels)
    assert len({pixel for pixel in pixels}) > 2  # the typed text: glyphs on the field's background
