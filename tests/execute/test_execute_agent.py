"""Binds features/execute_agent.feature: an agent step's turns on the shared Chromium, with the
real google-genai client talking to the scripted Gemini server on loopback: what the model sees,
the tools it calls and how the step ends. The scripted model's steps are in agent_run_steps.py."""

from __future__ import annotations

import json
import logging
import re

import pytest
from pytest_bdd import given, parsers, scenarios, then

from runtime.events import ChatDelta, ToolUsed
from runtime.execute.agent.offered_tools import NUDGE
from tests.execute.agent_run_steps import *  # noqa: F403 - the scripted model and the run steps
from tests.execute.conftest import ExecRunner
from tests.fixtures.gemini_fixtures import FIXTURE_API_KEY
from tests.fixtures.gemini_server import GeminiServer

scenarios("execute_agent.feature")

# The largest functionResponse a model may get back: results are summaries, never pages.
COMPACT_RESPONSE_CHARS = 2000


@given("every log record is captured")
def capture_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # the root and every library logger that propagates: google_genai, httpx, ...


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


@then("every function response the model got was compact")
def compact_responses(gemini: GeminiServer) -> None:
    responses = gemini.requests[-1].function_responses()
    assert [r["name"] for r in responses] == ["browser_snapshot", "browser_snapshot", "browser_click", "browser_snapshot", "browser_click"]
    assert [r["response"]["ok"] for r in responses] == [True, True, False, True, True]
    for response in responses:
        assert len(json.dumps(response)) < COMPACT_RESPONSE_CHARS, response


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


@then(parsers.parse('the model\'s clicks were reported as an error "{code}" and then a success'))
def click_phases(runner: ExecRunner, code: str) -> None:
    clicks = [(u.phase, u.error_code) for u in runner.last.payloads(ToolUsed) if u.tool == "browser_click"]
    assert clicks == [("start", ""), ("error", code), ("start", ""), ("success", "")]
