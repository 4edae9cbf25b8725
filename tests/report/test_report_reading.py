"""Binds features/report_reading.feature: a real `verity run` reads a 40 KB, 1000-line log from a
loopback page; its report.html is opened in the suite's real Chromium, clicked as a person would,
and read back (a full-page screenshot is kept under reports/report/ to look at)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from PIL import Image
from pytest_bdd import given, scenarios, then, when

from runtime.browser import Browser
from runtime.demo.loopback import LoopbackSite
from tests.fixtures.browser_loop import LoopThread
from tests.report.report_browser import REPORT_ARTIFACTS

scenarios("report_reading.feature")

LINES = [f"line {i:04d}: compiled module_{i:04d} in {i % 97:2d} ms, cache {'hit ' if i % 3 else 'miss'}" for i in range(1, 1000)]
LOG = "\n".join([*LINES, "BUILD FINISHED: 999 modules"])

RECIPE = """
name: long-log
description: "Read a long build log."
goal: "Read the build log page"
inputs:
  site: {description: "The loopback site"}
target:
  start_url: "{site}/log.html"
  allowed_domains: ["127.0.0.1"]
  validation_keywords: ["Build log"]
tools:
  allow: [open_url, browser_snapshot, browser_extract, browser_evaluate, close]
plan:
  - id: open
    navigate: "{start_url}"
  - id: read
    extract:
      fields:
        lines: {css: "p#count"}
  - id: log
    evaluate:
      script: "return {log: document.querySelector('#log').textContent}"
      fields: [log]
  - close: {summary: "read the build log"}
output:
  schema: {type: object, required: [log, lines], properties: {log: {type: string, minLength: 40000}, lines: {type: string}}}
  values: {log: "{steps.log.log}", lines: "{steps.read.lines}"}
"""


class _LogPage(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        body = f'<!doctype html><title>Build log</title><h1>Build log</h1><p id="count">{len(LOG.splitlines())} lines</p><pre id="log">{LOG}</pre>'.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class LogSite(LoopbackSite):
    handler = _LogPage
    thread_name = "log-site"


# What a person sees, before and after opening folds; `open` is a CSS selector of summaries to click first.
READ = """() => ({
  summary: document.querySelector('#verdict-summary').innerText,
  output: document.querySelector('#output').innerText,
  text: document.body.innerText,
  closedDetails: document.querySelectorAll('details:not([open])').length,
  shots: Array.from(document.querySelectorAll('td.page a')).map(a => ({href: a.getAttribute('href'), resolved: a.href, label: a.innerText, target: a.target, thumbs: a.querySelectorAll('img.thumbnail').length})),
})"""


@dataclass
class Report:
    run_dir: Path
    before: dict[str, Any]
    after_summary_click: dict[str, Any]
    all_open: dict[str, Any]
    requested: list[str]
    full_image: dict[str, Any]


@pytest.fixture(scope="module")
def log_site() -> Iterator[LogSite]:
    with LogSite() as served:
        yield served


@pytest.fixture(scope="module")
def report(log_site: LogSite, tmp_path_factory: pytest.TempPathFactory, loop_thread: LoopThread, shared_browser: Browser) -> Report:
    work = tmp_path_factory.mktemp("long-log")
    (work / "long-log.yaml").write_text(RECIPE, encoding="utf-8")
    run_dir = work / "run"
    command = [sys.executable, "-m", "runtime.cli.main", "run", str(work / "long-log.yaml"), "-i", f"site=http://127.0.0.1:{log_site.port}", "--out", str(run_dir)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=work)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    return loop_thread.run(_read(shared_browser, run_dir), timeout=90)


async def _read(browser: Browser, run_dir: Path) -> Report:
    REPORT_ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = await browser.create_context()
    try:
        page = await context.newPage()
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        await page.setViewport({"width": 1400, "height": 900})
        await page.goto((run_dir / "report.html").resolve().as_uri(), waitUntil="load", timeout=30_000)
        before = await page.evaluate(READ)
        await page.screenshot({"path": str(REPORT_ARTIFACTS / "long-log-report.png")})
        await page.screenshot({"path": str(REPORT_ARTIFACTS / "long-log-report-full.png"), "fullPage": True})
        await page.click("#verdict-summary > details > summary")  # the folded output in the summary
        await page.click("#verdict-summary details.long > summary")  # the log inside it
        after = await page.evaluate(READ)
        await page.screenshot({"path": str(REPORT_ARTIFACTS / "long-log-report-summary-open.png")})
        while await page.querySelector("details:not([open]) > summary"):
            await page.evaluate("() => { for (const d of document.querySelectorAll('details:not([open])')) d.open = true; }")
        all_open = await page.evaluate(READ)
        await page.screenshot({"path": str(REPORT_ARTIFACTS / "long-log-report-all-open.png"), "fullPage": True})
        shots = before["shots"]
        full_image: dict[str, Any] = {}
        if shots:
            await page.goto(shots[0]["resolved"], waitUntil="load", timeout=30_000)
            full_image = await page.evaluate("() => { const img = document.querySelector('img'); return {width: img.naturalWidth, height: img.naturalHeight, url: location.href}; }")
        return Report(run_dir, before, after, all_open, requested, full_image)
    finally:
        await context.close()


@given("a loopback page holding a 40 KB log of many lines")
def _log_page(log_site: LogSite) -> None:
    assert len(LOG) > 40_000 and LOG.count("\n") == 999 and log_site.port > 0


@when("a run extracts the log and its report is opened in Chromium")
def _run(report: Report) -> None:
    assert (report.run_dir / "report.html").is_file()


@then("the verdict summary shows under 600 characters before anything is opened")
def _summary_cut(report: Report) -> None:
    summary = report.before["summary"]
    assert summary.startswith("read the build log") and len(summary) < 600, summary
    assert "BUILD FINISHED" not in summary and "line 0500" not in report.before["text"]


@then("one click on the verdict summary shows the whole log, its last line included")
def _summary_open(report: Report) -> None:
    summary = report.after_summary_click["summary"]
    assert "line 0500: compiled module_0500" in summary and "BUILD FINISHED: 999 modules" in summary
    assert len(summary) > 40_000


@then("the output shows as indented JSON with the log folded")
def _output_json(report: Report) -> None:
    output = report.before["output"]
    assert '{\n  "lines": "1000 lines",\n  "log": ' in output or '{\n  "log": ' in output, output[:400]
    assert "line 0001: compiled module_0001" in output and "line 0500" not in output and len(output) < 1000, output[:1000]


@then('with every fold opened, the page shows the log\'s lines on lines of their own and no "\\n" escape')
def _no_escapes(report: Report) -> None:
    shown = report.all_open
    assert shown["closedDetails"] == 0
    assert "\n" + LINES[499] + "\n" in shown["output"] and "\n" + LINES[499] + "\n" in shown["summary"]
    assert "\\n" not in shown["text"], shown["text"][shown["text"].find("\\n") - 200 :][:400]


@then("every thumbnail links the full-size screenshot in the run directory, and says so")
def _thumb_links(report: Report) -> None:
    shots = report.before["shots"]
    assert shots, "the run prepared a page, so its states show a screenshot"
    for shot in shots:
        assert shot["thumbs"] == 1 and shot["target"] == "_blank"
        full = report.run_dir / unquote(shot["href"])
        width, height = Image.open(full).size
        assert full.resolve().is_relative_to(report.run_dir.resolve()) and f"open full size ({width}×{height})" in shot["label"]


@then("Chromium opens that link as the full-size image")
def _opens_full(report: Report) -> None:
    shot = report.before["shots"][0]
    width, height = Image.open(report.run_dir / unquote(shot["href"])).size
    assert width > 360 and report.full_image == {"width": width, "height": height, "url": shot["resolved"]}


@then("the report fetched nothing but itself and data: images")
def _fetched_nothing(report: Report) -> None:
    report_url = (report.run_dir / "report.html").resolve().as_uri()
    opened = [url for url in report.requested if url not in (report_url, report.before["shots"][0]["resolved"])]
    assert all(urlsplit(url).scheme == "data" for url in opened), opened
