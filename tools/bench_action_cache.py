"""The verified action cache's replay against the same steps written by hand (issue 34's target: a
cached agent step replays with 0 model calls, in at most 1.1x the time of the hand-written steps).

    uv run python tools/bench_action_cache.py [--rounds 21]

One Chromium, one loopback form page, the real google-genai client against the scripted Gemini
server on loopback. First a learning run: the model fills the form's four fields and submits it,
and its verified path is stored in a SQLite action cache. Then, round by round (the order flipped
each round, so load from other work falls on both sides alike), a run of the agent recipe (the
agent step replayed from the cache) and a run of the hand-written recipe: the same steps the cache
holds, followed by the agent step's done_when as a verify step. Each run is timed from its order
to its verdict; the model calls of every replay are counted on the loopback server (they must be 0).
It prints each side's median, the median of the round-by-round ratios (cached / by hand) with a
95% bootstrap interval, and the model calls.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ruamel.yaml import YAML  # noqa: E402

from runtime.browser import Browser, launch_browser  # noqa: E402
from runtime.demo.loopback import LoopbackSite  # noqa: E402
from runtime.events import EventLog  # noqa: E402
from runtime.execute import BrowserProvider, start_run  # noqa: E402
from runtime.plan import prepare_run  # noqa: E402
from runtime.recipe import load_recipe_text  # noqa: E402
from runtime.store.action_cache import ActionCache, SqliteActionCache  # noqa: E402
from tests.fixtures.gemini_server import GeminiServer, function_call_reply  # noqa: E402
from tools.bench_runtime import median_interval  # noqa: E402

FIELDS = ("Name", "Street", "City", "Phone")
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Delivery form</title></head><body>
<h1>Delivery form</h1>
%s
<button id="send" type="button">Send</button>
<p id="status"></p>
<script>
  document.getElementById('send').addEventListener('click', () => {
    const name = document.getElementById('f-name').value;
    document.getElementById('status').textContent = 'Delivery booked for ' + name;
  });
</script></body></html>""" % "\n".join(f'<label>{f} <input id="f-{f.lower()}" type="text"></label>' for f in FIELDS)

AGENT_RECIPE = """name: bench-action-cache
goal: 用浏览器 book the delivery
inputs:
  site: {description: base URL}
  name: {description: the customer}
target:
  start_url: "{site}/form"
  allow_private_network: true
plan:
  - id: open
    navigate: "{start_url}"
    validate_target: false
  - id: book
    agent:
      task: "Book a delivery for {name}: Main Street 1, Springfield, 555-0100"
      tools: [browser_type, browser_click]
      max_steps: 8
      done_when:
        - text_includes: "Delivery booked for {name}"
  - close: {summary: booked}
"""


def hand_recipe(cached_steps: list[dict[str, Any]]) -> str:
    """The agent recipe with its agent step written by hand: the cached steps, then done_when."""
    recipe = YAML(typ="safe").load(AGENT_RECIPE)
    recipe["plan"][1:2] = [{"id": f"book-{n}", **step} for n, step in enumerate(cached_steps, 1)] + [{"id": "book", "verify": [{"text_includes": "Delivery booked for {name}"}]}]
    out = tempfile.SpooledTemporaryFile(mode="w+")
    YAML().dump(recipe, out)
    out.seek(0)
    return str(out.read())


class FormHandler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        body = PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


async def run_once(browser: Browser, recipe_text: str, site: str, out: Path, number: int, cache: ActionCache | None) -> float:
    recipe = load_recipe_text(recipe_text, "bench.yaml")
    started = time.perf_counter()
    order = prepare_run(recipe, {"site": site, "name": f"Ada {number}"}, run_id=f"bench-{number}", run_dir=out / f"run-{number}")
    handle = start_run(order, events=EventLog(f"bench-{number}"), browser=BrowserProvider(browser=browser), action_cache=cache)
    verdict = await handle.task
    elapsed = time.perf_counter() - started
    if verdict.stop_reason.value != "completed":
        raise SystemExit(f"run {number} did not complete: {verdict.stop_reason.value}: {verdict.summary}")
    return elapsed


async def main(rounds: int) -> None:
    with tempfile.TemporaryDirectory(prefix="verity-bench-cache-") as name, GeminiServer() as gemini, LoopbackSite(handler=FormHandler) as served:
        tmp = Path(name)
        os.environ.update(gemini.env(api_key="bench-key-not-a-secret"))
        site = f"http://127.0.0.1:{served.port}"
        cache = SqliteActionCache(tmp / "verity.db")
        browser = await launch_browser()
        try:
            values = {"Name": "Ada 0", "Street": "Main Street 1", "City": "Springfield", "Phone": "555-0100"}
            gemini.enqueue(
                *[function_call_reply("browser_type", {"target": f"label={field}", "text": values[field]}) for field in FIELDS],
                function_call_reply("browser_click", {"target": {"role": "button", "name": "Send"}}),
                function_call_reply("close", {"summary": "booked"}),
            )
            await run_once(browser, AGENT_RECIPE, site, tmp, 0, cache)
            (entry,) = cache.entries()
            by_hand = hand_recipe(entry.steps)
            asked = len(gemini.requests)
            # Warm-up: one run of each, not counted.
            await run_once(browser, AGENT_RECIPE, site, tmp, 1, cache)
            await run_once(browser, by_hand, site, tmp, 2, None)
            cached_times: list[float] = []
            hand_times: list[float] = []
            number = 3
            for round_number in range(rounds):
                sides = [("cached", AGENT_RECIPE, cache), ("hand", by_hand, None)]
                for side, text, use in sides if round_number % 2 == 0 else sides[::-1]:
                    elapsed = await run_once(browser, text, site, tmp, number, use)
                    number += 1
                    (cached_times if side == "cached" else hand_times).append(elapsed)
            model_calls = len(gemini.requests) - asked
        finally:
            await browser.close()
            cache.close()
    ratios = [c / h for c, h in zip(cached_times, hand_times, strict=True)]
    low, high = median_interval(ratios)
    print(f"learned: {len(entry.steps)} cached steps ({', '.join(next(iter(step['act'])) for step in entry.steps)})")
    print(f"rounds: {rounds}; load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"cached agent step: median {statistics.median(cached_times) * 1000:.0f} ms per run")
    print(f"the same steps by hand: median {statistics.median(hand_times) * 1000:.0f} ms per run")
    print(f"cached / by hand: median ratio {statistics.median(ratios):.3f} (95% interval {low:.3f}-{high:.3f})")
    print(f"model calls during the {rounds + 1} replays: {model_calls}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    asyncio.run(main(parser.parse_args().rounds))
