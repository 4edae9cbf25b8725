"""Binds features/verdict_agent_pages.feature: the agent corpus (tests/fixtures/agent_corpus), each
case a scripted model on the loopback Gemini server driving a real run in Chromium."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.events import FinalVerdict
from runtime.execute.judges.page_blockers import detect_blocker
from tests.execute.conftest import ExecRunner, RunRecord
from tests.fixtures.agent_corpus.cases import CASES, CORPUS, RECIPE, model_turn
from tests.fixtures.agent_corpus.site import AgentCorpusSite
from tests.fixtures.gemini_server import GeminiServer
from tests.verdict.blocker_cases import CASES as BLOCKER_PAGES

scenarios("verdict_agent_pages.feature")

WRONG_VALUES = ("999.99", "618.10", "7.812")


@given("the agent corpus site", target_fixture="site")
def _site(corpus_site: AgentCorpusSite, gemini_env: dict[str, str]) -> AgentCorpusSite:
    return corpus_site


@when(parsers.parse('the agent corpus case "{case_id}" runs'), target_fixture="run")
def _run_case(case_id: str, site: AgentCorpusSite, gemini: GeminiServer, runner: ExecRunner, tmp_path: Path) -> dict[str, Any]:
    case = CASES[case_id]
    gemini.enqueue(*(model_turn(step, site) for step in case["model"]))
    inputs = {**site.inputs, **({"start": case["start"]} if case.get("start") else {})}
    recipe = CORPUS / case.get("recipe", RECIPE.name)
    if case.get("done_when"):
        # The case's own done_when for the recipe's agent step; the plan ends after that step.
        written = YAML(typ="safe").load(recipe.read_text(encoding="utf-8"))
        [agent] = [step for step in written["plan"] if "agent" in step]
        agent["agent"]["done_when"] = case["done_when"]
        written.pop("output", None)
        recipe = tmp_path / recipe.name
        recipe.write_text(json.dumps(written, ensure_ascii=False), encoding="utf-8")  # JSON is YAML
    record = runner.wait(runner.start(recipe, inputs), timeout=90)
    return {"case": case, "record": record, "requests": list(gemini.requests)}


def _verdict(record: RunRecord) -> FinalVerdict:
    assert record.verdict is not None
    return record.verdict


@then("the run ends as the case expects, with no value it did not validate")
def _ends_as_expected(run: dict[str, Any]) -> None:
    expect, record = run["case"]["expect"], run["record"]
    verdict = _verdict(record)
    kind = verdict.blocker_kind.value if verdict.blocker_kind else None
    assert (verdict.stop_reason.value, kind) == (expect["stop_reason"], expect["blocker_kind"]), verdict.summary
    output = record.file("output.json") if (record.run_dir / "output.json").exists() else {}
    if expect["output"] is not None:
        assert output.get("valid") is True and output.get("data") == expect["output"], output
    else:
        assert verdict.stop_reason.value != "completed"
        assert not output.get("valid"), output
    # A value read where it should not have been reaches no result: not output.json, not the
    # data the run kept, not a completed verdict's output (evidence may quote the page it refused).
    results = json.dumps(output) + json.dumps(verdict.evidence.get("output"), default=str)
    assert not any(wrong in results for wrong in WRONG_VALUES), results


@then("every page the model reached was judged, and the model was told each verdict")
def _pages_told(run: dict[str, Any]) -> None:
    requests = run["requests"]
    record: RunRecord = run["record"]
    reached = [r for r in record.file("executions.json") if r.get("kind") == "agent"]
    if not requests:
        # The page moved before the agent began: the plan's own check stopped the run there.
        assert not reached or all(not r.get("ok") for r in reached)
        return
    responses = requests[-1].function_responses()
    for response in responses:
        if response["name"] == "open_url":
            page = response["response"].get("page")
            assert isinstance(page, dict) and "valid" in page, response
            assert page["valid"] is (response["response"]["ok"] is True), response
    kind = run["case"]["expect"]["blocker_kind"]
    if kind is not None and len(requests) > 1:
        told = " ".join(json.dumps(r["response"]) for r in responses) + " ".join(requests[-1].user_texts())
        assert kind in told, told[:3000]


@then(parsers.parse("the done_when conditions that failed are {checks}"))
def _failed_checks(run: dict[str, Any], checks: str) -> None:
    [read] = [r for r in run["record"].file("executions.json") if r.get("state_id") == "read" and r.get("kind") == "agent"]
    failed = [condition["check"] for condition in read["evidence"]["failed"]]
    assert failed == checks.replace(" and ", ", ").split(", "), read["evidence"]["failed"]


@then(parsers.parse('the model was told "{code}"'))
def _told(run: dict[str, Any], code: str) -> None:
    told = [r["response"] for request in run["requests"] for r in request.function_responses()]
    assert any((response.get("error") or {}).get("code") == code for response in told), told


@then(parsers.parse('the verdict\'s provenance of "{field}" names the validated AU2606 quote page'))
def _provenance(run: dict[str, Any], field: str) -> None:
    record = _verdict(run["record"]).evidence["provenance"][field]
    assert record["state"] == "read" and record["document_validated"] is True, record
    assert record["document"]["url"].endswith("/quote/au2606.html"), record


@then("the value's source in the run's values names that page too")
def _source(run: dict[str, Any]) -> None:
    [output] = [r for r in run["record"].file("executions.json") if r.get("kind") == "output.validate"]
    source = output["evidence"]["sources"]["last"]
    assert source["state"] == "read" and source["url"].endswith("/quote/au2606.html"), source


# Plan steps on the corpus pages, by the words a scenario names them with: (extra allowed domains, steps).
PLAN_STEPS: dict[str, tuple[list[str], list[dict[str, Any]]]] = {
    "click Show more, then extract last": ([], [
        {"id": "more", "act": {"click": {"role": "button", "name": "Show more"}}},
        {"id": "read", "extract": {"fields": {"last": {"css": "[data-field=last]"}}}},
    ]),
    "click Send, then verify the URL matches collect": ([], [
        {"id": "send", "act": {"click": {"role": "button", "name": "Send"}}},
        {"id": "sent", "verify": [{"url_matches": "collect"}]},
    ]),
    # The partner frame is on localhost, another allowed origin: allowed, and still a login wall.
    "extract last inside the partner frame": (["localhost"], [
        {"id": "read", "extract": {"fields": {"last": {"css": "[data-field=last]", "frame": "#partner"}}}},
    ]),
}


@when(parsers.parse('the plan "{steps}" runs on "{start}"'), target_fixture="run")
def _plan_run(steps: str, start: str, site: AgentCorpusSite, runner: ExecRunner, tmp_path: Path) -> dict[str, Any]:
    domains, plan = PLAN_STEPS[steps]
    recipe = YAML(typ="safe").load(RECIPE.read_text(encoding="utf-8"))
    recipe["name"] = "plan-au2606"
    recipe["target"]["allowed_domains"] += domains
    recipe["tools"]["allow"] = ["open_url", "browser_snapshot", "browser_click", "browser_extract", "browser_verify", "close"]
    recipe["plan"] = [{"id": "open", "navigate": "{start_url}"}, *plan, {"close": {"summary": "read"}}]
    if not any("extract" in step for step in plan):
        del recipe["output"]
    path = tmp_path / "plan-au2606.yaml"
    path.write_text(json.dumps(recipe, ensure_ascii=False), encoding="utf-8")  # JSON is YAML
    return {"record": runner.wait(runner.start(path, {**site.inputs, "start": start}), timeout=90)}


@then(parsers.parse('the run ends "{stop_reason}" with blocker kind "{kind}" and no output'))
def _plan_ends(run: dict[str, Any], stop_reason: str, kind: str) -> None:
    verdict = _verdict(run["record"])
    assert (verdict.stop_reason.value, verdict.blocker_kind.value if verdict.blocker_kind else None) == (stop_reason, kind), verdict.summary
    record = run["record"]
    output = record.file("output.json") if (record.run_dir / "output.json").exists() else {}
    assert not output.get("valid") and "999.99" not in json.dumps(output), output


@then("the read was refused after the page was judged again")
def _judged_again(run: dict[str, Any]) -> None:
    [read] = [r for r in run["record"].file("executions.json") if r.get("state_id") == "read"]
    assert read["outcome"] == "blocked" and read["evidence"].get("judged_again") is True, read


@then("no model request holds the page's hidden text")
def _nothing_hidden(run: dict[str, Any]) -> None:
    assert run["requests"], "the model was never asked"
    for request in run["requests"]:
        sent = json.dumps(request.body, ensure_ascii=False)
        assert "Assistant instructions" not in sent and "System note" not in sent, sent[:3000]


@when(parsers.parse('the labelled blocker page "{page}" is judged'), target_fixture="finding")
def _judge_labelled(page: str) -> dict[str, Any]:
    [case] = [case for case in BLOCKER_PAGES if case.id == page]
    return {"finding": detect_blocker(case.page, expected_status=case.expected_status), "label": case.kind}


@then(parsers.parse('the page is judged "{kind}"'))
def _judged_as(finding: dict[str, Any], kind: str) -> None:
    found = finding["finding"]
    assert (found.kind.value if found else "none") == kind == (finding["label"].value if finding["label"] else "none"), found
