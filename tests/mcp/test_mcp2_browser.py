"""Bindings of features/mcp2_browser.feature: the SDK's own client (legacy mode over Streamable
HTTP, so each session has an id) drives `verity mcp --http --allowed-domains 127.0.0.1` on a
loopback site whose first page opens its second in a new tab."""

from __future__ import annotations

import base64
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from PIL import Image
from mcp import Client
from pytest_bdd import given, parsers, scenarios, then, when
from tests.mcp.pages_site import PagesSite
from tests.mcp.mcp_harness import SECRET_VALUE, TOKEN, HeldClient, authorized, call_tool, client_page, page_text, ref_in, tool_result

from runtime.events.model import payload_to_dict
from runtime.mcp.browser_session import BrowserToolset, session_recipe
from runtime.recipe import RecipeInvalid, load_recipe_with_registry
from runtime.store.opening import open_run_store

scenarios("mcp2_browser.feature")

PAGES = {
    "/tabs.html": """<!doctype html><html><head><title>Tabs page</title></head><body>
<h1>Tabs page</h1><a href="/second.html" target="_blank">Open the second page</a>
</body></html>""",
    "/second.html": """<!doctype html><html><head><title>Second page</title></head><body>
<h1>Second page</h1><button type="button" onclick="this.textContent = 'Pressed'">Press me</button>
</body></html>""",
    # A password the page shows again as red text (as a careless page might), a red text that is no
    # secret, and a page taller than the viewport.
    "/form.html": """<!doctype html><html><head><title>Form page</title></head><body style="margin:8px">
<h1>Form page</h1>
<label>Password <input type="password" oninput="document.getElementById('echo').textContent = this.value"></label>
<label>Name <input type="text" id="name" oninput="document.getElementById('echo').textContent = this.value"></label>
<p><span id="echo" role="status" aria-label="Echo" style="color:#f00;font:24px monospace"></span></p>
<p><span role="note" aria-label="Plain" style="color:#f00;font:24px monospace">plain words</span></p>
<div style="height:1500px"></div>
</body></html>""",
}


class TabsSite(PagesSite):
    """The pages above (a first page that opens the second in a new tab, a form page)."""

    def __init__(self) -> None:
        super().__init__(PAGES, "mcp2-tabs-site")


@pytest.fixture(scope="module")
def site() -> Iterator[TabsSite]:
    with TabsSite() as running:
        yield running


@pytest.fixture
def context() -> dict[str, Any]:
    return {}


def _run_id(answer: types.CallToolResult) -> str:
    return re.search(r"session run (run-\w+)", page_text(answer))[1]


@given(parsers.parse('"verity mcp --http" with the token "{token}" and the browser toolset on 127.0.0.1'), target_fixture="url")
def _http(http_mcp: str, token: str) -> str:
    assert token == TOKEN
    return http_mcp


# --- MCP2-001, MCP2-003 -------------------------------------------------------------------------


@when("session T opens the page with a link to a new tab")
def _open(sessions: dict[str, HeldClient], site: TabsSite, context: dict[str, Any]) -> None:
    context["answer"] = call_tool(sessions["T"], "browser_navigate", {"url": site.url("/tabs.html")})
    assert tool_result(context["answer"])["page"]["valid"] is True


@when("session T takes a snapshot")
def _snapshot(sessions: dict[str, HeldClient], context: dict[str, Any]) -> None:
    context["answer"] = call_tool(sessions["T"], "browser_snapshot", {})


@then("the snapshot's result is its id and line count, and its page has no verdict line")
def _snapshot_said(site: TabsSite, context: dict[str, Any]) -> None:
    answer: types.CallToolResult = context["answer"]
    result = tool_result(answer)
    assert set(result) == {"ok", "snapshot_id", "lines"} and result["ok"] is True, result
    # Right after the navigate's answer, the tree is the one it sent: the client holds it.
    assert f"unchanged since snapshot {result['snapshot_id']}" in page_text(answer), page_text(answer)
    page = client_page(answer)
    assert f"[snapshot {result['snapshot_id']}]" in page and f"url: {site.url('/tabs.html')}" in page, page
    assert "page check" not in page and "target" not in page, page


@when("session T clicks the link by its ref and selects the second tab with browser_tabs")
def _select(sessions: dict[str, HeldClient], context: dict[str, Any]) -> None:
    clicked = call_tool(sessions["T"], "browser_click", {"target": ref_in(context["answer"], "link", "Open the second page")})
    assert tool_result(clicked)["ok"] is True, tool_result(clicked)
    context["answer"] = call_tool(sessions["T"], "browser_tabs", {"action": "select", "index": 1})


@then("the answer's page section is the new tab's URL and tree")
def _selected(site: TabsSite, context: dict[str, Any]) -> None:
    answer: types.CallToolResult = context["answer"]
    assert tool_result(answer)["url"] == site.url("/second.html"), tool_result(answer)
    page = page_text(answer)
    assert f"url: {site.url('/second.html')}" in page and re.search(r'- heading "Second page" \[level=1\] \[ref=s\d+:e\d+\]', page), page
    assert "Tabs page" not in page and "Open the second page" not in page, page


@then("a click by a ref of that tree acts in the new tab")
def _acts_there(sessions: dict[str, HeldClient], site: TabsSite, context: dict[str, Any]) -> None:
    pressed = call_tool(sessions["T"], "browser_click", {"target": ref_in(context["answer"], "button", "Press me")})
    result = tool_result(pressed)
    assert result["ok"] is True and result["effect"] is True, result
    assert re.search(r'- button "Pressed"[^\n]* \[ref=s\d+:e\d+\]', page_text(pressed)), page_text(pressed)
    # And a page that is not the target still says so (MCP2-003: only the default goes unsaid).
    missing = call_tool(sessions["T"], "browser_navigate", {"url": site.url("/missing.html")})
    assert missing.is_error is True and "NOT the target (page_not_found)" in page_text(missing), (missing.content[0], page_text(missing))


# --- MCP2-002 ----------------------------------------------------------------------------------


@when("session E opens the new tab's page and ends its MCP session")
def _end_session(url: str, site: TabsSite, context: dict[str, Any]) -> None:
    held = HeldClient(lambda: Client(authorized(url), mode="legacy"))
    try:
        opened = call_tool(held, "browser_navigate", {"url": site.url("/second.html")})
        assert opened.is_error is False, opened.content[0]
        context["run_id"] = _run_id(opened)
    finally:
        held.close()  # the SDK's client ends its session with the transport's DELETE


@then("the store records the session's run completed, saying the client ended its session")
def _ended(served: dict[str, Path], context: dict[str, Any]) -> None:
    # The DELETE is answered only once the run has ended: no waiting here.
    store = open_run_store(served["home"] / "http" / "verity.db")
    try:
        record = store.get_run(context["run_id"])
        events = store.read_events(context["run_id"])
    finally:
        store.close()
    assert record is not None and record.recipe_name == "mcp-browser-session", record
    assert record.stop_reason is not None and record.stop_reason.value == "completed", record
    # The step closed with the session end's own words (not a browser_close, not the idle close).
    said = json.dumps([payload_to_dict(event.payload) for event in events], ensure_ascii=False)
    assert "the MCP client ended its session: its browser was closed" in said, said[-2000:]


# --- MCP2-004 ----------------------------------------------------------------------------------

TYPED_PASSWORD = "pw-hidden-8812"


def _image(answer: types.CallToolResult) -> tuple[bytes, str]:
    images = [block for block in answer.content if isinstance(block, types.ImageContent)]
    assert answer.is_error is False and len(images) == 1, answer.content[0]
    return base64.b64decode(images[0].data), images[0].mime_type


def _red_pixels(png: bytes) -> int:
    with Image.open(io.BytesIO(png)) as image:
        rgb = image.convert("RGB").tobytes()
    return sum(1 for at in range(0, len(rgb), 3) if rgb[at] > 150 and rgb[at + 1] < 110 and rgb[at + 2] < 110)


@when("session S types a password the page shows again, and takes screenshots")
def _screenshots(sessions: dict[str, HeldClient], site: TabsSite, context: dict[str, Any]) -> None:
    held = sessions["S"]
    context["run_id"] = _run_id(call_tool(held, "browser_navigate", {"url": site.url("/form.html")}))
    typed = call_tool(held, "browser_type", {"target": "label=Password", "text": TYPED_PASSWORD})
    assert tool_result(typed)["ok"] is True, tool_result(typed)
    tree = call_tool(held, "browser_snapshot", {})
    shots = {
        "viewport": call_tool(held, "browser_take_screenshot", {}),
        "full": call_tool(held, "browser_take_screenshot", {"fullPage": True}),
        "jpeg": call_tool(held, "browser_take_screenshot", {"type": "jpeg"}),
        "echo": call_tool(held, "browser_take_screenshot", {"element": "the echo", "ref": ref_in(tree, "status", "Echo")}),
        "plain": call_tool(held, "browser_take_screenshot", {"element": "the plain words", "ref": ref_in(tree, "note", "Plain")}),
    }
    context["shots"] = shots


@then("each screenshot comes back as image content of its type and size")
def _shot_shapes(context: dict[str, Any]) -> None:
    shots = context["shots"]
    viewport, mime = _image(shots["viewport"])
    assert mime == "image/png" and viewport[:8] == b"\x89PNG\r\n\x1a\n", mime
    result = tool_result(shots["viewport"])
    with Image.open(io.BytesIO(viewport)) as image:
        assert image.size == (result["width"], result["height"]), (image.size, result)
    full, _ = _image(shots["full"])
    with Image.open(io.BytesIO(full)) as image:
        assert image.size[1] > 1500 > result["height"], (image.size, result)  # the page, past the viewport
    jpeg, mime = _image(shots["jpeg"])
    assert mime == "image/jpeg" and jpeg[:2] == b"\xff\xd8", mime
    echo, _ = _image(shots["echo"])
    with Image.open(io.BytesIO(echo)) as image:
        assert image.size[0] < result["width"] and image.size[1] < 60, image.size  # the element's box, not the page


@then("the typed password is covered in every screenshot, while text that is no secret shows")
def _shot_masked(context: dict[str, Any]) -> None:
    shots = context["shots"]
    # The red text of the element that is no secret shows; the element showing the password is
    # covered by a black box (red only if the mask failed).
    assert _red_pixels(_image(shots["plain"])[0]) > 50
    assert _red_pixels(_image(shots["echo"])[0]) == 0
    assert all(TYPED_PASSWORD not in block.text for answer in shots.values() for block in answer.content if isinstance(block, types.TextContent))


# --- MCP2-005 ----------------------------------------------------------------------------------


@when("the stdio server, started without --allow-evaluate, is asked for its tools and to evaluate")
def _evaluate_off(stdio_mcp: HeldClient, context: dict[str, Any]) -> None:
    listed = stdio_mcp.run(lambda client: client.list_tools())
    context["listed"] = {tool.name for tool in listed.tools}
    context["refused"] = call_tool(stdio_mcp, "browser_evaluate", {"function": "() => document.title"})


@then("browser_evaluate is not listed, and the call is refused saying how to turn it on")
def _evaluate_refused(context: dict[str, Any]) -> None:
    assert "browser_navigate" in context["listed"] and "browser_evaluate" not in context["listed"], sorted(context["listed"])
    refused: types.CallToolResult = context["refused"]
    assert refused.is_error is True and len(refused.content) == 1, refused.content
    assert "browser_evaluate is off on this server" in refused.content[0].text and "--allow-evaluate" in refused.content[0].text


@then("a session recipe offering browser_evaluate without naming it in tools.allow is invalid")
def _one_rule() -> None:
    text = session_recipe(BrowserToolset(("127.0.0.1",), evaluate=True))
    without_allow = re.sub(r"tools:\n  allow: .*\n", "", text)
    assert without_allow != text
    with pytest.raises(RecipeInvalid) as invalid:
        load_recipe_with_registry(without_allow, "<session>")
    assert any(problem.code == "tool_not_allowed" and "browser_evaluate" in problem.message for problem in invalid.value.problems)


@when("session S evaluates functions on the page: a read, a change, an off-domain fetch and a large result")
def _evaluate_on(sessions: dict[str, HeldClient], site: TabsSite, context: dict[str, Any]) -> None:
    held = sessions["S"]
    context["listed"] = {tool.name for tool in held.run(lambda client: client.list_tools()).tools}
    context["read"] = call_tool(held, "browser_evaluate", {"function": "() => document.title"})
    context["change"] = call_tool(held, "browser_evaluate", {"function": "() => { document.querySelector('h1').textContent = 'Changed heading'; return 1; }"})
    off_domain = f"http://localhost:{site.port}/evaluated"
    fetching = f"async () => {{ try {{ await fetch({json.dumps(off_domain)}); return 'fetched'; }} catch (error) {{ return 'refused'; }} }}"
    context["fetch"] = call_tool(held, "browser_evaluate", {"function": fetching})
    context["large"] = call_tool(held, "browser_evaluate", {"function": "() => 'x'.repeat(70000)"})
    call_tool(held, "browser_close", {})


@then("each answer is the function's JSON result, and the page is judged again after a change")
def _evaluated(context: dict[str, Any]) -> None:
    assert "browser_evaluate" in context["listed"]
    read = tool_result(context["read"])
    assert read["ok"] is True and read["result"] == "Form page" and read["page_changed"] is False, read
    change = tool_result(context["change"])
    assert change["ok"] is True and change["result"] == 1 and change["page_changed"] is True, change
    assert "Changed heading" in page_text(context["change"])
    large = tool_result(context["large"])
    assert large["ok"] is False and large["error"]["code"] == "result_too_large", large


@then("the off-domain fetch never reached its host, and the session's run counts it blocked")
def _fenced(served: dict[str, Path], site: TabsSite, context: dict[str, Any]) -> None:
    assert tool_result(context["fetch"])["result"] == "refused", tool_result(context["fetch"])
    assert "/evaluated" not in site.paths, site.paths
    verdict = json.loads((served["home"] / "http" / "runs" / context["run_id"] / "verdict.json").read_text(encoding="utf-8"))
    blocked = verdict["blocked_requests"]
    # The session made no other request off its domains: the one counted is the fetch's.
    assert blocked["count"] == 1 and f"localhost:{site.port}" in json.dumps(blocked["samples"]), blocked


# --- MCP2-006 ----------------------------------------------------------------------------------

SECRET_MARKER = "«secret:site_pass»"
SAVED_NAME = "mcp-saved-form"


@when("session W types the secret site_pass by name into a text field the page shows again, then snapshots, screenshots and evaluates")
def _type_secret(sessions: dict[str, HeldClient], site: TabsSite, context: dict[str, Any]) -> None:
    held = sessions["W"]
    answers = [call_tool(held, "browser_navigate", {"url": site.url("/form.html")})]
    context["run_id"] = _run_id(answers[0])
    context["listed"] = {tool.name: tool for tool in held.run(lambda client: client.list_tools()).tools}
    context["unknown"] = call_tool(held, "browser_type", {"target": "label=Name", "secret": "no_such"})
    answers.append(call_tool(held, "browser_type", {"target": "label=Name", "secret": "site_pass"}))
    answers.append(call_tool(held, "browser_snapshot", {}))
    answers.append(call_tool(held, "browser_take_screenshot", {"fullPage": True}))
    context["value"] = call_tool(held, "browser_evaluate", {"function": "() => document.getElementById('name').value"})
    context["length"] = call_tool(held, "browser_evaluate", {"function": "() => document.getElementById('echo').textContent.length"})
    answers += [context["value"], context["length"]]
    context["answers"] = answers


@when("session W saves itself as a recipe in the recipes directory")
def _save(sessions: dict[str, HeldClient], context: dict[str, Any]) -> None:
    held = sessions["W"]
    context["outside"] = call_tool(held, "browser_save_recipe", {"name": SAVED_NAME, "path": "../outside.yaml"})
    # Saving ends the session's run, as browser_close would: its files are then all written.
    context["saved"] = call_tool(held, "browser_save_recipe", {"name": SAVED_NAME, "goal": "open the form and sign in", "path": f"saved/{SAVED_NAME}.yaml"})
    context["answers"] += [context["outside"], context["saved"]]


@then("browser_type offers the secret by name, and no answer holds its value: an evaluated value comes back as its marker")
def _answers_clean(context: dict[str, Any]) -> None:
    assert context["listed"]["browser_type"].input_schema["properties"]["secret"]["enum"] == ["site_pass"]
    unknown = tool_result(context["unknown"])
    assert unknown["ok"] is False and "no secret named 'no_such'" in unknown["error"]["message"], unknown
    typed = tool_result(context["answers"][1])
    assert typed["ok"] is True and typed["effect"] is True, typed
    # The value reached the page (its length came back) but never an answer: only its marker did.
    assert tool_result(context["length"])["result"] == len(SECRET_VALUE)
    assert tool_result(context["value"])["result"] == SECRET_MARKER, tool_result(context["value"])
    for answer in context["answers"]:
        said = answer.model_dump_json()
        assert SECRET_VALUE not in said and base64.b64encode(SECRET_VALUE.encode()).decode() not in said


@then("no file of the session's run and nothing in the server's store holds the value")
def _files_clean(served: dict[str, Path], context: dict[str, Any]) -> None:
    home = served["home"] / "http"
    run_dir = home / "runs" / context["run_id"]
    files = [path for path in run_dir.rglob("*") if path.is_file()]
    assert {"events.jsonl", "verdict.json", "trace.jsonl", "report.html"} <= {path.name for path in files}, sorted(p.name for p in files)
    # The typing was recorded, as its marker.
    assert SECRET_MARKER in (run_dir / "events.jsonl").read_text(encoding="utf-8")
    value = SECRET_VALUE.encode()
    stored = [path for path in home.glob("verity.db*") if path.is_file()]
    assert stored, sorted(p.name for p in home.iterdir())
    leaked = [str(path) for path in files + stored if value in path.read_bytes()]
    assert leaked == []


# --- MCP2-007 ----------------------------------------------------------------------------------


@then("the answer is a recipe that validates, its typed secret an input placeholder, written only inside the recipes directory")
def _saved(served: dict[str, Path], site: TabsSite, context: dict[str, Any]) -> None:
    outside: types.CallToolResult = context["outside"]
    assert outside.is_error is True and "outside the server's recipes directory" in outside.content[0].text, outside.content
    assert not (served["recipes"].parent / "outside.yaml").exists()
    saved: types.CallToolResult = context["saved"]
    said = json.loads(saved.content[0].text)
    assert saved.is_error is False and said["ok"] is True and said["path"] == f"saved/{SAVED_NAME}.yaml", said
    text = saved.content[1].text
    assert (served["recipes"] / "saved" / f"{SAVED_NAME}.yaml").read_text(encoding="utf-8") == text
    recipe, _ = load_recipe_with_registry(text, "<saved>")
    assert recipe.name == SAVED_NAME and recipe.goal == "open the form and sign in"
    assert recipe.inputs["site_pass"].secret is True
    # The session could run page scripts; the recipe runs none, so it does not allow them.
    assert recipe.tools.allow is not None and "browser_evaluate" not in recipe.tools.allow, recipe.tools.allow
    assert "{site_pass}" in text and SECRET_VALUE not in text, text
    assert site.url("/form.html") in text, text


@then("the saved recipe, run again as the server's tool with the secret from the environment, completes")
def _saved_runs(sessions: dict[str, HeldClient], context: dict[str, Any]) -> None:
    ran = call_tool(sessions["W"], SAVED_NAME, {"site_pass": "@env:VERITY_SECRET_MCP_TEST"})
    verdict = json.loads(ran.content[0].text)
    assert ran.is_error is False and verdict["status"] == "completed" and verdict["verified"] is True, verdict
