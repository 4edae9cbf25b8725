"""Binds features/execute_repair.feature: a step's repair on the real Chromium, with the real
google-genai client talking to the scripted Gemini server on loopback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pytest_bdd import given, parsers, scenarios, then, when
from ruamel.yaml import YAML

from runtime.events import StatusChanged, StepFinished, TabChanged
from runtime.plan import prepare_run
from runtime.plan.switches import SwitchInvalid
from runtime.recipe import load_recipe_file
from tests.execute.conftest import recipe_path
from tests.execute.conftest import ExecRunner, RunRecord
from tests.fixtures.agent_corpus.cases import CASES, CORPUS, RECIPE, model_turn
from tests.fixtures.agent_corpus.site import AgentCorpusSite
from tests.fixtures.gemini_server import GeminiServer, function_call_reply
from tests.fixtures.site_server import FixtureSite

scenarios("execute_repair.feature", "execute_switches.feature")


def _click(css: str) -> Any:
    return function_call_reply("browser_click", {"target": {"css": css}})


@given(parsers.parse('the repairing model will click the element with css "{css}" and close'))
def repairer_clicks(gemini: GeminiServer, css: str) -> None:
    gemini.enqueue(_click(css), function_call_reply("close", {"summary": "saved"}))


@given(parsers.parse('the repairing model will only close saying "{summary}"'))
def repairer_only_closes(gemini: GeminiServer, summary: str) -> None:
    gemini.enqueue(function_call_reply("close", {"summary": summary}))


@given(parsers.parse('the step\'s model will click the element with css "{css}" {times:d} times'))
def step_model_clicks(gemini: GeminiServer, css: str, times: int) -> None:
    gemini.enqueue(*(_click(css) for _ in range(times)))


@given(parsers.parse('the step\'s model will then close saying "{summary}"'))
def step_model_closes(gemini: GeminiServer, summary: str) -> None:
    gemini.enqueue(function_call_reply("close", {"summary": summary}))


@given("no model is configured")
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)


@when(parsers.parse('I run "{name}" against the fixture site'), target_fixture="spans")
def run_on_fixture(runner: ExecRunner, fixture_site: FixtureSite, name: str) -> InMemorySpanExporter:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    runner.run(name, {"site": fixture_site.base_url}, tracer_provider=provider)
    return exporter


def _repair_record(record: RunRecord, step: str) -> dict[str, Any]:
    [repair] = [r for r in record.file("executions.json") if r["state_id"] == f"{step}.repair"]
    return repair


@then(parsers.parse('"{step}" was repaired from "{trigger}" in {attempts:d} attempt by its own conditions'))
def repaired(runner: ExecRunner, gemini: GeminiServer, step: str, trigger: str, attempts: int) -> None:
    record = runner.last
    assert not gemini.script_failures, gemini.script_failures
    executions = record.file("executions.json")
    failed = [r for r in executions if r["state_id"] == step]
    assert failed and failed[0]["ok"] is False, failed
    repair = _repair_record(record, step)
    assert (repair["kind"], repair["outcome"], repair["ok"], repair["verified"]) == ("repair", "repaired", True, True), repair
    evidence = repair["evidence"]
    assert (evidence["repairs"], evidence["trigger"], len(evidence["attempts"])) == (step, trigger, attempts)
    # The judge is the step's own condition, read from the page, not the agent's close.
    [check] = evidence["attempts"][-1]["conditions"]
    assert (check["check"], check["passed"]) == ("text_includes", True) and "Saved!" in str(check["observed"]), check
    assert record.verdict.verified is True
    assert gemini.pending == 0, "every scripted turn was used"


@then(parsers.parse('the repairing model was briefed on "{step}" failing with "{trigger}"'))
def briefed(gemini: GeminiServer, step: str, trigger: str) -> None:
    opening = gemini.requests[0].user_texts()[0]
    assert f"Step {step} (act) meant to:" in opening and f"It failed with {trigger}:" in opening, opening
    assert "#old-save" in opening and "Blocker kind: none" in opening and "Evidence: {" in opening, opening
    # The tools the step's guards allow, no others: the recipe names none, so the default set.
    declared = {d["name"] for d in gemini.requests[0].body["tools"][0]["functionDeclarations"]}
    assert {"browser_click", "close"} <= declared and "browser_evaluate" not in declared, declared


@then("the repair is recorded in the events, the span and the report")
def recorded(runner: ExecRunner, spans: InMemorySpanExporter) -> None:
    record = runner.last
    [attempt] = [s for s in record.payloads(StepFinished) if s.step_kind == "repair.attempt"]
    assert (attempt.state_id, attempt.outcome, attempt.verified) == ("save.repair", "repaired", True), attempt
    [state] = [s for s in record.payloads(StepFinished) if s.step_kind == "repair"]
    assert state.outcome == "repaired" and "repaired save (execute_error)" in state.observation_summary
    [span] = [s for s in spans.get_finished_spans() if s.name == "verity.state repair"]
    attributes = dict(span.attributes or {})
    assert (attributes["verity.repair.trigger"], attributes["verity.repair.attempts"], attributes["verity.repair.repaired"]) == ("execute_error", 1, True)
    report = (record.run_dir / "report.html").read_text(encoding="utf-8")
    assert "save.repair" in report and "repaired save (execute_error)" in report


@then(parsers.parse("the verdict carries the repair's evidence: {attempts:d} attempt, not repaired"))
def not_repaired(runner: ExecRunner, gemini: GeminiServer, attempts: int) -> None:
    verdict = runner.last.verdict
    assert verdict.verified is False
    assert "not repaired in 1 attempt(s)" in verdict.summary and "Saved!" in verdict.summary, verdict.summary
    repair = verdict.evidence["repair"]
    assert (repair["trigger"], len(repair["attempts"]), repair["attempts"][0]["repaired"]) == ("verification_failed", attempts, False)
    # The agent said it was done; the page said otherwise, and the page decided.
    assert repair["attempts"][0]["agent_outcome"] == "unverified", repair
    assert _repair_record(runner.last, "saved")["outcome"] == "verification_failed"
    assert not gemini.script_failures


@when(parsers.parse('the agent corpus case "{case_id}" runs with repair on every trigger'), target_fixture="run")
def corpus_case_with_repair(case_id: str, corpus_site: AgentCorpusSite, gemini: GeminiServer, gemini_env: dict[str, str], runner: ExecRunner, tmp_path: Path) -> dict[str, Any]:
    case = CASES[case_id]
    recipe = YAML(typ="safe").load((CORPUS / case.get("recipe", RECIPE.name)).read_text(encoding="utf-8"))
    recipe["repair"] = {"with": "agent"}
    path = tmp_path / f"{recipe['name']}.yaml"
    path.write_text(json.dumps(recipe, ensure_ascii=False), encoding="utf-8")  # JSON is YAML
    gemini.enqueue(*(model_turn(step, corpus_site) for step in case["model"]))
    inputs = {**corpus_site.inputs, **({"start": case["start"]} if case.get("start") else {})}
    return {"case": case, "record": runner.wait(runner.start(path, inputs), timeout=90)}


@given("the agent corpus site")
def corpus(corpus_site: AgentCorpusSite) -> None:
    pass


@then(parsers.parse('the run ends "{reason}" with blocker "{blocker}", no repair ran and the model was asked only by the step'))
def no_repair(run: dict[str, Any], gemini: GeminiServer, reason: str, blocker: str) -> None:
    record: RunRecord = run["record"]
    verdict = record.verdict
    assert (verdict.stop_reason.value, verdict.blocker_kind.value if verdict.blocker_kind else None) == (reason, blocker), verdict.summary
    plan = record.file("plans.json")["plan"]
    assert any(s["kind"] == "repair" for s in plan["states"]), "the step has its repair in the plan"
    assert not [r for r in record.file("executions.json") if r["kind"] == "repair"]
    assert len(gemini.requests) == len(run["case"]["model"]) and gemini.pending == 0


@then("the repair state says no model is configured, and nothing else changed")
def no_model_repair(runner: ExecRunner, gemini: GeminiServer) -> None:
    record = runner.last
    repair = _repair_record(record, "save")
    assert (repair["outcome"], repair["error"]) == ("execute_error", "no_model") and "no model is configured" in repair["observation_summary"]
    assert not gemini.requests
    assert "not repaired" not in record.verdict.summary and "repair" not in record.verdict.evidence


# ---------------------------------------------------------------------- switches


@when(parsers.parse('I run "{name}" against the fixture site with the switch "{switch}"'))
def run_with_switch(runner: ExecRunner, fixture_site: FixtureSite, name: str, switch: str) -> None:
    key, _, value = switch.partition("=")
    runner.run(name, {"site": fixture_site.base_url}, switches={key: value})


@then(parsers.parse('the run\'s events and verdict record the switch "{name}" as off'))
def switch_recorded(runner: ExecRunner, name: str) -> None:
    record = runner.last
    running = [s for s in record.payloads(StatusChanged) if s.status.value == "running"]
    assert running[0].detail == f"switches: {name}=off", running
    assert record.verdict.evidence["switches"] == {name: False}, record.verdict.evidence
    assert record.file("verdict.json")["switches"][name] is False
    assert record.file("order.json")["switches"] == {name: "off"}


@then(parsers.parse('the repair of "{step}" says the auto_repair switch is off, and the model was never asked'))
def auto_repair_off(runner: ExecRunner, gemini: GeminiServer, step: str) -> None:
    repair = _repair_record(runner.last, step)
    assert (repair["outcome"], repair["error"]) == ("execute_error", "auto_repair_off"), repair
    assert not gemini.requests


@then(parsers.parse('the act "{step}" counted by the lenient verify switch'))
def lenient_act(runner: ExecRunner, step: str) -> None:
    [act] = [r for r in runner.last.file("executions.json") if r["state_id"] == step]
    assert (act["outcome"], act["verified"], act["evidence"]["verify"]) == ("verified", True, "lenient"), act
    # The page saw no effect of the click's own: strict verification would have failed it.
    assert [(c["check"], c["passed"]) for c in act["evidence"]["checks"]] == [("own_effect", False)]


@then(parsers.parse('the verdict records the verify switch as lenient for "{kind}"'))
def verify_switch_recorded(runner: ExecRunner, kind: str) -> None:
    record = runner.last
    assert record.verdict.evidence["switches"] == {"verify": {"lenient": [kind]}}
    running = [s for s in record.payloads(StatusChanged) if s.status.value == "running"]
    assert running[0].detail == f"switches: verify=lenient:{kind}"


@then(parsers.parse('the verify step "{verify}" judged the new tab, which became primary after "{act}"'))
def followed_tab(runner: ExecRunner, verify: str, act: str) -> None:
    record = runner.last
    executions = record.file("executions.json")
    [acted] = [r for r in executions if r["state_id"] == act]
    [judged] = [r for r in executions if r["state_id"] == verify]
    opened = [c["tab_id"] for c in acted["tab_changes"] if c["change"] == "opened"]
    # The walker made it primary as the act ended: the event names the act, before the verify began.
    changes = [(c.change, c.tab_id, c.state_id) for c in record.payloads(TabChanged) if c.change in ("opened", "primary")]
    assert len(opened) == 1 and changes == [("opened", opened[0], act), ("primary", opened[0], act)], changes
    assert judged["tab_id"] == opened[0] and judged["ok"] is True, judged


@when(parsers.parse('I prepare a run of "{name}" with the switch "{switch}"'), target_fixture="refusal")
def prepare_with_switch(name: str, switch: str) -> str:
    key, _, value = switch.partition("=")
    with pytest.raises(SwitchInvalid) as refused:
        prepare_run(load_recipe_file(recipe_path(name)), {"site": "http://127.0.0.1:9"}, switches={key: value})
    return str(refused.value)


@then("it is refused, naming the switches there are")
def refused_switch(refusal: str) -> None:
    assert refusal == "unknown switch 'no_progess': the switches are no_progress, auto_repair, sticky_tab, verify, cache", refusal
