"""pyppeteer without its Chromium downloader: Verity never downloads a browser.

pyppeteer's package imports `pyppeteer.chromium_downloader` whatever part of it is used, and that
module imports urllib3, certifi, tqdm and zipfile to fetch a Chromium build from the internet:
about 0.04 s of CPU in every process that drives a browser (`verity run`, the server, each test
worker), for code Verity must never run (it starts Debian's Chromium, `chromium_start.py`). This
module stands in for it: asked for a browser, it refuses, naming what to do instead.

`install()` puts it in place before pyppeteer is first imported (`runtime/browser/__init__.py`);
a process that imported pyppeteer earlier keeps the real module.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

_REAL_NAME = "pyppeteer.chromium_downloader"


class DownloadRefused(RuntimeError):
    """pyppeteer was asked for a Chromium of its own."""


def _refuse(*_: object, **__: object) -> NoReturn:
    raise DownloadRefused(
        "Verity never downloads Chromium: install Debian's chromium (or chromium-headless-shell), "
        "set VERITY_CHROME to a Chromium binary, or pass an executable path"
    )


def current_platform() -> str:
    """pyppeteer's short name of the platform (it asks, to add Windows-only flags)."""
    if sys.platform.startswith("linux"):
        return "linux"
    if sys.platform.startswith("darwin"):
        return "mac"
    return "win64" if sys.maxsize > 2**32 else "win32"


def check_chromium() -> bool:
    """Whether pyppeteer's own Chromium is there: never, so every launch names its executable."""
    return False


def chromium_executable() -> Path:
    _refuse()


def download_chromium() -> None:
    _refuse()


def install() -> None:
    """Stand in for pyppeteer's downloader, unless pyppeteer's was imported already."""
    sys.modules.setdefault(_REAL_NAME, sys.modules[__name__])
