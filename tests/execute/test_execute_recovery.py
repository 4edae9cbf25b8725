"""Binds features/execute_recovery.feature: the demo story, blocker kinds, exhausted replans."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pytest_bdd import parsers, scenarios, then, when

from runtime.demo import DemoSite
from runtime.events import ArtifactStored, GuardrailTripped, Replanned, StepFinished, StructuredOutput, ToolUsed
from tests.execute.conftest import ExecRunner

scenarios("execute_recovery.feature")

CLOSED_PORT_BASE = "http://127.0.0.1:9"  # the discard port: nothing listens there on a test machine


@when(parsers.parse('I run the demo recipe for "{metal}"'), target_fixture="spans")
def run_demo(runner: ExecRunner, demo_site: DemoSite, metal: str) -> InMemorySpanExporter:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    runner.run("demo-quote", {"site": demo_site.quote_base, "search_site": demo_site.search_base, "metal": metal}, tracer_provider=provider)
    return exporter


@when(parsers.parse('I open "{path}" on the {host} host expecting a "{metal}" quote'))
def open_page(runner: ExecRunner, demo_site: DemoSite, path: str, host: str, metal: str) -> None:
    base = {"quote": demo_site.quote_base, "search": demo_site.search_base, "closed": CLOSED_PORT_BASE}[host]
    runner.run("validate-only", {"site": base, "path": path, "metal": metal})


@then(parsers.parse('the start page was classified "{blocker}" with its status, title and snippet as evidence'))
def start_page_classified(runner: ExecRunner, blocker: str) -> None:
    record = runner.last
    first_validation = record.steps("open.validate-target")[0]
    assert first_validation.outcome == "blocked" and first_validation.blocker_kind.value == blocker
    trips = [t for t in record.payloads(GuardrailTripped) if t.guard == "data.validate-target"]
    assert trips and trips[0].blocker_kind.value == blocker
    evidence = trips[0].evidence
    assert evidence["status"] == 404 and evidence["url"].endswith("/quotes/gold-old")
    assert "Page not found" in evidence["title"] and "no longer exists" in evidence["snippet"]
    evaluation = record.steps("open.evaluate")[0]
    assert "page still 404" in evaluation.agent_state.evaluation


@then("the run replanned through the search page and followed the allowed-domain quote page")
def replanned(runner: ExecRunner, demo_site: DemoSite) -> None:
    record = runner.last
    replans = record.payloads(Replanned)
    assert replans[0].blocker_kind.value == "page_not_found"
    assert replans[0].url.startswith(demo_site.search_base + "/search?q=")
    assert "404" in replans[0].failure_summary and "Guidance:" in replans[0].failure_summary
    found = record.steps("open.replan")[0]
    assert found.outcome == "found"
    assert f"followed {demo_site.quote_base}/quotes/gold" in found.observation_summary
    assert [s.outcome for s in record.steps("open.validate-target")] == ["blocked", "valid"]


@then("the not-allowed mirror and the already tried URL were skipped")
def skipped(runner: ExecRunner, demo_site: DemoSite) -> None:
    executions = runner.last.file("executions.json")
    replan = next(e for e in executions if e["state_id"] == "open.replan")
    assert replan["evidence"]["skipped"] == {
        f"{demo_site.search_base}/mirror/gold": "not allowed",
        f"{demo_site.quote_base}/quotes/gold-old": "tried before",
    }


@then(parsers.parse('the output holds the gold price {price:g} in "{currency}" and is valid'))
def output_holds(runner: ExecRunner, price: float, currency: str) -> None:
    record = runner.last
    output = record.payloads(StructuredOutput)[-1]
    assert output.valid and output.data["price"] == price and output.data["currency"] == currency
    assert record.file("output.json") == {"data": output.data, "valid": True, "errors": []}
    assert record.verdict.verified is True


@then("the run directory holds events, plans, executions, output, verdict and a screenshot")
def run_directory(runner: ExecRunner) -> None:
    record = runner.last
    for name in ("events.jsonl", "plans.json", "executions.json", "output.json", "verdict.json"):
        assert (record.run_dir / name).is_file(), name
    plans = record.file("plans.json")
    assert plans["plan"]["initial"] == "intent.preflight" and len(plans["plan_repairs"]) == 1
    assert "page_not_found" in plans["last_failure_summary"]
    shots = [a for a in record.payloads(ArtifactStored) if a.artifact_kind == "screenshot"]
    assert shots and all((record.run_dir / "artifacts") in Path(a.path).parents for a in shots)
    assert open(shots[0].path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    tools = {t.tool for t in record.payloads(ToolUsed)}
    assert {"open_url", "prepare_page", "extract", "verify", "close"} <= tools


@then("every step reports a summary and agent state, and every event carries the run's trace id")
def telemetry(runner: ExecRunner, spans: InMemorySpanExporter) -> None:
    record = runner.last
    trace_id = record.events[0].trace_id
    assert re.fullmatch(r"[0-9a-f]{32}", trace_id) and int(trace_id, 16) != 0
    assert all(e.trace_id == trace_id for e in record.events)
    for step in record.payloads(StepFinished):
        assert step.observation_summary, step.state_id
        assert step.agent_state.memory and step.agent_state.next_goal, step.state_id
    finished = spans.get_finished_spans()
    roots = [s for s in finished if s.name == "invoke_agent demo-quote"]
    assert len(roots) == 1 and format(roots[0].context.trace_id, "032x") == trace_id
    children = [s for s in finished if s.parent is not None and s.parent.span_id == roots[0].context.span_id]
    assert len(children) == len(record.payloads(StepFinished))
    assert Counter(c.attributes["verity.state.kind"] for c in children)["data.validate-target"] == 2
    assert roots[0].attributes["verity.stop_reason"] == "completed"


@then(parsers.parse("the blocked observation's evidence names the url and status {status}"))
def blocked_evidence(runner: ExecRunner, status: str) -> None:
    record = runner.last
    trip = next(t for t in record.payloads(GuardrailTripped) if t.guard == "data.validate-target")
    assert trip.evidence["url"]
    assert trip.evidence["status"] == (None if status == "none" else int(status))
    assert record.verdict.evidence["url"] == trip.evidence["url"]


@then("each replan was announced with a failure summary and recorded in plans.json")
def replans_recorded(runner: ExecRunner) -> None:
    record = runner.last
    replans = record.payloads(Replanned)
    assert replans and all("page_not_found" in r.failure_summary for r in replans)
    plans = record.file("plans.json")
    assert [r["query"] for r in plans["plan_repairs"]] == [r.query for r in replans]
    # The result names what the search page settled on after the reason, e.g. "(links stable)".
    assert all(r["result"].startswith("no untried result on an allowed domain") for r in plans["plan_repairs"])
    assert plans["last_failure_summary"]


@then("no page was opened twice")
def no_duplicates(runner: ExecRunner) -> None:
    opened = [t.summary for t in runner.last.payloads(ToolUsed) if t.tool == "open_url" and t.phase == "start"]
    assert len(opened) == len(set(opened)) and len(opened) >= 2
