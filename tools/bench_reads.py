"""What one read costs the first time in a document's isolated world: extract's field reader
written into an expression with the fields (a new source text on every page, compiled each time,
as it was sent before 2026-11-27) against the same reader called with the fields as arguments
(one source text, `Runtime.callFunctionOn`, as it is sent now), and a one-line read for scale.

    uv run python tools/bench_reads.py [--pages 20] [--rounds 3]

Each page is loaded and screenshotted, its isolated world made, then the three reads go in an
order that alternates from page to page; medians of every page's time per read are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tools"))

from bench_runtime import bench_bed  # noqa: E402

from runtime.browser.action_handlers.field_reads import _READ_FIELDS  # noqa: E402
from runtime.browser.vocabulary.actions import Target  # noqa: E402
from runtime.browser.tab.locate import chosen_index, locate_spec  # noqa: E402

ONE_LINE = "document.querySelector('[data-field=price]').innerText"


async def main(pages: int, rounds: int) -> None:
    async with bench_bed(pages) as (_tmp, site, _recipe, browser):
        context = await browser.raw.createIncognitoBrowserContext()
        page = await context.newPage()
        cdp = await page.target.createCDPSession()
        spec = locate_spec(Target(css="[data-field=price]"))
        times: dict[str, list[float]] = {"written into an expression": [], "called with arguments": [], "one-line read": []}
        for number in range(rounds):
            for i in range(1, pages + 1):
                await page.goto(f"{site}/quote-{i}.html", {"waitUntil": "load"})
                await cdp.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
                world = await cdp.send("Page.createIsolatedWorld", {"frameId": page.mainFrame._id, "worldName": "bench"})
                context_id = world["executionContextId"]
                # A field name of its own on every page, as a recipe's fields differ from step to step.
                fields = {f"price_{number}_{i}": {"spec": spec, "index": chosen_index(spec), "how": {"trim": True}}}
                requests = {
                    "written into an expression": ("Runtime.evaluate", {"expression": f"({_READ_FIELDS})({json.dumps(fields)}, true)"}),
                    "called with arguments": ("Runtime.callFunctionOn", {"functionDeclaration": _READ_FIELDS, "arguments": [{"value": fields}, {"value": True}]}),
                    "one-line read": ("Runtime.evaluate", {"expression": ONE_LINE}),
                }
                order = list(requests) if (i + number) % 2 else list(reversed(requests))
                for name in order:
                    method, params = requests[name]
                    where = {"contextId": context_id} if method == "Runtime.evaluate" else {"executionContextId": context_id}
                    began = time.perf_counter()
                    reply = await cdp.send(method, {**params, **where, "returnByValue": True})
                    times[name].append(time.perf_counter() - began)
                    if "exceptionDetails" in reply:
                        raise SystemExit(f"{name} failed: {reply['exceptionDetails']}")
        await context.close()
    print(f"pages: {pages}, rounds: {rounds}; the first read of each kind in a fresh world, medians")
    for name, values in times.items():
        print(f"  {name:<28} {statistics.median(values) * 1000:6.2f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    asyncio.run(main(options.pages, options.rounds))
