"""Steps shared by the agent-step features (execute_agent*.feature): the scripted Gemini model's
turns (`the model will ...`), a run against the demo site, and what several of them check. Test
modules bind them with `from tests.execute.agent_run_steps import *`, which brings pytest-bdd's
step fixtures in."""

from __future__ import annotations

import re

from pytest_bdd import given, parsers, then, when

from runtime.demo import DemoSite
from runtime.events import ToolUsed
from tests.execute.conftest import ExecRunner
from tests.fixtures.gemini_server import GeminiServer, RecordedRequest, ScriptedReply, error_reply, function_call_reply, text_reply

WILL = r"the model will (?:first|then),? "


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


@given(parsers.re(WILL + r"take (?P<seconds>\d+) seconds to answer$"))
def will_be_slow(gemini: GeminiServer, seconds: str) -> None:
    gemini.enqueue(text_reply("Thinking it over...", delay_seconds=float(seconds)))


@when(parsers.parse('I run "{name}" against the demo site'))
def run_on_demo(runner: ExecRunner, demo_site: DemoSite, gemini: GeminiServer, name: str) -> None:
    runner.run(name, {"site": demo_site.quote_base, "search_site": demo_site.search_base})
    assert not gemini.script_failures, gemini.script_failures


@then(parsers.parse('no "{action}" action ran'))
def no_action(runner: ExecRunner, action: str) -> None:
    assert not [u for u in runner.last.payloads(ToolUsed) if u.tool == action and u.phase == "start"]


@then(parsers.parse("the model was asked {count:d} times"))
def asked(gemini: GeminiServer, count: int) -> None:
    assert len(gemini.requests) == count
