"""What a "the page shows this text" check costs on a huge page: `innerText` against the shown-text
walk of runtime/browser/scripts/shown.js, and the check itself for a text the page has and one it lacks.

    uv run python tools/bench_shown_text.py --page /usr/share/doc/python3.11/html/genindex-all.html \
        [--present zipimporter] [--rounds 5]

The page is served on loopback and opened in a real session; each figure is the median of
`--rounds` evaluations in the driver's isolated world, timed around the CDP call.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from runtime.artifacts import ArtifactStore  # noqa: E402
from runtime.browser import launch_browser, open_session  # noqa: E402
from runtime.browser.scripts.loader import NAMESPACE  # noqa: E402
from runtime.demo.loopback import LoopbackSite  # noqa: E402


async def measure(url: str, present: str, rounds: int) -> None:
    browser = await launch_browser()
    try:
        session = await open_session(browser, artifacts=ArtifactStore(Path(tempfile.mkdtemp())))
        opened = await session.open_url(url, timeout_ms=120_000)
        if not opened.ok:
            raise SystemExit(f"could not open {url}: {opened.error}")
        tab = session._tabs.tab()  # noqa: SLF001 - a benchmark reads the tab directly
        expressions = {
            "innerText": "document.body.innerText.length",
            "shown-text walk": f"{NAMESPACE}.shownText().length",
            f"check, text present ({present!r})": f"{NAMESPACE}.textShown({json.dumps(present)}).shown",
            "check, text absent": f"{NAMESPACE}.textShown('no such words on this page').shown",
        }
        for label, expression in expressions.items():
            seconds, value = [], None
            for _ in range(rounds):
                started = time.perf_counter()
                value = await tab.evaluate(expression)
                seconds.append(time.perf_counter() - started)
            print(f"{label:40} median {statistics.median(seconds):.3f} s   (answer {value})")
    finally:
        await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page", type=Path, required=True)
    parser.add_argument("--present", default="zipimporter", help="a text the page shows")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="verity-bench-shown-"))
    shutil.copy(args.page, root / "page.html")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    with LoopbackSite(handler=handler) as site:  # type: ignore[arg-type]
        asyncio.run(measure(f"http://127.0.0.1:{site.port}/page.html", args.present, args.rounds))


if __name__ == "__main__":
    main()
