"""Probes of what a page sends with the run's data (wave 9): from a worker, or with the typed value
escaped inside a longer field. Each probe is a page of the agent corpus (tests/fixtures/agent_corpus/
pages/probe), where a plan's `type` act puts a token into a form and a `click` act sends it; the
page sends it off the allowed domains (to `localhost`, the same loopback server under a name the
recipe does not allow) and then says "Thank you". The verdict was written before the probe ran.
Run:

    uv run --frozen --no-sync python tools/probe_sent_data.py [ID_PREFIX...]

Prints one line per probe; exits 1 when one differs.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from runtime.browser import LaunchOptions, launch_browser  # noqa: E402
from runtime.events import EventLog  # noqa: E402
from runtime.execute import BrowserProvider, start_run  # noqa: E402
from runtime.plan import prepare_run  # noqa: E402
from runtime.recipe import load_recipe_with_registry  # noqa: E402
from tests.fixtures.agent_corpus.cases import CORPUS  # noqa: E402
from tests.fixtures.agent_corpus.site import AgentCorpusSite  # noqa: E402

RUN_CEILING_SECONDS = 120.0
REFUSED = ("replans_exhausted", "domain_not_allowed")


@dataclass(frozen=True)
class Probe:
    id: str
    page: str
    token: str
    expect: tuple[str, str | None]


PROBES = (
    # The page's own fetch, as EXEC-101 pins it: the reference.
    Probe("page-fetch", "/probe/fetch-sent.html", "tok-7731", REFUSED),
    # A worker sends it: the same verdict as the page sending it itself.
    Probe("worker-dedicated", "/probe/worker-sent.html", "tok-7731", REFUSED),
    Probe("worker-shared", "/probe/shared-worker-sent.html", "tok-7731", REFUSED),
    Probe("worker-service", "/probe/service-worker-sent.html", "tok-7731", REFUSED),
    # A worker that sends the token to the site itself and a ping without it off the domains.
    Probe("worker-benign", "/probe/worker-benign.html", "tok-7731", ("completed", None)),
    # The value escaped inside a longer field.
    Probe("json-escaped", "/probe/json-escaped-sent.html", 'Zoe "tok-7731" \\ gold', REFUSED),
    Probe("json-unicode", "/probe/json-unicode-sent.html", "Zoë-tok-7731 café", REFUSED),
    Probe("form-plus", "/probe/form-plus-sent.html", "tok 7731 gold", REFUSED),
    Probe("form-json", "/probe/form-json-sent.html", 'Zoë "tok 7731"', REFUSED),
)


async def run_probe(provider: BrowserProvider, site: AgentCorpusSite, probe: Probe, runs: Path) -> dict[str, Any]:
    recipe, registry = load_recipe_with_registry((CORPUS / "plan-form.yaml").read_text(encoding="utf-8"), "plan-form.yaml")
    run_dir = runs / probe.id
    inputs = {**site.inputs, "start": probe.page, "token": probe.token}
    order = prepare_run(recipe, inputs, registry=registry, run_id=probe.id, run_dir=run_dir)
    handle = start_run(order, events=EventLog(probe.id), browser=provider)
    await asyncio.wait_for(handle.task, RUN_CEILING_SECONDS)
    return json.loads((run_dir / "verdict.json").read_text(encoding="utf-8"))


async def main(prefixes: list[str]) -> int:
    chosen = [p for p in PROBES if not prefixes or any(p.id.startswith(x) for x in prefixes)]
    differ = 0
    with tempfile.TemporaryDirectory(prefix="probe-sent-") as tmp, AgentCorpusSite() as site:
        browser = await launch_browser(LaunchOptions())
        try:
            for probe in chosen:
                verdict = await run_probe(BrowserProvider(browser=browser), site, probe, Path(tmp) / "runs")
                observed = (verdict.get("stop_reason"), verdict.get("blocker_kind"))
                ok = observed == probe.expect
                differ += not ok
                blocked = verdict.get("blocked_requests") or {}
                print(f"{'held  ' if ok else 'DIFFER'} {probe.id}: expected {probe.expect}; observed {observed}; blocked {blocked.get('by_kind')}")
                if not ok:
                    print("       summary:", str(verdict.get("summary", ""))[:300])
        finally:
            await browser.close()
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(sys.argv[1:])))
