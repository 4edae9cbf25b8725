"""Plain tests: a thumbnail made ahead on the worker thread is the one made at report time."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

from runtime.report.thumbnails import Thumbnails


def _screenshot(path: Path, width: int = 800, height: int = 600) -> Path:
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((40, 40, 400, 200), fill="navy")
    draw.text((60, 260), "Metal 7 quote 1,120.75", fill="black")
    image.save(path, format="PNG")
    return path


def test_a_prefetched_thumbnail_is_the_thumbnail_made_on_demand(tmp_path: Path) -> None:
    shot = _screenshot(tmp_path / "page.png")
    ahead = Thumbnails()
    ahead.prefetch(shot)
    prefetched = ahead.data_uri(tmp_path / "." / "page.png")  # compared resolved
    ahead.close()
    on_demand = Thumbnails()
    made = on_demand.data_uri(shot)
    assert prefetched is not None and prefetched.startswith("data:image/jpeg;base64,")
    assert prefetched == made
    assert ahead.size(shot) == on_demand.size(shot) == (800, 600)


def test_a_prefetched_file_that_is_not_an_image_has_no_thumbnail(tmp_path: Path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a png")
    thumbnails = Thumbnails()
    thumbnails.prefetch(broken)
    assert thumbnails.data_uri(broken) is None
    assert thumbnails.size(broken) is None
    thumbnails.close()


def test_after_close_a_thumbnail_not_prefetched_is_still_made(tmp_path: Path) -> None:
    thumbnails = Thumbnails()
    thumbnails.close()
    shot = _screenshot(tmp_path / "late.png", 1200, 900)
    assert thumbnails.data_uri(shot) == Thumbnails().data_uri(shot)
    assert thumbnails.size(shot) == (1200, 900)
