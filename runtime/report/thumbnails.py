"""Screenshot thumbnails as data: URIs, so the report shows every page from the HTML file alone.

Screenshots are full-size PNGs (a few hundred KB each); a downscaled JPEG is a few KB and keeps
a report of a long run small. The same screenshot shown by several states is encoded once.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

from PIL import Image, UnidentifiedImageError

THUMBNAIL_WIDTH = 360
JPEG_QUALITY = 72
# A run's screenshots are viewport-sized; anything far larger is not one of ours.
MAX_SOURCE_PIXELS = 40_000_000


class Thumbnails:
    """Thumbnail data: URIs by screenshot path; None for a file that is not a readable image."""

    def __init__(self, width: int = THUMBNAIL_WIDTH) -> None:
        self.width = width
        self._made: dict[Path, str | None] = {}
        self._sizes: dict[Path, tuple[int, int]] = {}

    def data_uri(self, path: Path) -> str | None:
        if path not in self._made:
            self._made[path] = self._make(path)
        return self._made[path]

    def size(self, path: Path) -> tuple[int, int] | None:
        """The full-size screenshot's width and height, once `data_uri` read it."""
        return self._sizes.get(path)

    def _make(self, path: Path) -> str | None:
        try:
            with Image.open(path) as image:
                self._sizes[path] = image.size
                if image.width * image.height > MAX_SOURCE_PIXELS:
                    return None
                image.draft("RGB", (self.width, self.width))  # JPEG sources decode at a reduced size
                small = image.convert("RGB")
                if small.width > self.width:
                    height = max(1, round(small.height * self.width / small.width))
                    small = small.resize((self.width, height), Image.Resampling.LANCZOS)
                buffer = io.BytesIO()
                small.save(buffer, format="JPEG", quality=JPEG_QUALITY, optimize=True)
        except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
            return None
        return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
