"""Binds features/llm_snapshot_pages.feature: an agent pages and filters one snapshot, on the
shared Chromium, with the real google-genai client talking to the scripted Gemini server."""

from __future__ import annotations

import re

from pytest_bdd import given, parsers, scenarios, then, when

from runtime.demo import DemoSite
from tests.execute.conftest import ExecRunner
from tests.fixtures.gemini_server import GeminiServer, RecordedRequest, ScriptedReply, function_call_reply

scenarios("llm_snapshot_pages.feature")

WILL = r"the model will (?:first|then),? "
SNAPSHOT_HEADER = re.compile(r"snapshot (s\d+) tab=")


@given(parsers.re(WILL + r"take a snapshot$"))
def will_snapshot(gemini: GeminiServer) -> None:
    gemini.enqueue(function_call_reply("browser_snapshot", {}))


@given(parsers.re(WILL + r"show the same snapshot's links whose text contains \"(?P<text>[^\"]*)\"$"))
def will_filter(gemini: GeminiServer, text: str) -> None:
    def turn(request: RecordedRequest) -> ScriptedReply:
        taken = SNAPSHOT_HEADER.findall(request.system_instruction)
        assert taken, f"no snapshot in the prompt:\n{request.system_instruction}"
        return function_call_reply("browser_snapshot", {"snapshot_id": taken[-1], "role": "link", "text": text})

    gemini.enqueue(turn)


@given(parsers.re(WILL + r"click the \"(?P<name>[^\"]*)\" link by its ref from the filtered page$"))
def will_click_filtered(gemini: GeminiServer, name: str) -> None:
    def turn(request: RecordedRequest) -> ScriptedReply:
        refs = re.findall(r"\[(s\d+:e\d+)\] link \"" + re.escape(name), request.system_instruction)
        assert refs, f"no link {name!r} in the prompt:\n{request.system_instruction}"
        return function_call_reply("browser_click", {"target": {"ref": refs[-1]}})

    gemini.enqueue(turn)


@given(parsers.re(WILL + r"close saying \"(?P<summary>[^\"]*)\"$"))
def will_close(gemini: GeminiServer, summary: str) -> None:
    gemini.enqueue(function_call_reply("close", {"summary": summary}))


@when(parsers.parse('I run "{name}" against the demo site'))
def run_on_demo(runner: ExecRunner, demo_site: DemoSite, gemini: GeminiServer, name: str) -> None:
    runner.run(name, {"site": demo_site.quote_base, "search_site": demo_site.search_base})
    assert not gemini.script_failures, gemini.script_failures


@then(parsers.parse("the model's filtered page listed only links with \"{text}\" in them, under the first snapshot's id"))
def filtered_page(gemini: GeminiServer, text: str) -> None:
    # The third request is the one after the filtered snapshot: its prompt holds both pages.
    prompt = gemini.requests[2].system_instruction
    pages = re.split(r"(?=snapshot s\d+ tab=)", prompt)[1:]
    assert len(pages) >= 2, prompt
    first_id, filtered = SNAPSHOT_HEADER.match(pages[0]), pages[-1]
    assert first_id is not None and filtered.startswith(f"snapshot {first_id.group(1)} tab=")
    listed = re.findall(r"^\[s\d+:e\d+\] (\w+) \"([^\"]*)\"", filtered, re.MULTILINE)
    assert listed and all(role == "link" and text in name.lower() for role, name in listed), listed
    unfiltered = re.findall(r"^\[s\d+:e\d+\] (\w+) \"([^\"]*)\"", pages[0], re.MULTILINE)
    assert len(unfiltered) > len(listed), "the filter should have left elements out"


@then("the model was offered browser_snapshot with snapshot_id, start, role, text and within")
def offered_paging(gemini: GeminiServer) -> None:
    declared = {d["name"]: d for d in gemini.requests[0].body["tools"][0]["functionDeclarations"]}
    snapshot_tool = declared["browser_snapshot"]
    parameters = (snapshot_tool.get("parametersJsonSchema") or snapshot_tool.get("parameters_json_schema"))["properties"]
    assert {"snapshot_id", "start", "role", "text", "within"} <= set(parameters), parameters
    assert "snapshot_id" in declared["browser_snapshot"]["description"]
