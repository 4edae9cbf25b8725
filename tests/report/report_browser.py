"""Opening a report.html in the suite's real Chromium, as a person would (a file:// URL), and
reading back what it shows: the DOM facts the report scenarios check, every URL it requested, and
a screenshot kept under reports/report/ (gitignored) as the test's artifact."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runtime.browser import Browser
from tests.fixtures.browser_loop import LoopThread

REPORT_ARTIFACTS = Path(__file__).resolve().parents[2] / "reports" / "report"

# What the page shows, read in one evaluation after the load event (data: images are decoded by then).
READ_REPORT = """() => {
  const rows = Array.from(document.querySelectorAll('tr.state'));
  const verdict = document.querySelector('#verdict');
  const output = document.querySelector('#output');
  return {
    stopReason: (document.querySelector('#verdict-stop-reason') || {}).textContent || null,
    verified: verdict ? verdict.dataset.verified : null,
    outputValid: output ? output.dataset.valid : null,
    outputText: output ? output.innerText : '',
    states: rows.map(row => ({
      id: row.dataset.stateId,
      text: row.innerText,
      thumbnails: Array.from(row.querySelectorAll('img.thumbnail')).map(img => ({complete: img.complete, width: img.naturalWidth})),
      links: Array.from(row.querySelectorAll('a')).map(a => a.getAttribute('href')),
    })),
    replans: document.querySelectorAll('tr.replan').length,
    scripts: document.querySelectorAll('script').length,
    javascriptLinks: Array.from(document.querySelectorAll('a')).filter(a => /^\\s*javascript:/i.test(a.getAttribute('href') || '')).length,
    images: Array.from(document.images).map(img => ({className: img.className, scheme: img.src.split(':')[0]})),
    handlers: Array.from(document.querySelectorAll('*')).filter(el => Array.from(el.attributes).some(a => a.name.startsWith('on'))).length,
    text: document.body.innerText,
    pwned: window.__reportPwned === undefined ? null : String(window.__reportPwned),
    csp: (document.querySelector('meta[http-equiv="Content-Security-Policy"]') || {}).content || '',
  };
}"""


@dataclass
class RenderedReport:
    facts: dict[str, Any]
    requested: list[str]
    screenshot: Path

    def __getitem__(self, key: str) -> Any:
        return self.facts[key]


def open_report(loop_thread: LoopThread, browser: Browser, report: Path, artifact_name: str) -> RenderedReport:
    """Render `report` in a fresh incognito context; keep a full-page screenshot as `artifact_name`.png."""
    REPORT_ARTIFACTS.mkdir(parents=True, exist_ok=True)
    screenshot = REPORT_ARTIFACTS / f"{artifact_name}.png"

    async def render() -> RenderedReport:
        context = await browser.create_context()
        try:
            page = await context.newPage()
            requested: list[str] = []
            page.on("request", lambda request: requested.append(request.url))
            await page.setViewport({"width": 1400, "height": 900})
            await page.goto(report.resolve().as_uri(), waitUntil="load", timeout=30_000)
            facts = await page.evaluate(READ_REPORT)
            await page.screenshot({"path": str(screenshot), "fullPage": True})
            return RenderedReport(facts, requested, screenshot)
        finally:
            await context.close()

    return loop_thread.run(render(), timeout=90)
