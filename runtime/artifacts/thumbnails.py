"""A stored screenshot's thumbnail: how large it is and where it is kept.

The report shows every screenshot a run took as a small JPEG inside report.html. Chromium makes
that JPEG when it takes the screenshot (runtime/browser/action_handlers/read.py), under the same
cover of secrets, and it is kept beside the screenshot, named after it:

    artifacts/screenshot/0bf53881fe99739c.png    the screenshot (content-addressed)
    artifacts/thumbnail/0bf53881fe99739c.jpg     its thumbnail, named after the screenshot

so the report finds it from the path executions.json names, and a run needs no image library and
no process of its own for it. It is not an artifact of its own (no id, no event): only the report
reads it, and a screenshot without one is thumbnailed by the report (runtime/report/thumbnails.py).
"""

from __future__ import annotations

import struct
from pathlib import Path

THUMBNAIL_WIDTH = 360
THUMBNAIL_QUALITY = 72
THUMBNAIL_KIND = "thumbnail"
# Thumbnails of viewport-sized screenshots are a few KB; a larger file is not one of ours.
THUMBNAIL_MAX_BYTES = 512 * 1024

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_JPEG_START = b"\xff\xd8\xff"


def thumbnail_path(image: Path | str) -> Path:
    """Where the thumbnail of the stored image at `image` is kept (`.../thumbnail/<its name>.jpg`)."""
    image = Path(image)
    return image.parent.parent / THUMBNAIL_KIND / f"{image.stem}.jpg"


def keep_thumbnail(image: Path | str, jpeg: bytes) -> Path:
    """Write `jpeg`, the thumbnail of the stored image at `image`, where `thumbnail_path` finds it.
    The same image stored twice is the same picture: a thumbnail already kept stays."""
    path = thumbnail_path(image)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")  # a reader never sees half a file
        partial.write_bytes(jpeg)
        partial.replace(path)
    return path


def kept_thumbnail(image: Path) -> tuple[bytes, tuple[int, int]] | None:
    """The thumbnail kept for the PNG screenshot at `image`, with the screenshot's own width and
    height (from its header, without decoding it); None when there is none, or either file is
    not what it should be."""
    try:
        with image.open("rb") as file:
            head = file.read(24)
        path = thumbnail_path(image)
        if path.stat().st_size > THUMBNAIL_MAX_BYTES:
            return None
        jpeg = path.read_bytes()
    except OSError:
        return None
    if len(head) < 24 or not head.startswith(_PNG_SIGNATURE) or head[12:16] != b"IHDR" or not jpeg.startswith(_JPEG_START):
        return None
    width, height = struct.unpack(">II", head[16:24])
    return jpeg, (width, height)
