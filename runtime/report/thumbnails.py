"""Screenshot thumbnails as data: URIs, so the report shows every page from the HTML file alone.

Screenshots are full-size PNGs (a few hundred KB each); a downscaled JPEG is a few KB and keeps
a report of a long run small. The same screenshot shown by several states is encoded once.
"""

from __future__ import annotations

import base64
import io
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

THUMBNAIL_WIDTH = 360
JPEG_QUALITY = 72
# Pillow's resize reduces by whole factors with box averages while the image is more than this
# many times the target size (1.0, the fastest, reduces whenever it can).
REDUCING_GAP = 1.0
# A run's screenshots are viewport-sized; anything far larger is not one of ours.
MAX_SOURCE_PIXELS = 40_000_000


class Thumbnails:
    """Thumbnail data: URIs by screenshot path; None for a file that is not a readable image.

    `prefetch` starts a screenshot's thumbnail on a worker thread as soon as the file exists (a run
    does it while it waits on the browser), so writing the report at the run's end only collects
    them; `data_uri` makes any thumbnail nobody prefetched itself. Paths are compared resolved."""

    def __init__(self, width: int = THUMBNAIL_WIDTH) -> None:
        self.width = width
        self._made: dict[Path, str | None] = {}
        self._sizes: dict[Path, tuple[int, int]] = {}
        self._pending: dict[Path, Future[tuple[str | None, tuple[int, int] | None]]] = {}
        self._lock = threading.Lock()
        self._worker: ThreadPoolExecutor | None = None

    def prefetch(self, path: Path) -> None:
        """Start making `path`'s thumbnail on the worker thread (one thread: the run's own work
        and the browser keep the other cores)."""
        path = path.resolve()
        with self._lock:
            if path in self._made or path in self._pending:
                return
            if self._worker is None:
                self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="verity-thumbnails")
            self._pending[path] = self._worker.submit(self._make, path)

    def close(self) -> None:
        """Stop the worker (thumbnails not yet started are dropped; `data_uri` makes them)."""
        with self._lock:
            worker, self._worker = self._worker, None
        if worker is not None:
            worker.shutdown(wait=False, cancel_futures=True)

    def data_uri(self, path: Path) -> str | None:
        path = path.resolve()
        with self._lock:
            pending = self._pending.pop(path, None)
        if pending is not None and not pending.cancelled():
            self._keep(path, *pending.result())
        if path not in self._made:
            self._keep(path, *self._make(path))
        return self._made[path]

    def size(self, path: Path) -> tuple[int, int] | None:
        """The full-size screenshot's width and height, once `data_uri` read it."""
        return self._sizes.get(path.resolve())

    def _keep(self, path: Path, uri: str | None, size: tuple[int, int] | None) -> None:
        self._made[path] = uri
        if size is not None:
            self._sizes[path] = size

    def _make(self, path: Path) -> tuple[str | None, tuple[int, int] | None]:
        """(data: URI or None, full size or None); runs on any thread and touches no state."""
        # Imported here, so on the worker thread of a run's first screenshot rather than with
        # the executor, before the run starts.
        from PIL import Image, UnidentifiedImageError

        size: tuple[int, int] | None = None
        try:
            with Image.open(path) as image:
                size = image.size
                if image.width * image.height > MAX_SOURCE_PIXELS:
                    return None, size
                image.draft("RGB", (self.width, self.width))  # JPEG sources decode at a reduced size
                # Chromium's screenshots are RGB already: converting would only copy them.
                small = image if image.mode == "RGB" else image.convert("RGB")
                if small.width > self.width:
                    height = max(1, round(small.height * self.width / small.width))
                    # Reduced by whole-factor box averages first (800 px to 400), then bilinear to
                    # the width: half the CPU of a Lanczos finish, and on 40 screenshots a mean
                    # difference from it of 0.24/255 (BENCHMARKS.md, "Runtime overhead").
                    small = small.resize((self.width, height), Image.Resampling.BILINEAR, reducing_gap=REDUCING_GAP)
                buffer = io.BytesIO()
                small.save(buffer, format="JPEG", quality=JPEG_QUALITY, optimize=True)
        except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
            return None, size
        return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii"), size
