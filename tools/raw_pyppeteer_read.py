"""The raw script `verity run` is compared with at start-up (tools/bench_run_start.py): launch
Chromium, open one page, read its title and text, close. Only pyppeteer, nothing of Verity.

    python tools/raw_pyppeteer_read.py URL [CHROMIUM]
"""

import asyncio
import os
import shutil
import sys

os.environ.setdefault("PYPPETEER_SKIP_CHROMIUM_DOWNLOAD", "1")

import pyppeteer  # noqa: E402


async def main(url: str, executable: str) -> None:
    browser = await pyppeteer.launch(executablePath=executable, headless=True, args=["--no-sandbox"], handleSIGINT=False, handleSIGTERM=False, handleSIGHUP=False)
    page = await browser.newPage()
    response = await page.goto(url, {"waitUntil": "load"})
    title = await page.title()
    text = await page.evaluate("document.body.innerText")
    await browser.close()
    if response.status != 200 or "quote" not in (title + text).lower():
        raise SystemExit(f"the page did not read as expected: {response.status} {title!r}")
    print(title)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else shutil.which("chromium") or "chromium"))
