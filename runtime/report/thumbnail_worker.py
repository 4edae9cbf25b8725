"""The thumbnail worker process (`python -m runtime.report.thumbnail_worker`, kept by the
`WorkerPool` in runtime/report/thumbnails.py): it makes the thumbnails a run asks for ahead, so
their decoding and resizing never hold the run's GIL (REPORT-008)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from runtime.report.thumbnails import make_thumbnail
from runtime.worker_processes import serve


def _prepared() -> Callable[[dict[str, Any]], list[Any]]:
    """The handler, with Pillow imported before the first request."""
    from PIL import Image  # noqa: F401 - imported once, here, rather than at the first thumbnail

    return lambda request: list(make_thumbnail(Path(request["path"]), int(request["width"])))


if __name__ == "__main__":
    serve(_prepared)
