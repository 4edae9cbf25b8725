"""What one read costs the first time in a document's isolated world: extract's field reader called
by name in the world Chromium made for the document with the page scripts already installed (as
every document a tab loads gets them), against the same read in a world made afterwards, which is
sent the page scripts first (a document that began before its tab was followed), and a one-line
read for scale.

    uv run python tools/bench_reads.py [--pages 20] [--rounds 3]

Each page is loaded and screenshotted, its isolated worlds made, then the three reads go in an
order that alternates from page to page; medians of every page's time per read are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tools"))

from bench_runtime import bench_bed  # noqa: E402

from runtime.browser.scripts.loader import CALL, WORLD_NAME, install_declaration, new_document_source  # noqa: E402
from runtime.browser.tab.locate import chosen_index, locate_spec  # noqa: E402
from runtime.browser.vocabulary.actions import Target  # noqa: E402

ONE_LINE = "document.querySelector('[data-field=price]').innerText"


def _call(fields: dict[str, Any]) -> dict[str, Any]:
    return {"functionDeclaration": CALL, "arguments": [{"value": "readFields"}, {"value": fields}, {"value": True}], "returnByValue": True}


async def main(pages: int, rounds: int) -> None:
    async with bench_bed(pages) as (_tmp, site, _recipe, browser):
        context = await browser.raw.createIncognitoBrowserContext()
        page = await context.newPage()
        cdp = await page.target.createCDPSession()
        await cdp.send("Page.enable")
        await cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": new_document_source(), "worldName": WORLD_NAME})
        spec = locate_spec(Target(css="[data-field=price]"))
        times: dict[str, list[float]] = {"installed at the document's start": [], "installed, then called": [], "one-line read": []}
        for number in range(rounds):
            for i in range(1, pages + 1):
                await page.goto(f"{site}/quote-{i}.html", {"waitUntil": "load"})
                await cdp.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
                # The driver's world as Chromium made it for the document, and one made afterwards.
                made = await cdp.send("Page.createIsolatedWorld", {"frameId": page.mainFrame._id, "worldName": WORLD_NAME})
                later = await cdp.send("Page.createIsolatedWorld", {"frameId": page.mainFrame._id, "worldName": "bench"})
                # A field name of its own on every page, as a recipe's fields differ from step to step.
                fields = {f"price_{number}_{i}": {"spec": spec, "index": chosen_index(spec), "how": {"trim": True}}}
                requests = {
                    "installed at the document's start": [("Runtime.callFunctionOn", {**_call(fields), "executionContextId": made["executionContextId"]})],
                    "installed, then called": [
                        ("Runtime.callFunctionOn", {"functionDeclaration": install_declaration(), "executionContextId": later["executionContextId"]}),
                        ("Runtime.callFunctionOn", {**_call(fields), "executionContextId": later["executionContextId"]}),
                    ],
                    "one-line read": [("Runtime.evaluate", {"expression": ONE_LINE, "contextId": made["executionContextId"], "returnByValue": True})],
                }
                order = list(requests) if (i + number) % 2 else list(reversed(requests))
                for name in order:
                    began = time.perf_counter()
                    for method, params in requests[name]:
                        reply = await cdp.send(method, params)
                        if "exceptionDetails" in reply:
                            raise SystemExit(f"{name} failed: {reply['exceptionDetails']}")
                    times[name].append(time.perf_counter() - began)
        await context.close()
    print(f"pages: {pages}, rounds: {rounds}; the first read of each kind in a document's world, medians")
    for name, values in times.items():
        print(f"  {name:<36} {statistics.median(values) * 1000:6.2f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    asyncio.run(main(options.pages, options.rounds))
