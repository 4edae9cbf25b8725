"""Binds features/report_thumbnails.feature: the report shows the thumbnail kept beside each
screenshot (runtime/artifacts/thumbnails.py), and makes one with Pillow for a screenshot that has
none (runtime/report/thumbnails.py). Run directories laid out here; real runs keep their
thumbnails in the demo's report scenario (features/report_html.feature) and the secrets'
screenshot scenario (features/secrets_screenshots.feature)."""

from __future__ import annotations

import base64
import html
import io
import json
import re
from pathlib import Path

from PIL import Image, ImageDraw
from pytest_bdd import given, scenarios, then, when

from runtime.artifacts.thumbnails import THUMBNAIL_WIDTH, keep_thumbnail, thumbnail_path
from runtime.report import write_report
from runtime.report.thumbnails import make_thumbnail

scenarios("report_thumbnails.feature")

# One thumbnail link of report.html: where it leads, the image's source, its label.
_LINK = re.compile(r'<a class="screenshot" href="([^"]+)"[^>]*title="open full size \((\d+)×(\d+)\)"><img class="thumbnail" src="([^"]+)"')


def _screenshot(path: Path, width: int, height: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((40, 40, 400, 200), fill="navy")
    draw.text((60, 260), "Metal 7 quote 1,120.75", fill="black")
    image.save(path, format="PNG")
    return path


def _run_dir(tmp_path: Path, screenshots: list[str]) -> Path:
    run_dir = tmp_path / "run"
    run_dir.mkdir(exist_ok=True)
    records = [{"index": i, "state_id": f"page-{i}", "kind": "navigate", "outcome": "ok", "ok": True, "screenshot": shot}
               for i, shot in enumerate(screenshots, 1)]
    (run_dir / "executions.json").write_text(json.dumps(records), encoding="utf-8")
    return run_dir


def _a_jpeg(colour: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (THUMBNAIL_WIDTH, 270), colour).save(buffer, format="JPEG")
    return buffer.getvalue()


@given("a run directory whose screenshot has a thumbnail kept beside it", target_fixture="run_dir")
def _with_kept(tmp_path: Path) -> Path:
    run_dir = _run_dir(tmp_path, ["artifacts/screenshot/aa11.png"])
    shot = _screenshot(run_dir / "artifacts/screenshot/aa11.png", 800, 600)
    # A thumbnail Pillow would never make of that screenshot: only reading the kept file shows it.
    keep_thumbnail(shot, _a_jpeg("orange"))
    assert thumbnail_path(shot) == run_dir / "artifacts/thumbnail/aa11.jpg"
    return run_dir


@given("a run directory with a screenshot that has no thumbnail and one whose kept thumbnail is not a JPEG", target_fixture="run_dir")
def _without_usable(tmp_path: Path) -> Path:
    run_dir = _run_dir(tmp_path, ["artifacts/screenshot/bb22.png", "artifacts/screenshot/cc33.png"])
    _screenshot(run_dir / "artifacts/screenshot/bb22.png", 800, 600)
    keep_thumbnail(_screenshot(run_dir / "artifacts/screenshot/cc33.png", 1280, 720), b"<svg onload=alert(1)>")
    return run_dir


@given("a run directory whose executions.json names a screenshot at its top, with a thumbnail where one would be kept outside it", target_fixture="run_dir")
def _kept_outside(tmp_path: Path) -> Path:
    run_dir = _run_dir(tmp_path, ["dd44.png"])
    shot = _screenshot(run_dir / "dd44.png", 800, 600)
    outside = keep_thumbnail(shot, _a_jpeg("orange"))
    assert run_dir not in outside.parents, outside
    return run_dir


@when("its report is written", target_fixture="links")
def _written(run_dir: Path) -> list[tuple[str, tuple[int, int], str]]:
    page = write_report(run_dir).read_text(encoding="utf-8")
    return [(html.unescape(href), (int(w), int(h)), html.unescape(src)) for href, w, h, src in _LINK.findall(page)]


@then("the state's thumbnail is the kept file, labelled with the screenshot's size")
def _kept_shown(links: list[tuple[str, tuple[int, int], str]], run_dir: Path) -> None:
    kept = (run_dir / "artifacts/thumbnail/aa11.jpg").read_bytes()
    assert links == [("artifacts/screenshot/aa11.png", (800, 600), "data:image/jpeg;base64," + base64.b64encode(kept).decode())]


@then("both thumbnails are the ones Pillow makes of those screenshots, labelled with their sizes")
def _made_here(links: list[tuple[str, tuple[int, int], str]], run_dir: Path) -> None:
    expected = [(name, make_thumbnail(run_dir / name, THUMBNAIL_WIDTH)) for name in ("artifacts/screenshot/bb22.png", "artifacts/screenshot/cc33.png")]
    assert all(uri is not None and uri.startswith("data:image/jpeg;base64,") for _, (uri, _) in expected)
    assert links == [(name, size, uri) for name, (uri, size) in expected]


@then("the state's thumbnail is the one Pillow makes of that screenshot")
def _outside_not_read(links: list[tuple[str, tuple[int, int], str]], run_dir: Path) -> None:
    uri, size = make_thumbnail(run_dir / "dd44.png", THUMBNAIL_WIDTH)
    assert links == [("dd44.png", size, uri)]
