"""What finding the layer over a page costs (runtime/browser/scripts/covering_layer.js): the signs
a validation reads (`pageSigns`, which now includes the layer) and an extract's one-evaluation
read (`readFields` with its fingerprint and signs), on a huge page, with and without a fixed
full-window layer over it. Run it on this branch and on a checkout without the layer to compare.

    uv run python tools/bench_covering_layer.py --page /usr/share/doc/python3.11/html/genindex-all.html [--rounds 15]

The page is served on loopback and opened in a real session; each figure is the median of
`--rounds` evaluations in the driver's isolated world, timed around the CDP call.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
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

LAYER = (
    "<div id=gate style='position:fixed;inset:0;z-index:50;background:rgba(255,255,255,.97)'>"
    "<h2>Sign in to keep reading</h2><input type=password></div></body>"
)
READ = f"{NAMESPACE}.readFields({{}}, true, 'not-this-digest', [4000, 20000])"
SIGNS = f"{NAMESPACE}.pageSigns(4000, 20000)"
LAYER_ONLY = f"({{cover: {NAMESPACE}.coveringLayer(4000)}})"


async def measure(base: str, rounds: int) -> None:
    browser = await launch_browser()
    try:
        session = await open_session(browser, artifacts=ArtifactStore(Path(tempfile.mkdtemp())))
        for name in ("page.html", "layered.html"):
            opened = await session.open_url(f"{base}/{name}", timeout_ms=120_000)
            if not opened.ok:
                raise SystemExit(f"could not open {name}: {opened.error}")
            tab = session._tabs.tab()  # noqa: SLF001 - a benchmark reads the tab directly
            reads = [("pageSigns", SIGNS), ("readFields + signs", READ)]
            if await tab.evaluate(f"typeof {NAMESPACE}.coveringLayer === 'function'"):
                reads.append(("coveringLayer alone", LAYER_ONLY))
            for label, expression in reads:
                seconds, cover = [], None
                for _ in range(rounds):
                    started = time.perf_counter()
                    answer = await tab.evaluate(f"(() => {{ const r = {expression}; return r.cover === undefined ? 'no cover read' : JSON.stringify(r.cover).slice(0, 60); }})()")
                    seconds.append(time.perf_counter() - started)
                    cover = answer
                print(f"{name:13} {label:20} median {statistics.median(seconds) * 1000:7.1f} ms   cover: {cover}")
    finally:
        await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="verity-bench-cover-"))
    shutil.copy(args.page, root / "page.html")
    text = args.page.read_text(encoding="utf-8", errors="replace")
    (root / "layered.html").write_text(text.replace("</body>", LAYER, 1), encoding="utf-8")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    with LoopbackSite(handler=handler) as site:  # type: ignore[arg-type]
        asyncio.run(measure(f"http://127.0.0.1:{site.port}", args.rounds))


if __name__ == "__main__":
    main()
