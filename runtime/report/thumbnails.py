"""Screenshot thumbnails as data: URIs, so the report shows every page from the HTML file alone.

Screenshots are full-size PNGs (a few hundred KB each); a downscaled JPEG is a few KB and keeps
a report of a long run small. The same screenshot shown by several states is encoded once.

They are made by Pillow in the process writing the report: a run drafts its report on a worker
thread once its last state is recorded (runtime/execute/record/run_report.py), so a run starts no
process for them and takes no second capture of a page. Two designs before this one cost more:
a worker process per run (0.13 CPU s of start-up in every `verity run`), and Chromium taking a
scaled JPEG with every prepared page's screenshot (it doubled the wall time of preparing a page:
BENCHMARKS.md, "Run start").
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

THUMBNAIL_WIDTH = 360
THUMBNAIL_QUALITY = 72
# Pillow's resize reduces by whole factors with box averages while the image is more than this
# many times the target size (1.0, the fastest, reduces whenever it can).
REDUCING_GAP = 1.0
# A run's screenshots are viewport-sized; anything far larger is not one of ours.
MAX_SOURCE_PIXELS = 40_000_000

Made = tuple[str | None, tuple[int, int] | None]


class Thumbnails:
    """Thumbnail data: URIs by screenshot path; None for a file that is not a readable image.
    Paths are compared resolved."""

    def __init__(self) -> None:
        self._made: dict[Path, str | None] = {}
        self._sizes: dict[Path, tuple[int, int]] = {}

    def data_uri(self, path: Path) -> str | None:
        """The thumbnail of the screenshot at `path`, made once."""
        path = path.resolve()
        if path not in self._made:
            uri, size = make_thumbnail(path, THUMBNAIL_WIDTH)
            self._made[path] = uri
            if size is not None:
                self._sizes[path] = size
        return self._made[path]

    def size(self, path: Path) -> tuple[int, int] | None:
        """The full-size screenshot's width and height, once `data_uri` read it."""
        return self._sizes.get(path.resolve())


def _data_uri(jpeg: bytes) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")


def make_thumbnail(path: Path, width: int) -> Made:
    """(data: URI or None, full size or None) of the image at `path`, `width` wide at most."""
    # Imported here, at the first thumbnail: a process that writes no report never needs Pillow.
    from PIL import Image, UnidentifiedImageError

    size: tuple[int, int] | None = None
    try:
        with Image.open(path) as image:
            size = image.size
            if image.width * image.height > MAX_SOURCE_PIXELS:
                return None, size
            image.draft("RGB", (width, width))  # JPEG sources decode at a reduced size
            # Chromium's screenshots are RGB already: converting would only copy them.
            small = image if image.mode == "RGB" else image.convert("RGB")
            if small.width > width:
                height = max(1, round(small.height * width / small.width))
                # Reduced by whole-factor box averages first (800 px to 400), then bilinear to
                # the width: half the CPU of a Lanczos finish, and on 40 screenshots a mean
                # difference from it of 0.24/255 (BENCHMARKS.md, "Runtime overhead").
                small = small.resize((width, height), Image.Resampling.BILINEAR, reducing_gap=REDUCING_GAP)
            buffer = io.BytesIO()
            small.save(buffer, format="JPEG", quality=THUMBNAIL_QUALITY, optimize=True)
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
        return None, size
    return _data_uri(buffer.getvalue()), size
