"""Binds features/execute_tabs.feature: recipe steps and an agent's model in several tabs, on
the shared Chromium and the fixture site (popups.html opens target.html with target=_blank); the
agent's model is the scripted Gemini server on loopback."""

from __future__ import annotations

import re
from typing import Any

from pytest_bdd import given, parsers, scenarios, then, when

from runtime.events import StepStarted, TabChanged, ToolUsed
from tests.execute.conftest import RECIPES, ExecRunner
from tests.fixtures.gemini_server import GeminiServer, RecordedRequest, ScriptedReply, function_call_reply
from tests.fixtures.site_server import FixtureSite
from tests.fixtures.tab_changes import describe_tab_change

scenarios("execute_tabs.feature")

WILL = r"the model will (?:first|then),? "


@when(parsers.parse('I run the tab recipe "{name}" on the fixture site'))
def run_tab_recipe(runner: ExecRunner, fixture_site: FixtureSite, request: Any, name: str) -> None:
    runner.run(RECIPES / "tabs" / f"{name}.yaml", {"site": fixture_site.base_url})
    if "gemini" in request.fixturenames:
        gemini: GeminiServer = request.getfixturevalue("gemini")
        assert not gemini.script_failures, gemini.script_failures


def _changes(runner: ExecRunner) -> list[TabChanged]:
    assert runner.last is not None
    return runner.last.payloads(TabChanged)



@then(parsers.re(r"the tab events are (?P<said>.*)$"))
def tab_events(runner: ExecRunner, said: str) -> None:
    changes = [change for change in _changes(runner) if change.change != "primary"]
    assert [describe_tab_change(change) for change in changes] == re.findall(r'"([^"]*)"', said)
    opened = next(change for change in changes if change.change == "opened")
    assert opened.url.endswith("/target.html"), opened
    # events.jsonl holds the same changes, in the same order.
    assert runner.last is not None
    lines = [line["payload"] for line in runner.last.event_lines() if line["kind"] == "tab" and line["payload"]["change"] != "primary"]
    assert [(line["change"], line["tab_id"]) for line in lines] == [(c.change, c.tab_id) for c in changes]


@then(parsers.parse('the steps started in tabs "{pairs}"'))
def steps_in_tabs(runner: ExecRunner, pairs: str) -> None:
    assert runner.last is not None
    started = {p.state_id: p.tab_id for p in runner.last.payloads(StepStarted)}
    expected = dict(pair.split("=") for pair in pairs.split())
    assert {state: started.get(state) for state in expected} == expected, started


@then(parsers.parse('the step "{state_id}" failed with "{code}" saying "{text}"'))
def step_failed(runner: ExecRunner, state_id: str, code: str, text: str) -> None:
    assert runner.last is not None
    finished = runner.last.steps(state_id)
    assert [(step.ok, step.error) for step in finished] == [(False, code)], finished
    assert text in finished[0].observation_summary, finished[0]


@then(parsers.parse('the output\'s heading is "{heading}"'))
def output_heading(runner: ExecRunner, heading: str) -> None:
    assert runner.last is not None
    data = runner.last.file("output.json")["data"]
    assert heading in data.values(), data


def _tools_of(runner: ExecRunner, state_id: str) -> list[ToolUsed]:
    assert runner.last is not None
    current, tools = "", []
    for event in runner.last.events:
        if isinstance(event.payload, StepStarted):
            current = event.payload.state_id
        elif isinstance(event.payload, ToolUsed) and current == state_id:
            tools.append(event.payload)
    return tools


@then(parsers.parse('the page of tab "{tab_id}" was checked against the target before "{state_id}" read it'))
def checked_before_read(runner: ExecRunner, tab_id: str, state_id: str) -> None:
    tools = [(t.tool, t.phase, t.tab_id) for t in _tools_of(runner, state_id)]
    prepared = tools.index(("prepare_page", "success", tab_id))
    checked = tools.index(("data.validate-target", "success", tab_id))
    last_extract = max(i for i, t in enumerate(tools) if t == ("extract", "success", tab_id))
    assert prepared < checked < last_extract, tools


@then(parsers.parse("the value \"{state_id}\" read is kept with tab \"{tab_id}\"'s validated document"))
def kept_with_tab(runner: ExecRunner, state_id: str, tab_id: str) -> None:
    assert runner.last is not None
    record = next(r for r in runner.last.file("executions.json") if r["state_id"] == state_id)
    provenance = record["evidence"]["provenance"]
    assert provenance["document_validated"] is True, provenance
    assert provenance["document"]["tab_id"] == provenance["validated_document"]["tab_id"] == tab_id, provenance
    assert provenance["document"]["url"].endswith("/target.html")


@then(parsers.parse('executions.json says "{reader}" acted in tab "{tab_id}" and "{closer}" closed it'))
def executions_tabs(runner: ExecRunner, reader: str, tab_id: str, closer: str) -> None:
    assert runner.last is not None
    records = {r["state_id"]: r for r in runner.last.file("executions.json")}
    assert records[reader]["tab_id"] == tab_id
    assert [(c["change"], c["tab_id"]) for c in records[closer]["tab_changes"]] == [("closed", tab_id)]
    assert records[closer]["evidence"]["tab_id"] == tab_id


@then(parsers.parse('the report\'s timeline shows "{reader}" in tab "{tab_id}" and "{closer}" closing tab "{closed}"'))
def report_tabs(runner: ExecRunner, reader: str, tab_id: str, closer: str, closed: str) -> None:
    assert runner.last is not None
    page = (runner.last.run_dir / "report.html").read_text(encoding="utf-8")

    def row(state_id: str) -> str:
        found = re.search(r'<tr class="state"[^>]*data-state-id="' + re.escape(state_id) + r'".*?</tr>', page, re.S)
        assert found, f"no timeline row for {state_id}"
        return found.group(0)

    assert f'<span class="meta tab">in tab {tab_id}</span>' in row(reader)
    assert re.search(r'<ul class="tab-changes"><li>tab ' + re.escape(closed) + r" \(terms\) closed ", row(closer)), row(closer)


@then(parsers.parse('the primary tab moved to "{moved}" during "{mover}" and back to "{back}" during "{closer}"'))
def primary_moves(runner: ExecRunner, moved: str, mover: str, back: str, closer: str) -> None:
    primary = [(c.tab_id, c.state_id, c.primary_tab_id) for c in _changes(runner) if c.change == "primary"]
    assert primary == [(moved, mover, moved), (back, closer, back)], primary
    closed = next(c for c in _changes(runner) if c.change == "closed")
    assert (closed.tab_id, closed.primary_tab_id) == (moved, back)


# ---------------------------------------------------------------------- the scripted model


@given(parsers.re(WILL + r"take a snapshot$"))
def will_snapshot(gemini: GeminiServer) -> None:
    gemini.enqueue(function_call_reply("browser_snapshot", {}))


@given(parsers.re(WILL + r"click the \"(?P<name>[^\"]*)\" link by its ref$"))
def will_click_ref(gemini: GeminiServer, name: str) -> None:
    def turn(request: RecordedRequest) -> ScriptedReply:
        # The page section is the tab's tree: `- link "NAME" [ref=s3:e12]`.
        refs = re.findall(r"link \"" + re.escape(name) + r"[^\n]*\[ref=(s\d+:e\d+)\]", request.system_instruction)
        assert refs, request.system_instruction
        return function_call_reply("browser_click", {"target": {"ref": refs[-1]}})

    gemini.enqueue(turn)


@given(parsers.re(WILL + r"select the second of the open tabs its page section lists$"))
def will_select(gemini: GeminiServer) -> None:
    def turn(request: RecordedRequest) -> ScriptedReply:
        # The click's answer named the tab it opened; the page section lists both tabs.
        clicked = request.function_responses()[-1]
        assert clicked["name"] == "browser_click" and clicked["response"]["opened_tabs"], clicked
        listed = re.findall(r"^(\d+): (\S+)(.*)$", request.system_instruction, re.M)
        assert [(index, url.rsplit("/", 1)[-1], marks.strip()) for index, url, marks in listed] == [
            ("0", "popups.html", "(current, primary)"), ("1", "target.html", ""),
        ], request.system_instruction
        return function_call_reply("browser_tabs", {"action": "select", "index": 1})

    gemini.enqueue(turn)


@given(parsers.re(WILL + r"call \"browser_extract\" to read the heading$"))
def will_extract(gemini: GeminiServer) -> None:
    def turn(request: RecordedRequest) -> ScriptedReply:
        selected = request.function_responses()[-1]
        assert selected["name"] == "browser_tabs" and selected["response"]["url"].endswith("/target.html"), selected
        return function_call_reply("browser_extract", {"fields": [{"name": "heading", "target": {"css": "h1"}}]})

    gemini.enqueue(turn)


@given(parsers.re(WILL + r"close the tab it is in$"))
def will_close_tab(gemini: GeminiServer) -> None:
    gemini.enqueue(function_call_reply("browser_tabs", {"action": "close"}))


@given(parsers.re(WILL + r"close saying \"(?P<summary>[^\"]*)\"$"))
def will_close(gemini: GeminiServer, summary: str) -> None:
    def turn(request: RecordedRequest) -> ScriptedReply:
        closed = request.function_responses()[-1]
        tabs = closed["response"]["tabs"]
        assert closed["name"] == "browser_tabs" and [t["url"].rsplit("/", 1)[-1] for t in tabs] == ["popups.html"], closed
        return function_call_reply("close", {"summary": summary})

    gemini.enqueue(turn)


@then(parsers.parse('the model\'s "{tool}" acted in tab "{tab_id}"'))
def model_tool_tab(runner: ExecRunner, tool: str, tab_id: str) -> None:
    assert runner.last is not None
    used = [t.tab_id for t in runner.last.payloads(ToolUsed) if t.tool == tool]
    assert used and set(used) == {tab_id}, used
