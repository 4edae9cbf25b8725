"""Binds features/execute_agent.feature: agent steps on the shared Chromium, with the real
google-genai client talking to the scripted Gemini server on loopback."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.demo import DemoSite
from runtime.events import ChatDelta, ConfirmationRequested, GuardrailTripped, StatusChanged, StepStarted, StructuredOutput, ToolUsed
from runtime.execute.agent.offered_tools import NUDGE
from runtime.outcomes import TaskState
from tests.execute.conftest import RECIPES, ExecRunner, span_tree, wait_until
from tests.fixtures.gemini_fixtures import FIXTURE_API_KEY
from tests.fixtures.gemini_server import GeminiServer, RecordedRequest, ScriptedReply, error_reply, function_call_reply, text_reply
from tests.fixtures.site_server import FixtureSite

scenarios("execute_agent.feature")

WILL = r"the model will (?:first|then),? "
# The largest functionResponse a model may get back: results are summaries, never pages.
COMPACT_RESPONSE_CHARS = 2000


def link_refs(request: RecordedRequest, name: str) -> list[str]:
    """Refs of links named `name...` in the snapshots of the model's prompt, oldest first."""
    refs = re.findall(r"link \"" + re.escape(name) + r"[^\n]*?\[ref=(s\d+:(?:f\d+)?e\d+)\]", request.system_instruction)
    assert refs, f"no link {name!r} in the prompt:\n{request.system_instruction}"
    return refs


# ---------------------------------------------------------------------- the scripted model


@given(parsers.re(WILL + r"only say (?P<chunks>\"[^\"]*\"(?: \"[^\"]*\")*)$"))
def will_say(gemini: GeminiServer, chunks: str) -> None:
    gemini.enqueue(text_reply(*re.findall(r'"([^"]*)"', chunks)))


@given(parsers.re(WILL + r"take a snapshot$"))
def will_snapshot(gemini: GeminiServer) -> None:
    gemini.enqueue(function_call_reply("browser_snapshot", {}))


@given(parsers.re(WILL + r"say \"(?P<text>[^\"]*)\" and click the \"(?P<name>[^\"]*)\" link by its ref$"))
def will_click_ref(gemini: GeminiServer, text: str, name: str) -> None:
    def turn(request: RecordedRequest) -> ScriptedReply:
        return function_call_reply("browser_click", {"target": {"ref": link_refs(request, name)[-1]}}, text_before=text)

    gemini.enqueue(turn)


@given(parsers.re(WILL + r"click the \"(?P<name>[^\"]*)\" link by its ref from the older snapshot$"))
def will_click_old_ref(gemini: GeminiServer, name: str) -> None:
    def turn(request: RecordedRequest) -> ScriptedReply:
        # <page> shows only the latest tree: the older ref is the one an earlier request showed.
        older, latest = link_refs(gemini.requests[0], name)[-1], link_refs(request, name)[-1]
        assert older != latest
        return function_call_reply("browser_click", {"target": {"ref": older}})

    gemini.enqueue(turn)


@given(parsers.re(WILL + r"seeing the error \"(?P<code>[^\"]*)\", take a snapshot$"))
def will_recover(gemini: GeminiServer, code: str) -> None:
    def turn(request: RecordedRequest) -> ScriptedReply:
        last = request.function_responses()[-1]
        assert last["name"] == "browser_click" and last["response"]["ok"] is False, last
        assert last["response"]["error"]["code"] == code and "snapshot" in last["response"]["error"]["message"], last
        return function_call_reply("browser_snapshot", {})

    gemini.enqueue(turn)


@given(parsers.re(WILL + r"open \"(?P<url>[^\"]*)\"$"))
def will_open(gemini: GeminiServer, url: str) -> None:
    gemini.enqueue(function_call_reply("open_url", {"url": url}))


@given(parsers.re(WILL + r"seeing the error \"(?P<code>[^\"]*)\", open the gold quote page on the quote host$"))
def will_open_quote(gemini: GeminiServer, code: str) -> None:
    def turn(request: RecordedRequest) -> ScriptedReply:
        last = request.function_responses()[-1]
        assert last["name"] == "open_url" and last["response"]["error"]["code"] == code, last
        port = re.search(r"url: http://localhost:(\d+)/", request.system_instruction)
        assert port, request.system_instruction
        return function_call_reply("open_url", {"url": f"http://127.0.0.1:{port.group(1)}/quotes/gold"})

    gemini.enqueue(turn)


@given(parsers.re(WILL + r"close saying \"(?P<summary>[^\"]*)\"$"))
def will_close(gemini: GeminiServer, summary: str) -> None:
    gemini.enqueue(function_call_reply("close", {"summary": summary}))


@given(parsers.re(WILL + r"call \"browser_extract\" to read the heading$"))
def will_extract(gemini: GeminiServer) -> None:
    gemini.enqueue(function_call_reply("browser_extract", {"fields": [{"name": "heading", "target": {"css": "h1"}}]}))


@given(parsers.re(WILL + r"call \"(?P<tool>[^\"]*)\" on the text \"(?P<text>[^\"]*)\"$"))
def will_call_on_text(gemini: GeminiServer, tool: str, text: str) -> None:
    gemini.enqueue(function_call_reply(tool, {"target": {"text": text}}))


@given(parsers.re(WILL + r"click the element with css \"(?P<css>[^\"]*)\" (?P<times>\d+) times$"))
def will_click_repeatedly(gemini: GeminiServer, css: str, times: str) -> None:
    for _ in range(int(times)):
        gemini.enqueue(function_call_reply("browser_click", {"target": {"css": css}}))


@given(parsers.re(WILL + r"fail with HTTP (?P<status>\d+)$"))
def will_fail(gemini: GeminiServer, status: str) -> None:
    gemini.enqueue(error_reply(int(status), "the model is overloaded", "UNAVAILABLE"))


@given("every log record is captured")
def capture_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # the root and every library logger that propagates: google_genai, httpx, ...


@given("the environment holds no Gemini API key")
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)


# ---------------------------------------------------------------------- runs


@when(parsers.parse('I run "{name}" against the demo site'))
def run_on_demo(runner: ExecRunner, demo_site: DemoSite, gemini: GeminiServer, name: str) -> None:
    runner.run(name, {"site": demo_site.quote_base, "search_site": demo_site.search_base})
    assert not gemini.script_failures, gemini.script_failures


@when(parsers.parse('I run "{name}" against the fixture site'))
def run_on_fixture(runner: ExecRunner, fixture_site: FixtureSite, gemini: GeminiServer, name: str) -> None:
    runner.run(name, {"site": fixture_site.base_url})
    assert not gemini.script_failures, gemini.script_failures


@when(parsers.parse('I start "{name}" against the demo site'))
def start_on_demo(runner: ExecRunner, demo_site: DemoSite, name: str) -> None:
    runner.start(name, {"site": demo_site.quote_base, "search_site": demo_site.search_base})


@when(parsers.parse('I deny the pending request because "{reason}"'))
def deny(runner: ExecRunner, reason: str) -> None:
    record = runner.last
    request = runner.call(record.handle.pending_confirmations)[0]
    assert runner.call(record.handle.confirm, request.request_id, False, reason) is True
    runner.wait(record)
    assert reason in record.verdict.summary


# ---------------------------------------------------------------------- outcomes


@then(parsers.parse("the output price is {price:g}"))
def output_price(runner: ExecRunner, price: float) -> None:
    output = runner.last.file("output.json")
    assert output["valid"] is True and output["data"]["price"] == price


@then(parsers.parse('the agent step "{state_id}" verified after {count:d} turns'))
def agent_verified(runner: ExecRunner, state_id: str, count: int) -> None:
    steps = runner.last.steps(state_id)
    [agent] = [s for s in steps if s.step_kind == "agent"]
    assert (agent.outcome, agent.ok, agent.verified) == ("verified", True, True), agent
    turns = [s for s in steps if s.step_kind == "agent.turn"]
    assert [t.outcome for t in turns] == ["no_tool_call", "ok", "ok", "closed"]
    [record] = [r for r in runner.last.file("executions.json") if r["state_id"] == state_id]
    assert [t["turn"] for t in record["agent_turns"]] == list(range(1, count + 1))
    assert [c["passed"] for c in record["evidence"]["conditions"]] == [True, True]


@then(parsers.re(r"the chat deltas were (?P<chunks>.*)$"))
def chat_deltas(runner: ExecRunner, chunks: str) -> None:
    assert [d.text for d in runner.last.payloads(ChatDelta)] == re.findall(r'"([^"]*)"', chunks)


@then(parsers.parse('the turns\' agent states show the thinking and the tool call "{tool}"'))
def turn_states(runner: ExecRunner, tool: str) -> None:
    turns = [s for s in runner.last.steps("find") if s.step_kind == "agent.turn"]
    assert turns[0].agent_state.thinking == "Let me look at the results."
    assert turns[0].agent_state.next_goal == "answer with a tool call"
    [click] = [t for t in turns if t.agent_state.next_goal.startswith(tool)]
    assert click.agent_state.thinking == "The live quote is the third result."
    assert re.search(r'"ref": "s\d+:e', click.agent_state.next_goal) and click.ok
    assert "turn 3/6 of find" in click.agent_state.memory


@then("each tool call was reported as started and succeeded")
def tool_phases(runner: ExecRunner) -> None:
    used = runner.last.payloads(ToolUsed)
    for tool in ("browser_snapshot", "browser_click"):
        assert [u.phase for u in used if u.tool == tool] == ["start", "success"], tool
    # The model's close ends the agent step; the recipe's own close step follows it.
    closes = [u for u in used if u.tool == "close"]
    assert [u.phase for u in closes] == ["start", "success", "start", "success"]
    assert closes[0].summary == "Opened the gold quote" and closes[1].summary == "2/2 done_when condition(s) passed"


@then("the model was nudged once and saw the snapshot's refs in its prompt")
def model_view(gemini: GeminiServer) -> None:
    requests = gemini.requests
    assert len(requests) == 4
    nudges = [part.get("text") for c in requests[-1].body["contents"] for part in c["parts"] if part.get("text") == NUDGE]
    assert len(nudges) == 1
    # The page tree is in every prompt; the model's own snapshot (turn 2) wrote a new one.
    assert "[snapshot s1]" in requests[0].system_instruction and "[snapshot s1]" in requests[1].system_instruction
    assert "[snapshot s2]" in requests[2].system_instruction and "[snapshot s1]" not in requests[2].system_instruction
    declared = {d["name"] for d in requests[0].body["tools"][0]["functionDeclarations"]}
    assert declared == {"browser_navigate", "browser_snapshot", "browser_click", "browser_extract", "browser_verify", "close"}  # open_url: its new name
    assert all(r.model == "gemini-fixture-flash" for r in requests)


@then(parsers.parse('the verdict lists the failed conditions "{first}" and "{second}"'))
def failed_conditions(runner: ExecRunner, first: str, second: str) -> None:
    verdict = runner.last.verdict
    assert [c["check"] for c in verdict.evidence["failed_conditions"]] == [first, second]
    assert first in verdict.summary and second in verdict.summary
    assert verdict.verified is False


@then(parsers.parse('the guardrail "{guard}" tripped for the model\'s "{tool}"'))
def guard_tripped(runner: ExecRunner, guard: str, tool: str) -> None:
    record = runner.last
    [trip] = [t for t in record.payloads(GuardrailTripped) if t.guard == guard]
    assert trip.evidence["tool"] == tool
    assert [(u.tool, u.phase) for u in record.payloads(ToolUsed) if u.tool == tool] == [(tool, "blocked")]
    assert tool in record.verdict.summary


@then(parsers.parse('no "{action}" action ran'))
def no_action(runner: ExecRunner, action: str) -> None:
    assert not [u for u in runner.last.payloads(ToolUsed) if u.tool == action and u.phase == "start"]


@then(parsers.parse('the run waits for confirmation of the model\'s "{tool}"'))
def waits_for_confirmation(runner: ExecRunner, tool: str) -> None:
    record = runner.last
    assert wait_until(lambda: bool(runner.call(record.handle.pending_confirmations)))
    [pending] = runner.call(record.handle.pending_confirmations)
    assert pending.tool == tool and re.fullmatch(r"s\d+:e\d+", pending.params["target"]["ref"])
    assert record.payloads(ConfirmationRequested)[0].request_id == pending.request_id
    assert record.payloads(StatusChanged)[-1].status is TaskState.WAITING_FOR_USER_CONFIRMATION
    assert not [u for u in record.payloads(ToolUsed) if u.tool == "act"], "the click must wait for the answer"


@then(parsers.parse("the model was asked {count:d} times"))
def asked(gemini: GeminiServer, count: int) -> None:
    assert len(gemini.requests) == count


@then(parsers.parse("the verdict says the model used all {turns:d} turns"))
def used_all_turns(runner: ExecRunner, turns: int) -> None:
    assert f"used all {turns} turns" in runner.last.verdict.summary


@then("every function response the model got was compact")
def compact_responses(gemini: GeminiServer) -> None:
    responses = gemini.requests[-1].function_responses()
    assert [r["name"] for r in responses] == ["browser_snapshot", "browser_snapshot", "browser_click", "browser_snapshot", "browser_click"]
    assert [r["response"]["ok"] for r in responses] == [True, True, False, True, True]
    for response in responses:
        assert len(json.dumps(response)) < COMPACT_RESPONSE_CHARS, response


@then(parsers.parse('the verdict says to set "{first}" or "{second}"'))
def says_set_key(runner: ExecRunner, first: str, second: str) -> None:
    summary = runner.last.verdict.summary
    assert first in summary and second in summary and "find" in summary, summary


@then(parsers.parse('no state ran after "{state_id}"'))
def nothing_after(runner: ExecRunner, state_id: str) -> None:
    assert [s.state_id for s in runner.last.payloads(StepStarted)] == [state_id]
    assert not runner.last.payloads(ToolUsed)


@then(parsers.parse('the agent step "{state_id}" failed with the model error "{code}"'))
def model_error(runner: ExecRunner, state_id: str, code: str) -> None:
    [agent] = [s for s in runner.last.steps(state_id) if s.step_kind == "agent"]
    assert (agent.outcome, agent.error) == ("error", code)
    [record] = [r for r in runner.last.file("executions.json") if r["state_id"] == state_id]
    assert record["evidence"]["llm_error"]["code"] == code and record["evidence"]["llm_error"]["status"] == 503
    assert runner.last.verdict.evidence["llm_error"]["code"] == code


@then(parsers.parse('a structured error output reported "{code}"'))
def structured_error(runner: ExecRunner, code: str) -> None:
    [output] = runner.last.payloads(StructuredOutput)
    assert output.valid is False and output.data["status"] == "error" and output.data["error"]["code"] == code


# ---------------------------------------------------------------------- verity run, trace.jsonl, the key


@when(parsers.parse('I run "verity run" on "{name}" against the demo site with the key in its environment'), target_fixture="command")
def run_cli(demo_site: DemoSite, gemini: GeminiServer, tmp_path: Path, name: str) -> dict[str, Any]:
    out = tmp_path / "run"
    args = ["run", str(RECIPES / f"{name}.yaml"), "-i", f"site={demo_site.quote_base}", "-i", f"search_site={demo_site.search_base}", "--out", str(out)]
    done = subprocess.run([sys.executable, "-m", "runtime.cli.main", *args], capture_output=True, text=True, timeout=60, cwd=tmp_path, env=dict(os.environ))
    assert not gemini.script_failures, gemini.script_failures
    return {"code": done.returncode, "stdout": done.stdout, "stderr": done.stderr, "run_dir": out}


@then("the command exits 0 and names its trace file")
def cli_ok(command: dict[str, Any]) -> None:
    assert command["code"] == 0, (command["stdout"][-2000:], command["stderr"][-2000:])
    assert f"trace:   {command['run_dir'] / 'trace.jsonl'}" in command["stdout"]


@then(parsers.parse('the trace is one tree of spans rooted at "{root}" with the trace id of the events'))
def trace_tree(command: dict[str, Any], root: str) -> None:
    spans = span_tree(command["run_dir"])
    assert spans[-1].name == root and spans[-1].status == "OK"
    executed = json.loads((command["run_dir"] / "verdict.json").read_text(encoding="utf-8"))["executed_states"]
    assert len([s for s in spans if s.name.startswith("verity.state ")]) == executed


@then(parsers.parse('the trace has {count:d} "{name}" spans under the span of state "{state_id}"'))
def turn_spans(command: dict[str, Any], count: int, name: str, state_id: str) -> None:
    spans = span_tree(command["run_dir"])
    [state] = [s for s in spans if s.attributes.get("verity.state.id") == state_id and s.name.startswith("verity.state ")]
    turns = sorted((s for s in spans if s.name == name), key=lambda s: s.attributes["verity.agent.turn"])
    assert len(turns) == count and all(t.parent_span_id == state.span_id for t in turns)
    assert [t.attributes["verity.agent.tool"] for t in turns] == ["browser_snapshot", "browser_click", "close"]
    # Each turn holds its model call and the tool call the model made.
    for turn in turns:
        inside = [s for s in spans if s.parent_span_id == turn.span_id]
        assert [s.name for s in inside] == ["chat gemini-fixture-flash", f"execute_tool {turn.attributes['verity.agent.tool']}"], inside


@then("the API key appears in no log record, event or run file")
def key_not_logged(runner: ExecRunner, gemini: GeminiServer, caplog: pytest.LogCaptureFixture) -> None:
    assert gemini.requests[0].headers["x-goog-api-key"] == FIXTURE_API_KEY  # it was there to leak
    assert caplog.records, "the scenario must have captured the client's debug logs"
    logged = "\n".join(f"{r.name} {r.getMessage()} {r.args!r} {r.exc_text or ''}" for r in caplog.records)
    assert FIXTURE_API_KEY not in logged
    assert FIXTURE_API_KEY not in json.dumps([e.to_dict() for e in runner.last.events], default=str)
    for path in runner.last.run_dir.rglob("*"):
        if path.is_file():
            assert FIXTURE_API_KEY.encode() not in path.read_bytes(), path


@then("the API key appears in no event, run file, trace or command output")
def key_nowhere(command: dict[str, Any], gemini: GeminiServer) -> None:
    key = FIXTURE_API_KEY.encode()
    assert gemini.requests and all(r.headers["x-goog-api-key"] == FIXTURE_API_KEY for r in gemini.requests)
    files = [p for p in command["run_dir"].rglob("*") if p.is_file()]
    assert {"events.jsonl", "trace.jsonl", "executions.json", "verdict.json", "plans.json", "output.json"} <= {p.name for p in files}
    for path in files:
        assert key not in path.read_bytes(), f"the API key leaked into {path}"
    assert FIXTURE_API_KEY not in command["stdout"] + command["stderr"]


# ---------------------------------------------------------------------- stops and budgets


@given(parsers.re(WILL + r"take (?P<seconds>\d+) seconds to answer$"))
def will_be_slow(gemini: GeminiServer, seconds: str) -> None:
    gemini.enqueue(text_reply("Thinking it over...", delay_seconds=float(seconds)))


@when("the model is answering")
def model_answering(runner: ExecRunner, gemini: GeminiServer) -> None:
    assert wait_until(lambda: len(gemini.requests) == 1)


@then(parsers.parse('the agent step "{state_id}" ended "{outcome}"'))
def agent_ended(runner: ExecRunner, state_id: str, outcome: str) -> None:
    [agent] = [s for s in runner.last.steps(state_id) if s.step_kind == "agent"]
    assert agent.outcome == outcome
    assert runner.last.file("verdict.json")["stop_reason"] == "manual_stop"


@then(parsers.parse('the verdict says the run used {steps:d} steps, "{calls}"'))
def run_budget(runner: ExecRunner, steps: int, calls: str) -> None:
    summary = runner.last.verdict.summary
    assert f"the run used {steps} steps" in summary and calls in summary, summary


@then(parsers.parse("the model's clicks reached the page {count:d} time"))
def clicks_reached(runner: ExecRunner, count: int) -> None:
    assert len([u for u in runner.last.payloads(ToolUsed) if u.tool == "act" and u.phase == "success"]) == count


@then("the model's open_url calls were refused once and then loaded the quote page with HTTP 200")
def open_url_calls(runner: ExecRunner, gemini: GeminiServer) -> None:
    responses = [r["response"] for r in gemini.requests[-1].function_responses()]
    assert responses[0]["ok"] is False and "allowed domains" in responses[0]["error"]["message"]
    assert responses[1]["ok"] is True and responses[1]["status"] == 200 and responses[1]["url"].endswith("/quotes/gold")
    assert "Demo Metals Exchange" in responses[1]["title"] and len(responses[1]["text"]) <= 600
    # The model called open_url, the old name of browser_navigate: every record says the tool it means.
    calls = [(u.phase, u.error_code) for u in runner.last.payloads(ToolUsed) if u.tool == "browser_navigate"]
    assert [phase for phase, _ in calls] == ["start", "error", "start", "success"] and calls[1][1] == "domain_not_allowed"
    # The model's calls wrap the driver's navigations (its action open_url, "open <url>").
    loaded = [u.summary for u in runner.last.payloads(ToolUsed) if u.tool == "open_url" and u.summary.startswith("open http") and u.phase == "start"]
    assert len(loaded) == 2 and loaded[1].endswith("/quotes/gold")  # the plan's navigate, then the model's second call


@then(parsers.parse('every request went to the step\'s model "{model}"'))
def step_model(gemini: GeminiServer, model: str) -> None:
    assert [r.model for r in gemini.requests] == [model, model]


@then(parsers.parse('the model\'s clicks were reported as an error "{code}" and then a success'))
def click_phases(runner: ExecRunner, code: str) -> None:
    clicks = [(u.phase, u.error_code) for u in runner.last.payloads(ToolUsed) if u.tool == "browser_click"]
    assert clicks == [("start", ""), ("error", code), ("start", ""), ("success", "")]
