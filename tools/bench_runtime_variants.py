"""The variants of the runtime-overhead benchmark (`tools/bench_runtime.py --otlp | --policy |
--per-page`): the recipe against itself with one thing changed, or the driver's
actions against the script's calls page by page. Run through bench_runtime.py.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from bench_runtime import (
    _pages_handler,
    bench_bed,
    bench_recipe,
    run_recipe_once,
    run_script_once,
    script_evidence,
    script_reads,
    write_pages,
)

from runtime.browser import launch_browser
from runtime.demo.loopback import LoopbackSite
from runtime.execute import BrowserProvider
from runtime.trace_export import TraceExport


async def main_otlp(pages: int, rounds: int) -> None:
    """The recipe traced as `verity run` traces it, with OTEL_TRACES_EXPORTER=none and with OTLP
    over gRPC to a loopback receiver (batch span processor), in alternating rounds."""
    from tests.fixtures.otlp_receiver import OtlpGrpcReceiver

    with tempfile.TemporaryDirectory(prefix="verity-bench-") as tmp, OtlpGrpcReceiver() as receiver:
        root = Path(tmp) / "site"
        root.mkdir()
        write_pages(root, pages)
        served = LoopbackSite(handler=_pages_handler(root)).start()
        site = f"http://127.0.0.1:{served.port}"
        recipe_text = bench_recipe(pages)
        os.environ.update({"OTEL_TRACES_EXPORTER": "none"})
        export_off = TraceExport.from_env()
        os.environ.update(receiver.env())
        export_on = TraceExport.from_env()
        browser = await launch_browser()
        try:
            await run_recipe_once(browser, bench_recipe(2), site, Path(tmp), 0, export_on)
            off_times, on_times = [], []
            for number in range(1, rounds + 1):
                off_times.append((await run_recipe_once(browser, recipe_text, site, Path(tmp), 2 * number, export_off))[0])
                on_times.append((await run_recipe_once(browser, recipe_text, site, Path(tmp), 2 * number + 1, export_on))[0])
        finally:
            await browser.close()
            served.stop()
            export_on.shutdown()
            export_off.shutdown()
        received = len(receiver.spans())
    off, on = statistics.median(off_times), statistics.median(on_times)
    rounds_of = lambda times: ", ".join(f"{t:.2f}" for t in times)  # noqa: E731
    print(f"pages: {pages}, rounds: {rounds} (median reported)")
    print(f"recipe, export off (trace.jsonl only): {off:.2f} s   rounds: {rounds_of(off_times)}")
    print(f"recipe, OTLP gRPC export on:           {on:.2f} s   rounds: {rounds_of(on_times)}")
    print(f"ratio on / off: {on / off:.3f}x (target <= 1.05x); the receiver got {received} spans")


async def main_policy(pages: int, rounds: int) -> None:
    """The recipe with its network policy enforced (every request through the run's policy proxy)
    and without it (a plain incognito context), in alternating rounds on one Chromium."""
    async with bench_bed(pages) as (tmp, site, recipe_text, browser):
        await run_recipe_once(browser, bench_recipe(2), site, tmp, 0, enforce=False)
        await run_recipe_once(browser, bench_recipe(2), site, tmp, 1)
        off_times, on_times = [], []
        for number in range(1, rounds + 1):
            off_times.append((await run_recipe_once(browser, recipe_text, site, tmp, 2 * number, enforce=False))[0])
            on_times.append((await run_recipe_once(browser, recipe_text, site, tmp, 2 * number + 1))[0])
    off, on = statistics.median(off_times), statistics.median(on_times)
    rounds_of = lambda times: ", ".join(f"{t:.2f}" for t in times)  # noqa: E731
    print(f"pages: {pages}, rounds: {rounds} (median reported)")
    print(f"recipe, network policy off (no proxy):  {off:.2f} s   rounds: {rounds_of(off_times)}")
    print(f"recipe, network policy on (proxy):      {on:.2f} s   rounds: {rounds_of(on_times)}")
    print(f"ratio on / off: {on / off:.3f}x (target <= 1.10x)")


async def main_per_page(pages: int, rounds: int) -> None:
    """Page by page, interleaved on the same pages: the script's goto, reads (title and HTML) and
    evidence (screenshot while trafilatura reads in a worker process), against the driver's own
    open_url, prepare_page and extract (the field and the page fingerprint, as a run reads them)
    in a session with the run's network policy. No executor: what the driver costs by itself."""
    from runtime.policy.network_policy import NetworkPolicy

    with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as extractor:
        async with bench_bed(pages) as (tmp, site, _recipe_text, browser):
            await run_script_once(browser, site, 2, tmp / "evidence-0", extractor)
            context = await browser.raw.createIncognitoBrowserContext()
            page = await context.newPage()
            session = await BrowserProvider(browser=browser).open_session(tmp / "session", network=NetworkPolicy.of(["127.0.0.1"]))
            script: dict[str, list[float]] = defaultdict(list)
            driver: dict[str, list[float]] = defaultdict(list)
            field = {"price": {"target": {"css": "[data-field=price]"}}}

            async def by_script(url: str, shot: Path) -> None:
                marks = [time.perf_counter()]
                await page.goto(url, {"waitUntil": "load"})
                marks.append(time.perf_counter())
                _, html = await script_reads(page)
                marks.append(time.perf_counter())
                await script_evidence(page, html, shot, extractor)
                marks.append(time.perf_counter())
                await page.evaluate("document.querySelector('[data-field=price]').innerText")
                marks.append(time.perf_counter())
                for name, began, ended in zip(("goto", "reads", "evidence", "price"), marks, marks[1:], strict=False):
                    script[name].append(ended - began)
                script["page"].append(marks[-1] - marks[0])

            async def by_driver(url: str) -> None:
                marks = [time.perf_counter()]
                for action in (session.open_url(url), session.prepare_page(), session.extract(field, fingerprint=True)):
                    result = await action
                    if not result.ok:
                        raise SystemExit(f"{url}: {result.error}")
                    marks.append(time.perf_counter())
                for name, began, ended in zip(("open_url", "prepare_page", "extract"), marks, marks[1:], strict=False):
                    driver[name].append(ended - began)
                driver["page"].append(marks[-1] - marks[0])

            for number in range(rounds):
                for i in range(1, pages + 1):
                    url = f"{site}/quote-{i}.html"
                    first_script = (i + number) % 2 == 0
                    if first_script:
                        await by_script(url, tmp / f"shot-{i}.png")
                    await by_driver(url)
                    if not first_script:
                        await by_script(url, tmp / f"shot-{i}.png")
            await session.stop()
            await context.close()
    shown = lambda parts: ", ".join(f"{name} {statistics.median(times) * 1000:.1f}" for name, times in parts.items())  # noqa: E731
    print(f"pages: {pages}, rounds: {rounds}, medians per page in ms, interleaved")
    print(f"script: {shown(script)}")
    print(f"driver: {shown(driver)}")
    print(f"ratio driver / script, a page: {statistics.median(driver['page']) / statistics.median(script['page']):.2f}x")
