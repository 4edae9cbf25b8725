"""Binds features/execute_refused_data.feature: an agent step's scripted model (on the loopback
Gemini server) or a plan's `type` and `click` acts send a token from the agent corpus's probe
pages, in a real run in Chromium behind the session's policy proxy; the escaped values are the
judge's own cases, on request bodies as the tab's watch reports them."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit
from typing import Any

from pytest_bdd import given, parsers, scenarios, then, when
from ruamel.yaml import YAML

from runtime.browser.tab.sent_requests import SentRequest
from runtime.execute.judges.sent_data import carried_values, normal
from runtime.outcomes import BlockerKind
from runtime.secrets import marker
from tests.execute.conftest import ExecRunner, RunRecord
from tests.fixtures.agent_corpus.cases import CORPUS
from tests.fixtures.agent_corpus.site import AgentCorpusSite
from tests.fixtures.gemini_server import GeminiServer
from tests.fixtures.model_wire import function_call_reply

scenarios("execute_refused_data.feature")

TOKEN = "tok-7731"


@given("the agent corpus site", target_fixture="site")
def _site(corpus_site: AgentCorpusSite, gemini_env: dict[str, str]) -> AgentCorpusSite:
    return corpus_site


def _run(recipe: dict[str, Any], inputs: dict[str, str], runner: ExecRunner, tmp_path: Path, *, secret: bool = False) -> dict[str, Any]:
    path = tmp_path / f"{recipe['name']}.yaml"
    path.write_text(json.dumps(recipe, ensure_ascii=False), encoding="utf-8")  # JSON is YAML
    return {"record": runner.wait(runner.start(path, inputs), timeout=90), "secret": secret}


@when(parsers.parse('the agent model types a token on "{page}" and sends it'), target_fixture="run")
def _agent_sends(page: str, site: AgentCorpusSite, gemini: GeminiServer, runner: ExecRunner, tmp_path: Path) -> dict[str, Any]:
    gemini.enqueue(
        function_call_reply("browser_type", {"target": "label=Token", "text": TOKEN}),
        function_call_reply("browser_click", {"target": {"role": "button", "name": "Send"}}),
        # The page says so only once its request ended: the close is judged on the page's word.
        function_call_reply("browser_wait_for", {"text": "Thank you"}),
        function_call_reply("close", {"summary": "sent"}),
    )
    recipe = YAML(typ="safe").load((CORPUS / "agent-form.yaml").read_text(encoding="utf-8"))
    recipe["tools"]["allow"] += ["browser_type", "browser_wait_for"]
    return _run(recipe, {**site.inputs, "start": page}, runner, tmp_path)


@when(parsers.parse('the plan step types a {what} on "{page}" and sends it'), target_fixture="run")
def _plan_sends(what: str, page: str, site: AgentCorpusSite, runner: ExecRunner, tmp_path: Path) -> dict[str, Any]:
    recipe = YAML(typ="safe").load((CORPUS / "plan-form.yaml").read_text(encoding="utf-8"))
    secret = what == "secret token"
    if secret:
        recipe["inputs"]["token"] = {"description": "a token to keep secret", "secret": True}
    return _run(recipe, {**site.inputs, "start": page, "token": TOKEN}, runner, tmp_path, secret=secret)


@then(parsers.parse('the run ends "{stop_reason}" with blocker kind "{kind}"'))
def _ends(run: dict[str, Any], stop_reason: str, kind: str) -> None:
    verdict = run["record"].verdict
    assert verdict is not None
    assert (verdict.stop_reason.value, verdict.blocker_kind.value if verdict.blocker_kind else None) == (stop_reason, kind), verdict.summary


@then(parsers.parse("the step's evidence names the refused {method} request and the token it carried"))
def _evidence(run: dict[str, Any], method: str) -> None:
    [send] = [r for r in run["record"].file("executions.json") if r.get("state_id") == "send" and r.get("outcome") == "blocked"]
    [refused] = send["evidence"]["refused_data"]
    shown = marker("token") if run["secret"] else TOKEN
    assert refused["method"] == method and refused["carried"] == [{"value": shown, "in": "body" if method == "POST" else "url"}], refused
    assert refused["url"].startswith("http://localhost:") and "/collect" in refused["url"], refused
    assert refused["blocker_kind"] == "domain_not_allowed" and refused["resource_type"] == "Fetch", refused


@then("the run completes, and the fence refused the pixel")
def _completes(run: dict[str, Any]) -> None:
    record: RunRecord = run["record"]
    assert record.verdict is not None and record.verdict.stop_reason.value == "completed", record.verdict
    refused = record.file("verdict.json")["blocked_requests"]["samples"]
    assert any("/pixel.gif" in sample["target"] for sample in refused), refused


@then("no file of the run holds the secret's value")
def _no_secret(run: dict[str, Any]) -> None:
    for path in run["record"].run_dir.rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path


@then("the step's evidence names the refused requests of the dedicated, shared and service workers, each with the token")
def _workers_evidence(run: dict[str, Any]) -> None:
    [send] = [r for r in run["record"].file("executions.json") if r.get("state_id") == "send" and r.get("outcome") == "blocked"]
    refused = {urlsplit(r["url"]).path: r for r in send["evidence"]["refused_data"]}
    assert set(refused) == {"/collect/dedicated", "/collect/shared", "/collect/service"}, refused
    assert all(r["carried"] == [{"value": TOKEN, "in": "url" if path.endswith("shared") else "body"}] for path, r in refused.items()), refused


@given(parsers.parse('a plan step typed "{typed}"'), target_fixture="typed")
def _typed(typed: str) -> str:
    return typed


@when(parsers.parse("the fence refuses a POST whose body is {body}"), target_fixture="carried")
def _refused_body(typed: str, body: str) -> dict[str, dict[str, str]]:
    send = SentRequest("t1", "f1", "r1", "http://localhost:9/collect", "POST", "Fetch", body, BlockerKind.DOMAIN_NOT_ALLOWED, "not allowed", "judge", 0.0)
    return carried_values(send, {normal(typed): typed})


@then(parsers.parse("the refused request carried the typed value {where}"))
def _carried(typed: str, carried: dict[str, dict[str, str]], where: str) -> None:
    expected = {} if where == "nowhere" else {normal(typed): {"value": typed, "in": "body"}}
    assert carried == expected, carried
