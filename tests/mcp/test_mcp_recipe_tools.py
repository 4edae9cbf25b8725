"""Bindings of features/mcp_recipe_tools.feature: the official MCP SDK's client against `verity mcp`
processes (stdio, and Streamable HTTP with a token), real runs in headless Chromium on the loopback
fixture site. One stdio server and one HTTP server serve the whole module (one Chromium each)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from pytest_bdd import given, parsers, scenarios, then, when
from tests.fixtures.site_server import FixtureSite
from tests.mcp.mcp_harness import SECRET_VALUE, TOKEN, HeldClient

from runtime.mcp.browser_tools import BROWSER_TOOL_NAMES
from runtime.store import RunFilter
from runtime.store.opening import open_run_store
from runtime.store.records import RunRecord

scenarios("mcp_recipe_tools.feature")

def _store_record(served: dict[str, Path], name: str, run_id: str) -> RunRecord | None:
    store = open_run_store(served["home"] / name / "verity.db")
    try:
        return store.get_run(run_id)
    finally:
        store.close()


def _ended_record(served: dict[str, Path], name: str, run_id: str, ceiling: float = 30.0) -> RunRecord:
    """The run's record once it has ended (a ceiling, not a pace: it usually has already)."""
    deadline = time.monotonic() + ceiling
    while True:
        record = _store_record(served, name, run_id)
        if record is not None and record.ended_ns is not None:
            return record
        assert time.monotonic() < deadline, f"run {run_id} has not ended within {ceiling}s: {record}"
        time.sleep(0.1)


def _verdict(result: types.CallToolResult) -> dict[str, Any]:
    first = result.content[0]
    assert isinstance(first, types.TextContent), result
    return json.loads(first.text)


def _run_id_in(progress: list[tuple[float, str | None]]) -> str:
    created = next(message for _, message in progress if message and " created" in message)
    return created.split()[1]


@pytest.fixture
def context() -> dict[str, Any]:
    return {"server": "http"}


@pytest.fixture
def mcp(url: str) -> Iterator[HeldClient]:
    """A client of the HTTP server (protocol 2026-07-28, no elicitation); the stdio Given replaces it."""
    held = HeldClient(lambda: Client(_authorized(url, TOKEN)))
    yield held
    held.close()


# --- given / when ------------------------------------------------------------------------------


@given('"verity mcp" on stdio over the fixture site\'s recipes', target_fixture="mcp")
def _stdio(stdio_mcp: HeldClient, context: dict[str, Any]) -> HeldClient:
    context["server"] = "stdio"
    return stdio_mcp


@given(parsers.parse('"verity mcp --http" with the token "{token}" over the fixture site\'s recipes'), target_fixture="url")
def _http(http_mcp: str, token: str) -> str:
    assert token == TOKEN
    return http_mcp


@when("the client calls the article tool with progress and its secret token as @env:VERITY_SECRET_MCP_TEST")
def _call_article(mcp: HeldClient, site: FixtureSite, context: dict[str, Any]) -> None:
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    arguments = {"site": site.base_url, "token": "@env:VERITY_SECRET_MCP_TEST"}
    context["result"] = mcp.run(lambda client: client.call_tool("mcp-article", arguments, progress_callback=on_progress))
    context["progress"] = progress


@when("the client calls the article tool with an unknown argument and without the site")
def _call_badly(mcp: HeldClient, served: dict[str, Path], context: dict[str, Any]) -> None:
    context["runs_before"] = _run_count(served, context["server"])
    context["result"] = mcp.run(lambda client: client.call_tool("mcp-article", {"sitex": "http://127.0.0.1:1"}))


def _run_count(served: dict[str, Path], name: str) -> int:
    store = open_run_store(served["home"] / name / "verity.db")
    try:
        return len(store.list_runs(RunFilter(), 1000))
    finally:
        store.close()


@when("the client calls the hanging tool and cancels the call once the page is loading")
def _call_and_cancel(mcp: HeldClient, site: FixtureSite, context: dict[str, Any]) -> None:
    seen = site.hanging.count
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    async def call_then_cancel(client: Client) -> None:
        call = asyncio.ensure_future(client.call_tool("mcp-hang", {"site": site.base_url}, progress_callback=on_progress))
        reached = await asyncio.to_thread(site.hanging.wait_beyond, seen, 60)
        assert reached, "the run's page load never reached /hang"
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await call

    mcp.run(call_then_cancel)
    context["run_id"] = _run_id_in(progress)


@when("the client calls the approval tool without an elicitation capability")
def _call_approval_unanswerable(mcp: HeldClient, site: FixtureSite, context: dict[str, Any]) -> None:
    context["result"] = mcp.run(lambda client: client.call_tool("mcp-approval", {"site": site.base_url}))


@when(parsers.parse("a {era} client with the token calls the approval tool and {answer} the approval"))
def _call_approval_over_http(url: str, site: FixtureSite, context: dict[str, Any], era: str, answer: str) -> None:
    asked: list[str] = []

    async def on_elicit(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": answer == "accepts", "reason": f"the test {answer}"})

    mode = "legacy" if era == "legacy" else era
    held = HeldClient(lambda: Client(_authorized(url, TOKEN), mode=mode, elicitation_callback=on_elicit))
    try:
        context["result"] = held.run(lambda client: client.call_tool("mcp-approval", {"site": site.base_url}))
        context["protocol"] = held.run(_protocol_version)
    finally:
        held.close()
    context["asked"] = asked


async def _protocol_version(client: Client) -> str:
    return client.protocol_version


def _authorized(url: str, token: str) -> Any:
    return streamable_http_client(url, http_client=create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}))


# --- then: listing -------------------------------------------------------------------------------


@then("the tools are the recipes, each with its goal as the description")
def _tools_are_recipes(mcp: HeldClient, context: dict[str, Any]) -> None:
    listed = mcp.run(lambda client: client.list_tools())
    tools = {tool.name: tool for tool in listed.tools}
    context["tools"] = tools
    # The bundled demo recipe is known to every server, as ListRecipes shows it. (This server also
    # offers the browser toolset; its tools are another scenario's.)
    # A recipe a browser session saved (MCP2-007, which may run first on this worker) is one too.
    recipes = {name for name in tools if name not in BROWSER_TOOL_NAMES and not name.startswith("mcp-saved-")}
    assert recipes == {"mcp-article", "mcp-approval", "mcp-hang", "mcp-array", "demo-quote"}, sorted(tools)
    assert tools["mcp-article"].description == "用浏览器 read the harbour article"
    assert tools["mcp-article"].title == "Read the harbour article"
    assert tools["mcp-hang"].description == "用浏览器 open a page that never answers"


@then("the article tool's input schema declares the site input and the secret token input")
def _article_schema(context: dict[str, Any]) -> None:
    schema = context["tools"]["mcp-article"].input_schema
    assert schema["type"] == "object" and schema["required"] == ["site"] and schema["additionalProperties"] is False
    site, token = schema["properties"]["site"], schema["properties"]["token"]
    assert site["type"] == "string" and "writeOnly" not in site
    assert token["writeOnly"] is True and token["description"].startswith("secret: An API token")
    assert "@env:VERITY_SECRET_NAME" in token["description"]


@then("each tool's output schema is its recipe's, typed object, and none for a recipe whose output schema is an array")
def _output_schemas(context: dict[str, Any]) -> None:
    tools = context["tools"]
    assert tools["mcp-article"].output_schema == {"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}
    assert tools["mcp-hang"].output_schema == {"type": "object"}
    assert tools["mcp-array"].output_schema is None


# --- then: a run -------------------------------------------------------------------------------


@then("the result is the completed verdict with the article's title as structured content")
def _completed(context: dict[str, Any]) -> None:
    result: types.CallToolResult = context["result"]
    verdict = _verdict(result)
    assert result.is_error is False, verdict
    assert verdict["status"] == "completed" and verdict["stop_reason"] == "completed" and verdict["verified"] is True
    assert verdict["blocker_kind"] is None and verdict["summary"].startswith("read the article")
    assert result.structured_content == {"title": "The quiet harbour"}
    context["run_id"] = verdict["run_id"]


@then("the progress notifications follow the run's states in order up to its completion")
def _progress_in_order(context: dict[str, Any]) -> None:
    progress: list[tuple[float, str | None]] = context["progress"]
    values = [value for value, _ in progress]
    assert values == sorted(set(values)), f"progress values do not grow: {values}"
    messages = [message or "" for _, message in progress]
    run_id = context["run_id"]
    assert messages[0] == f"run {run_id} created: recipe mcp-article 1", messages[:2]
    expected = ["open: started (navigate)", "open: ok", "read: started (extract)", "read: ok", "check: passed", "done: ok"]
    positions = [messages.index(message) for message in expected]
    assert positions == sorted(positions), messages
    assert messages[-1] == f"run {run_id} completed: completed", messages[-3:]


@then("the result links the run's report, verdict and output, which the client reads")
def _links_read(mcp: HeldClient, context: dict[str, Any]) -> None:
    run_id = context["run_id"]
    links = {block.uri: block for block in context["result"].content if isinstance(block, types.ResourceLink)}
    for file in ("report.html", "verdict.json", "output.json"):
        assert f"verity://runs/{run_id}/{file}" in links, sorted(links)
    verdict = mcp.run(lambda client: client.read_resource(f"verity://runs/{run_id}/verdict.json"))
    assert json.loads(verdict.contents[0].text)["stop_reason"] == "completed"
    output = mcp.run(lambda client: client.read_resource(f"verity://runs/{run_id}/output.json"))
    assert json.loads(output.contents[0].text)["data"] == {"title": "The quiet harbour"}
    report = mcp.run(lambda client: client.read_resource(f"verity://runs/{run_id}/report.html"))
    assert report.contents[0].mime_type == "text/html" and "<!DOCTYPE html>" in report.contents[0].text


@then("the run is in the store, completed")
def _in_store(served: dict[str, Path], context: dict[str, Any]) -> None:
    record = _ended_record(served, context["server"], context["run_id"])
    assert record.recipe_name == "mcp-article" and record.status.value == "completed" and record.stop_reason.value == "completed"
    context["record"] = record


@then("the secret token's value appears nowhere in the result, the progress or the run's record")
def _secret_nowhere(context: dict[str, Any]) -> None:
    result: types.CallToolResult = context["result"]
    shown = [result.model_dump_json(), json.dumps(context["progress"]), repr(context["record"])]
    assert not [text for text in shown if SECRET_VALUE in text]
    assert context["record"].inputs["token"] != SECRET_VALUE


@then("reading a file outside the offered run files is refused, naming the offered files")
def _outside_refused(mcp: HeldClient, context: dict[str, Any]) -> None:
    run_id = context["run_id"]
    for uri in (f"verity://runs/{run_id}/order.json", f"verity://runs/{run_id}/../../verity.db", "file:///etc/passwd"):
        with pytest.raises(MCPError) as refused:
            mcp.run(lambda client, uri=uri: client.read_resource(uri))
        assert "is not a run file" in str(refused.value) and "report.html" in str(refused.value), str(refused.value)
    with pytest.raises(MCPError) as missing:
        mcp.run(lambda client: client.read_resource("verity://runs/run-unknown/verdict.json"))
    assert "the run has no such file" in str(missing.value)


@then("the result is a tool error naming the unknown input and the missing one")
def _bad_arguments(context: dict[str, Any]) -> None:
    result: types.CallToolResult = context["result"]
    text = result.content[0].text
    assert result.is_error is True and text.startswith("the arguments are not valid inputs of the recipe; nothing ran"), text
    assert "inputs.sitex: unknown input 'sitex'" in text and "input 'site' is required" in text, text


@then("no run was started")
def _no_run(served: dict[str, Path], context: dict[str, Any]) -> None:
    assert _run_count(served, context["server"]) == context["runs_before"]


@then("the hanging run is recorded stopped with manual_stop")
def _stopped(served: dict[str, Path], context: dict[str, Any]) -> None:
    record = _ended_record(served, context["server"], context["run_id"])
    assert record.recipe_name == "mcp-hang"
    assert (record.status.value, record.stop_reason.value) == ("stopped", "manual_stop"), record


@then("the result is a tool error whose verdict is approval_denied because the client cannot answer approvals")
def _denied_without_elicitation(context: dict[str, Any]) -> None:
    result: types.CallToolResult = context["result"]
    verdict = _verdict(result)
    assert result.is_error is True and result.structured_content is None
    assert verdict["stop_reason"] == "approval_denied", verdict
    assert "the MCP client cannot answer approvals" in verdict["summary"], verdict["summary"]


# --- then: HTTP --------------------------------------------------------------------------------


@then("the approval was asked once, naming the run and the navigation")
def _asked_once(context: dict[str, Any]) -> None:
    asked: list[str] = context["asked"]
    run_id = _verdict(context["result"])["run_id"]
    assert len(asked) == 1, asked
    assert asked[0].startswith(f"Run {run_id} asks for approval: navigate open") and "(tool browser_navigate)" in asked[0], asked[0]


@then(parsers.parse("the verdict is {stop_reason}"))
def _verdict_is(context: dict[str, Any], stop_reason: str) -> None:
    verdict = _verdict(context["result"])
    assert verdict["stop_reason"] == stop_reason, verdict
    assert context["result"].is_error is (stop_reason != "completed")
    if stop_reason == "approval_denied":
        assert "the test declines" in verdict["summary"], verdict["summary"]


@then("a client without the token is refused with 401")
def _no_token(url: str) -> None:
    assert _post_initialize(url, None) == 401


@then("a client with another token is refused with 401")
def _other_token(url: str) -> None:
    assert _post_initialize(url, "another-token") == 401
    # The same request with the server's token is let through to MCP.
    assert _post_initialize(url, TOKEN) == 200


def _post_initialize(url: str, token: str | None) -> int:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
