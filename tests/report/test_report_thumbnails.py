"""Binds features/report_thumbnails.feature: the report's thumbnails, made by Pillow in the process
writing it (runtime/report/thumbnails.py). The run directory is laid out here; real runs' reports
show theirs in the demo's report scenario (features/report_html.feature)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from PIL import Image, ImageDraw
from pytest_bdd import given, scenarios, then, when

from runtime.report import write_report
from runtime.report.thumbnails import THUMBNAIL_WIDTH, make_thumbnail

scenarios("report_thumbnails.feature")

# One thumbnail link of report.html: where it leads, the image's size in its label, its source.
_LINK = re.compile(r'<a class="screenshot" href="([^"]+)"[^>]*title="open full size \((\d+)×(\d+)\)"><img class="thumbnail" src="([^"]+)"')
SHOWN = ["artifacts/screenshot/aa11.png", "artifacts/screenshot/bb22.png", "artifacts/screenshot/aa11.png", "artifacts/screenshot/cc33.png"]


def _screenshot(path: Path, width: int, height: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((40, 40, 400, 200), fill="navy")
    draw.text((60, 260), "Metal 7 quote 1,120.75", fill="black")
    image.save(path, format="PNG")


@given("a run directory whose states show two screenshots, one of them twice, and a file that is not an image", target_fixture="run_dir")
def _run_dir(tmp_path: Path) -> Path:
    run_dir = tmp_path / "run"
    _screenshot(run_dir / SHOWN[0], 800, 600)
    _screenshot(run_dir / SHOWN[1], 1280, 720)
    (run_dir / SHOWN[3]).write_bytes(b"<svg onload=alert(1)>")
    records = [{"index": i, "state_id": f"page-{i}", "kind": "navigate", "outcome": "ok", "ok": True, "screenshot": shot}
               for i, shot in enumerate(SHOWN, 1)]
    (run_dir / "executions.json").write_text(json.dumps(records), encoding="utf-8")
    return run_dir


@when("its report is written", target_fixture="page")
def _written(run_dir: Path) -> str:
    return write_report(run_dir).read_text(encoding="utf-8")


@then("each state's thumbnail is the one Pillow makes of its screenshot, labelled with its size")
def _made_here(page: str, run_dir: Path) -> None:
    links = [(html.unescape(href), (int(w), int(h)), html.unescape(src)) for href, w, h, src in _LINK.findall(page)]
    expected = []
    for name in SHOWN[:3]:
        uri, size = make_thumbnail(run_dir / name, THUMBNAIL_WIDTH)
        assert uri is not None and uri.startswith("data:image/jpeg;base64,") and size is not None
        expected.append((name, size, uri))
    assert links == expected
    assert [size for _, size, _ in links] == [(800, 600), (1280, 720), (800, 600)]


@then("the state whose screenshot is not an image shows no thumbnail")
def _none_for_junk(page: str) -> None:
    assert page.count('<img class="thumbnail"') == 3
    assert "cc33.png" not in "".join(href for href, *_ in _LINK.findall(page))
