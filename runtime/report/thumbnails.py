"""Screenshot thumbnails as data: URIs, so the report shows every page from the HTML file alone.

Screenshots are full-size PNGs (a few hundred KB each); a downscaled JPEG is a few KB and keeps
a report of a long run small. The same screenshot shown by several states is encoded once.

A run prefetches each screenshot's thumbnail as the file is stored, and the thumbnail is made by
a worker process (`python -m runtime.report.thumbnail_worker`, runtime/worker_processes.py): decoding
a PNG and resizing it holds the GIL for milliseconds at a time, and on a thread of the run's own
process that time was taken from the event loop answering Chromium (BENCHMARKS.md, "Runtime
overhead"). A thumbnail nobody prefetched (`verity report`, or a worker that could not start) is
made in this process.
"""

from __future__ import annotations

import base64
import io
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from runtime.worker_processes import WorkerPool

THUMBNAIL_WIDTH = 360
JPEG_QUALITY = 72
# Pillow's resize reduces by whole factors with box averages while the image is more than this
# many times the target size (1.0, the fastest, reduces whenever it can).
REDUCING_GAP = 1.0
# A run's screenshots are viewport-sized; anything far larger is not one of ours.
MAX_SOURCE_PIXELS = 40_000_000
# Runs at once in one process (`verity serve`) share these; more waits for one to be free.
MOST_WORKERS = 2

Made = tuple[str | None, tuple[int, int] | None]


class Thumbnails:
    """Thumbnail data: URIs by screenshot path; None for a file that is not a readable image.

    `prefetch` has a worker process make a screenshot's thumbnail as soon as the file exists (a
    run does it while it waits on the browser), so writing the report at the run's end only
    collects them; `data_uri` makes any thumbnail nobody prefetched itself, in this process.
    Paths are compared resolved."""

    def __init__(self, width: int = THUMBNAIL_WIDTH) -> None:
        self.width = width
        self._made: dict[Path, str | None] = {}
        self._sizes: dict[Path, tuple[int, int]] = {}
        self._pending: dict[Path, Future[Made]] = {}
        self._lock = threading.Lock()
        self._worker: ThreadPoolExecutor | None = None

    def prefetch(self, path: Path) -> None:
        """Start making `path`'s thumbnail: a thread of ours hands it to a worker process and
        waits for it (one thread: the run's own work and the browser keep the other cores)."""
        path = path.resolve()
        with self._lock:
            if path in self._made or path in self._pending:
                return
            if self._worker is None:
                self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="verity-thumbnails")
            self._pending[path] = self._worker.submit(self._make_by_worker, path)

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

    def _make(self, path: Path) -> Made:
        return make_thumbnail(path, self.width)

    def _make_by_worker(self, path: Path) -> Made:
        """`_make` done by a worker process; by this thread when no worker can do it."""
        reply = _WORKERS.ask({"path": str(path), "width": self.width})
        if reply is None or "error" in reply:
            return self._make(path)
        uri, size = reply["result"]
        return uri, (int(size[0]), int(size[1])) if size else None


# The worker's module is not this one: the package imports this module, so `python -m` of it would
# run it a second time, as __main__ beside runtime.report.thumbnails.
_WORKERS = WorkerPool("runtime.report.thumbnail_worker", most=MOST_WORKERS, what="thumbnail")


def make_thumbnail(path: Path, width: int) -> Made:
    """(data: URI or None, full size or None) of the image at `path`, `width` wide at most."""
    # Imported here: a run's process never needs Pillow when its worker makes its thumbnails.
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
            small.save(buffer, format="JPEG", quality=JPEG_QUALITY, optimize=True)
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
        return None, size
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii"), size
