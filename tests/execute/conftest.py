"""Executor fixtures: one shared Chromium (the browser area's), the demo and fixture sites on
loopback, and a runner that starts real runs through `start_run` and collects their events.

Steps shared by several executor features live here too; feature-specific ones live in the tests.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from runtime.browser import Browser
from runtime.demo import DEMO_RECIPE, DemoSite
from runtime.events import Event, EventLog, FinalVerdict, StepFinished
from runtime.execute import BrowserProvider, RunHandle, start_run
from runtime.plan import prepare_run
from runtime.recipe import load_recipe_with_registry
from tests.fixtures.agent_corpus.providers import every_provider
from tests.fixtures.agent_corpus.site import AgentCorpusSite
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.model_wire import ModelWireServer
from runtime.store.action_cache import SqliteActionCache
from runtime.trace_export import read_trace_file
from tests.execute.order_desk import OrderDesk
from tests.fixtures.gemini_fixtures import FIXTURE_API_KEY
from tests.fixtures.otlp_receiver import FlatSpan, flat_spans
from tests.fixtures.site_server import FixtureSite

RECIPES = Path(__file__).resolve().parents[1] / "fixtures" / "recipes"


def recipe_path(name: str) -> Path:
    if name.startswith("recipes/"):  # a shipped recipe, by its path in the repository
        return RECIPES.parents[2] / f"{name}.yaml"
    return DEMO_RECIPE if name == "demo-quote" else RECIPES / f"{name}.yaml"


@dataclass
class RunRecord:
    """A run as a test sees it: its handle, every event in order, its directory and verdict."""

    handle: RunHandle
    run_dir: Path
    events: list[Event] = field(default_factory=list)
    verdict: FinalVerdict | None = None

    def payloads(self, kind: type) -> list[Any]:
        return [e.payload for e in self.events if isinstance(e.payload, kind)]

    def steps(self, state_id: str | None = None) -> list[StepFinished]:
        return [p for p in self.payloads(StepFinished) if state_id is None or p.state_id == state_id]

    def file(self, name: str) -> Any:
        return json.loads((self.run_dir / name).read_text(encoding="utf-8"))

    def event_lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in (self.run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()]


class ExecRunner:
    """Starts runs on the shared browser's loop and waits for them, from synchronous steps."""

    def __init__(self, loop_thread: LoopThread, provider: BrowserProvider, runs_dir: Path) -> None:
        self.loop_thread = loop_thread
        self.provider = provider
        self.runs_dir = runs_dir
        self.last: RunRecord | None = None
        self._count = 0

    def start(
        self, recipe_name: str | Path, raw_inputs: dict[str, str], *, provider: BrowserProvider | None = None, switches: dict[str, str] | None = None, **start_kwargs: Any
    ) -> RunRecord:
        # A Path is a recipe file anywhere (a test's own copy); a name, see recipe_path.
        path = recipe_name if isinstance(recipe_name, Path) else recipe_path(recipe_name)
        recipe, registry = load_recipe_with_registry(path.read_text(encoding="utf-8"), str(path), recipe_path=path)
        self._count += 1
        run_id = f"{recipe.name}-{self._count}"
        run_dir = self.runs_dir / run_id
        order = prepare_run(recipe, raw_inputs, registry=registry, run_id=run_id, run_dir=run_dir, switches=switches)
        events = EventLog(run_id)
        collected: list[Event] = []
        events.add_listener(collected.append)

        async def begin() -> RunHandle:
            return start_run(order, events=events, browser=provider or self.provider, **start_kwargs)

        handle = self.loop_thread.run(begin())
        self.last = RunRecord(handle=handle, run_dir=run_dir, events=collected)
        return self.last

    def wait(self, record: RunRecord, timeout: float = 60) -> RunRecord:
        async def finish() -> FinalVerdict:
            return await asyncio.wait_for(asyncio.shield(record.handle.task), timeout)

        record.verdict = self.loop_thread.run(finish(), timeout + 5)
        return record

    def run(self, recipe_name: str, raw_inputs: dict[str, str], **kwargs: Any) -> RunRecord:
        return self.wait(self.start(recipe_name, raw_inputs, **kwargs))

    def call(self, function: Any, *args: Any) -> Any:
        """Call a handle method on the loop thread, as a server handler would."""

        async def invoke() -> Any:
            return function(*args)

        return self.loop_thread.run(invoke())


@pytest.fixture(scope="session")
def demo_site() -> Iterator[DemoSite]:
    with DemoSite() as served:
        yield served


@pytest.fixture(scope="session")
def fixture_site(site: FixtureSite) -> FixtureSite:
    """The suite's one fixture site (tests/fixtures/browser_loop.py), under the executor's name."""
    return site


@pytest.fixture
def desk() -> Iterator[OrderDesk]:
    """The order desk (order_desk.py), in its first version until a test changes it."""
    with OrderDesk() as served:
        yield served


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[SqliteActionCache]:
    """An action cache in a SQLite run store of the test's own."""
    store = SqliteActionCache(tmp_path / "verity.db")
    yield store
    store.close()


@pytest.fixture
def runner(loop_thread: LoopThread, shared_browser: Browser, tmp_path: Path) -> ExecRunner:
    return ExecRunner(loop_thread, BrowserProvider(browser=shared_browser), tmp_path / "runs")




@when("I stop the run")
def stop_run(runner: ExecRunner) -> None:
    runner.call(runner.last.handle.stop)


# A ceiling for a stopped run to end on a loaded machine. The scenarios that use it make what the
# run waits on last longer than this (or end with another stop reason), so a run that ends within
# it, stopped, was ended by the stop and not by the thing it was waiting for.
STOPPED_RUN_CEILING_SECONDS = 120.0


@then(parsers.parse('the run ends "{status}" with stop reason "{reason}" before {awaited}'))
def ends_before(runner: ExecRunner, status: str, reason: str, awaited: str) -> None:
    record = runner.wait(runner.last, timeout=STOPPED_RUN_CEILING_SECONDS)
    assert (record.verdict.status.value, record.verdict.stop_reason.value) == (status, reason), (awaited, record.verdict)


@given("a Gemini server on loopback and an API key in the environment")
def gemini_ready(gemini_env: dict[str, str]) -> None:
    assert gemini_env["GEMINI_API_KEY"] == FIXTURE_API_KEY


def span_tree(run_dir: Path) -> list[FlatSpan]:
    """The spans of a run's trace.jsonl (OTLP/JSON, read back with opentelemetry-proto), checked to
    form one tree rooted at the run's `invoke_agent` span whose trace id is the one every event of
    the run carries. The root comes last: spans are written as they end."""
    spans = flat_spans(read_trace_file(run_dir / "trace.jsonl"))
    event_trace_ids = {json.loads(line)["trace_id"] for line in (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()}
    assert len(event_trace_ids) == 1
    roots = [s for s in spans if not s.parent_span_id]
    assert [r.name.split(" ")[0] for r in roots] == ["invoke_agent"], roots
    assert spans[-1] is roots[0]
    ids = [s.span_id for s in spans]
    assert len(set(ids)) == len(ids)
    assert {s.trace_id for s in spans} == event_trace_ids
    by_id = {s.span_id: s for s in spans}
    for span in spans:  # every span reaches the root through its parents
        seen = span
        while seen.parent_span_id:
            seen = by_id[seen.parent_span_id]
        assert seen is roots[0]
        assert span.start_ns <= span.end_ns
    return spans


def wait_until(predicate: Any, timeout: float = 10.0, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


# ---------------------------------------------------------------------- shared steps


@then(parsers.parse('the run ends "{status}" with stop reason "{reason}"'))
def run_ends(runner: ExecRunner, status: str, reason: str) -> None:
    record = runner.last
    assert record is not None and record.verdict is not None
    assert (record.verdict.status.value, record.verdict.stop_reason.value) == (status, reason), record.verdict.summary


@then(parsers.parse('the verdict names blocker "{blocker}"'))
def verdict_blocker(runner: ExecRunner, blocker: str) -> None:
    verdict = runner.last.verdict
    assert verdict.blocker_kind is not None and verdict.blocker_kind.value == blocker, verdict


@then("the final verdict is the last event, exactly once")
def final_verdict_last(runner: ExecRunner) -> None:
    record = runner.last
    finals = [e for e in record.events if isinstance(e.payload, FinalVerdict)]
    assert len(finals) == 1 and record.events[-1] is finals[0]
    seqs = [e.seq for e in record.events]
    assert seqs == list(range(1, len(seqs) + 1))
    lines = record.event_lines()
    assert [line["seq"] for line in lines] == seqs and lines[-1]["kind"] == "final_verdict"


@then("the run is not verified")
def not_verified(runner: ExecRunner) -> None:
    assert runner.last.verdict.verified is False
    assert runner.last.file("verdict.json")["stop_reason"] != "completed"


@pytest.fixture(scope="module")
def corpus_site() -> Iterator[AgentCorpusSite]:
    """The agent corpus site (tests/fixtures/agent_corpus), one per test module."""
    with AgentCorpusSite() as site:
        yield site


@given("the agent corpus site and a loopback server of every provider", target_fixture="servers")
def corpus_and_every_provider(corpus_site: AgentCorpusSite) -> Iterator[dict[str, ModelWireServer]]:
    with every_provider() as servers:
        yield servers
