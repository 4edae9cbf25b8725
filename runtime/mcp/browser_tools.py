"""The browser toolset's MCP face: the agent's own tool declarations (offered_tools.py: Playwright
MCP's names and argument shapes, one `target` string per element, which may be a snapshot ref) as
MCP tools, and each call's answer as MCP content.

A call's answer is the tool's result as the agent step gets it, as JSON (ok or the error, whether
the page changed, the target check's verdict on a new page), then the page section of the agent's
prompt: URL, tab, and the page's aria-YAML tree whose element lines carry `[ref=s3:e12]`. A call
after the session's run ended answers with that run's verdict instead.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from runtime.execute.agent.offered_tools import TARGET_HELP, offered_tools
from runtime.execute.agent.client_tools import EVALUATE_TOOL
from runtime.execute.agent.client_tools import SCREENSHOT_TOOL as AGENT_SCREENSHOT
from runtime.mcp.browser_session import CLOSE_CALL, BrowserSessions, BrowserToolset, TurnAnswer, session_tools
from runtime.mcp.saved_recipes import SAVE_TOOL, SessionSaver, save_tool
from runtime.secrets import marker
from runtime.service.runs.errors import RunLimitReached, ServerShuttingDown

CLOSE_TOOL = "browser_close"
# The agent's own completion tool, which the client calls as Playwright MCP's browser_close.
AGENT_CLOSE = CLOSE_CALL
STDIO_SESSION = "stdio"
SNAPSHOT_TOOL = "browser_snapshot"
# Playwright MCP's name for a tool the agent step knows by another.
SCREENSHOT_TOOL = "browser_take_screenshot"
MCP_NAMES = {AGENT_SCREENSHOT: SCREENSHOT_TOOL}
AGENT_NAMES = {mcp: agent for agent, mcp in MCP_NAMES.items()}
_SCREENSHOT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "type": {"type": "string", "enum": ["png", "jpeg"], "description": "Image format; png by default."},
        "fullPage": {"type": "boolean", "description": "The whole scrollable page instead of the viewport."},
        "element": {"type": "string", "description": "What the element is, in words (with ref)."},
        "ref": {"type": "string", "description": "The snapshot ref of the one element to capture."},
    },
}


def browser_tools(toolset: BrowserToolset = BrowserToolset()) -> list[types.Tool]:
    """The session's tools (browser_session.session_tools) under Playwright MCP's names and shapes."""
    tools = []
    for spec in offered_tools(session_tools(toolset)):
        if spec.name == AGENT_CLOSE:
            continue
        if spec.name == AGENT_SCREENSHOT:
            tools.append(types.Tool(name=SCREENSHOT_TOOL, description=SCREENSHOT_HELP, input_schema=_SCREENSHOT_SCHEMA))
            continue
        described, schema = spec.description, spec.schema
        if "target" in schema.get("properties", {}):
            described = f"{described} {TARGET_HELP}"
        if spec.name == SNAPSHOT_TOOL:
            described = f"{described} {FULL_HELP}"
            schema = {**schema, "properties": {**schema["properties"], "full": {"type": "boolean"}}}
        if spec.name == TYPE_TOOL and toolset.secrets:
            described = f"{described} {SECRET_HELP}"
            secret = {"type": "string", "enum": list(toolset.secret_names)}
            schema = {**schema, "properties": {**schema["properties"], "secret": secret}}
        tools.append(types.Tool(name=spec.name, description=described, input_schema=schema))
    tools.append(save_tool())
    closing = {"type": "object", "properties": {"summary": {"type": "string"}}}
    tools.append(types.Tool(name=CLOSE_TOOL, description="End this session's browser (its run ends; the next call starts a new one).", input_schema=closing))
    return tools


TYPE_TOOL = "browser_type"
FULL_HELP = (
    "A page whose tree you were already sent answers `unchanged since snapshot sN`: that tree and its refs still hold. "
    "full: true sends the whole tree anyway."
)
SECRET_HELP = "secret: type the server's secret of that name instead of text (its value never comes back)."
SCREENSHOT_HELP = (
    "Take a screenshot of the viewport, the whole page (fullPage) or one element (ref), as png or jpeg; it comes back as an "
    "image. Every secret the session typed is covered by a black box in it."
)
# Every name a browser tool may have on any server: a call by one is never a recipe's, even when
# this server does not offer it (it is refused, saying why).
BROWSER_TOOL_NAMES = frozenset(tool.name for tool in browser_tools(BrowserToolset(evaluate=True)))


class BrowserCalls:
    """Browser tool calls of MCP sessions, each session's in its own run (browser_session.py)."""

    def __init__(self, sessions: BrowserSessions, runs_dir: Path, recipes_dir: Path | None = None) -> None:
        self._sessions = sessions
        self._runs_dir = runs_dir.resolve()
        self._saver = SessionSaver(sessions, runs_dir, recipes_dir)
        self._offered = frozenset(tool.name for tool in browser_tools(sessions.toolset))

    async def call(self, ctx: ServerRequestContext[Any], name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        key = session_key(ctx)
        if name not in self._offered:
            return types.CallToolResult(content=[types.TextContent(text=not_offered(name))], is_error=True)
        asked = name
        if name == SAVE_TOOL:
            try:
                return await self._saver.save(key, arguments)
            except (RunLimitReached, ServerShuttingDown) as error:
                return types.CallToolResult(content=[types.TextContent(text=f"no browser session could be started: {error}")], is_error=True)
        if name == CLOSE_TOOL:
            name, arguments = AGENT_CLOSE, {"summary": str(arguments.get("summary") or "the MCP client closed the browser")}
        elif "ref" in arguments and "target" not in arguments:
            # Playwright MCP's shape (`element`, `ref`) names the element by its ref: our target.
            arguments = {k: v for k, v in arguments.items() if k not in ("ref", "element")} | {"target": arguments["ref"]}
        name = AGENT_NAMES.get(name, name)
        full = name == SNAPSHOT_TOOL and bool(arguments.get("full"))
        arguments = {k: v for k, v in arguments.items() if k != "full"} if name == SNAPSHOT_TOOL else arguments
        if name == TYPE_TOOL and "secret" in arguments:
            typed = self._secret_text(arguments)
            if isinstance(typed, types.CallToolResult):
                return typed
            arguments = typed
        try:
            run_id, answer = await self._sessions.call(key, name, arguments, full)
        except (RunLimitReached, ServerShuttingDown) as error:
            return types.CallToolResult(content=[types.TextContent(text=f"no browser session could be started: {error}")], is_error=True)
        result = answer_result(run_id, answer, name)
        if asked == SCREENSHOT_TOOL and answer.ended is None and answer.result.get("ok"):
            result.content.insert(1, self._image(str(answer.result.get("artifact", "")), str(answer.result.get("type", "png"))))
        return result

    def _secret_text(self, arguments: dict[str, Any]) -> dict[str, Any] | types.CallToolResult:
        """browser_type's `secret` as the text the agent step types: the secret's marker, which
        becomes its value only as it is typed into the field (acting.py)."""
        name, known = arguments.get("secret"), self._sessions.toolset.secret_names
        if arguments.get("text") not in (None, ""):
            problem = "give browser_type either text or secret, not both"
        elif name not in known:
            problem = f"no secret named {name!r} on this server (named: {', '.join(known) or 'none; start verity mcp with --secret NAME=@env:VAR'})"
        else:
            return {k: v for k, v in arguments.items() if k != "secret"} | {"text": marker(str(name))}
        failed = {"ok": False, "error": {"code": "invalid_params", "message": problem}}
        return types.CallToolResult(content=[types.TextContent(text=json.dumps(failed))], is_error=True)

    def _image(self, artifact: str, image_type: str) -> types.ImageContent:
        """The screenshot the session's run stored, as MCP image content (only a file of the
        server's runs directory is ever read)."""
        path = Path(artifact).resolve()
        if not path.is_relative_to(self._runs_dir) or not path.is_file():
            raise MCPError(types.INTERNAL_ERROR, "the screenshot's file is not where the session's run keeps its files")
        return types.ImageContent(data=base64.b64encode(path.read_bytes()).decode("ascii"), mime_type=f"image/{image_type}")


def not_offered(name: str) -> str:
    """Why a browser tool this server does not offer was refused."""
    if name == EVALUATE_TOOL:
        return f"{name} is off on this server: page scripts run only when the operator starts `verity mcp` with --allow-evaluate"
    return f"{name} is not a tool of this server's browser sessions"


def session_key(ctx: ServerRequestContext[Any]) -> str:
    """Which MCP session a call belongs to: the process's one client on stdio; the transport's
    session id over HTTP (a sessionless request cannot have a browser of its own)."""
    request = ctx.request
    headers = getattr(request, "headers", None)
    if headers is None:
        return STDIO_SESSION
    session_id = headers.get("mcp-session-id")
    if not session_id:
        raise MCPError(
            types.INVALID_REQUEST,
            "the browser tools need an MCP session (the Mcp-Session-Id of a stateful Streamable HTTP connection) so that "
            "each session has its own browser; connect with a session, or over stdio",
        )
    return http_session_key(session_id)


def http_session_key(session_id: str) -> str:
    """The browser session key of the Streamable HTTP session `session_id`."""
    return f"http:{session_id}"


def answer_result(run_id: str, answer: TurnAnswer, tool: str = "") -> types.CallToolResult:
    if answer.ended is not None:
        verdict = {key: answer.ended.get(key) for key in ("run_id", "status", "stop_reason", "verified", "blocker_kind", "summary")}
        verdict["run_id"] = verdict["run_id"] or run_id
        closed = answer.ended.get("stop_reason") == "completed"
        text = ("the session's browser is closed: " if closed else "the session's run ended: ") + json.dumps(verdict, ensure_ascii=False)
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=not closed)
    result = dict(answer.result)
    if tool == SNAPSHOT_TOOL and (answer.page or answer.unchanged):
        # The agent's note that the tree is in its prompt's page section: here it is the next block.
        result.pop("note", None)
    ok = bool(result.get("ok", True))
    text = json.dumps(result, ensure_ascii=False, default=str)
    content: list[types.ContentBlock] = [types.TextContent(text=text)]
    if answer.unchanged:
        # The client was last sent this very tree (shown_pages.py): what changed around it, if anything.
        if answer.page:
            said = f"### Page (session run {run_id})\n{answer.page}\n[tree unchanged since snapshot {answer.unchanged}: its refs still hold]"
        else:
            said = f"### Page unchanged since snapshot {answer.unchanged} (URL, tab, tree): its refs still hold"
        content.append(types.TextContent(text=said))
    elif answer.page:
        content.append(types.TextContent(text=f"### Page (session run {run_id})\n{answer.page}"))
    return types.CallToolResult(content=content, is_error=not ok)
