"""Binds features/llm_snapshot_pages.feature: an agent reads the page as its accessibility tree,
searches it and opens the part under a ref, on the shared Chromium, with the real google-genai
client talking to the scripted Gemini server."""

from __future__ import annotations

import re

from pytest_bdd import given, parsers, scenarios, then, when

from tests.execute.conftest import ExecRunner
from tests.fixtures.gemini_server import GeminiServer, RecordedRequest, ScriptedReply, function_call_reply
from tests.fixtures.site_server import FixtureSite

scenarios("llm_snapshot_pages.feature")

WILL = r"the model will (?:first|then),? "
TREE_HEADER = re.compile(r"^\[snapshot (s\d+)(?: under (\S+) from (\d+))?\]$", re.MULTILINE)
MORE_LINE = re.compile(r"- … \d+ more row [^\n]*: browser_snapshot ref=(\S+) start=(\d+)")


@given(parsers.re(WILL + r"find \"(?P<text>[^\"]*)\" in the tree$"))
def will_find(gemini: GeminiServer, text: str) -> None:
    gemini.enqueue(function_call_reply("browser_find", {"text": text}))


@given(parsers.re(WILL + r"click the \"(?P<name>[^\"]*)\" button by the ref it found$"))
def will_click_found(gemini: GeminiServer, name: str) -> None:
    def turn(request: RecordedRequest) -> ScriptedReply:
        found = request.function_responses()[-1]
        assert found["name"] == "browser_find" and found["response"]["ok"], found
        refs = re.findall(r"button \"" + re.escape(name) + r"\" \[ref=(s\d+:e\d+)\]", found["response"]["found"])
        assert refs, found
        return function_call_reply("browser_click", {"target": {"ref": refs[-1]}})

    gemini.enqueue(turn)


@given(parsers.re(WILL + r"follow the collapsed rows line of the page section$"))
def will_follow(gemini: GeminiServer) -> None:
    def turn(request: RecordedRequest) -> ScriptedReply:
        line = MORE_LINE.search(request.system_instruction)
        assert line, request.system_instruction
        return function_call_reply("browser_snapshot", {"ref": line.group(1), "start": int(line.group(2))})

    gemini.enqueue(turn)


@given(parsers.re(WILL + r"close saying \"(?P<summary>[^\"]*)\"$"))
def will_close(gemini: GeminiServer, summary: str) -> None:
    gemini.enqueue(function_call_reply("close", {"summary": summary}))


@when(parsers.parse('I run "{name}" against the fixture site'))
def run_on_fixture(runner: ExecRunner, fixture_site: FixtureSite, gemini: GeminiServer, name: str) -> None:
    runner.run(name, {"site": fixture_site.base_url})
    assert not gemini.script_failures, gemini.script_failures


def _page(request: RecordedRequest) -> str:
    prompt = request.system_instruction
    return prompt[prompt.index("<page>") : prompt.index("</page>")]


@then("every request's page section was the page tree, and a new one after the click changed the page")
def tree_each_time(gemini: GeminiServer) -> None:
    ids = []
    for request in gemini.requests:
        page = _page(request)
        headers = TREE_HEADER.findall(page)
        assert headers and '- heading "Orders" [level=1] [ref=' in page, page
        ids.append(headers[0][0])
    # find, then click (the page changes: a new tree), then the part under a ref (same snapshot).
    assert ids[0] == ids[1] and ids[2] != ids[1] and ids[3] == ids[2], ids


@then(parsers.parse('the last request showed the rows from "{first}" under the collapsed line\'s ref, beside the whole tree'))
def part_beside_whole(gemini: GeminiServer, first: str) -> None:
    page = _page(gemini.requests[-1])
    headers = TREE_HEADER.findall(page)
    assert len(headers) == 2 and headers[0][0] == headers[1][0] and headers[1][1] and headers[1][2] == "3", headers
    part = page[page.index(f"[snapshot {headers[1][0]} under") :]
    cells = re.findall(r'cell "(Order \d+)"', part)
    assert cells and cells[0] == first, part[:2000]


@then(parsers.parse('no request held the page\'s hidden "{text}"'))
def no_decoy(gemini: GeminiServer, text: str) -> None:
    for request in gemini.requests:
        assert text.lower() not in str(request.body).lower()


@then("the model was offered browser_snapshot with ref, depth and start, and browser_find")
def offered(gemini: GeminiServer) -> None:
    declared = {d["name"]: d for d in gemini.requests[0].body["tools"][0]["functionDeclarations"]}

    def parameters(name: str) -> dict:
        tool = declared[name]
        return (tool.get("parametersJsonSchema") or tool.get("parameters_json_schema"))["properties"]

    assert set(parameters("browser_snapshot")) == {"ref", "depth", "start"}
    assert set(parameters("browser_find")) == {"text"}
