"""The browser toolset's MCP face: the agent's own tool declarations (offered_tools.py: Playwright
MCP's names and argument shapes, one `target` string per element, which may be a snapshot ref) as
MCP tools, and each call's answer as MCP content.

A call's answer is the tool's result as the agent step gets it, as JSON (ok or the error, whether
the page changed, the target check's verdict on a new page), then the page section of the agent's
prompt: URL, tab, and the page's aria-YAML tree whose element lines carry `[ref=s3:e12]`. A call
after the session's run ended answers with that run's verdict instead.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from runtime.execute.agent.offered_tools import TARGET_HELP, offered_tools
from runtime.mcp.browser_session import CLOSE_CALL, BrowserSessions, TurnAnswer
from runtime.service.runs.errors import RunLimitReached, ServerShuttingDown

CLOSE_TOOL = "browser_close"
# The agent's own completion tool, which the client calls as Playwright MCP's browser_close.
AGENT_CLOSE = CLOSE_CALL
STDIO_SESSION = "stdio"
SNAPSHOT_TOOL = "browser_snapshot"


def browser_tools() -> list[types.Tool]:
    tools = []
    for spec in offered_tools(None):
        if spec.name == AGENT_CLOSE:
            continue
        described = spec.description
        if "target" in spec.schema.get("properties", {}):
            described = f"{described} {TARGET_HELP}"
        tools.append(types.Tool(name=spec.name, description=described, input_schema=spec.schema))
    closing = {"type": "object", "properties": {"summary": {"type": "string"}}}
    tools.append(types.Tool(name=CLOSE_TOOL, description="End this session's browser (its run ends; the next call starts a new one).", input_schema=closing))
    return tools


BROWSER_TOOL_NAMES = frozenset(tool.name for tool in browser_tools())


class BrowserCalls:
    """Browser tool calls of MCP sessions, each session's in its own run (browser_session.py)."""

    def __init__(self, sessions: BrowserSessions) -> None:
        self._sessions = sessions

    async def call(self, ctx: ServerRequestContext[Any], name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        key = session_key(ctx)
        if name == CLOSE_TOOL:
            name, arguments = AGENT_CLOSE, {"summary": str(arguments.get("summary") or "the MCP client closed the browser")}
        elif "ref" in arguments and "target" not in arguments:
            # Playwright MCP's shape (`element`, `ref`) names the element by its ref: our target.
            arguments = {k: v for k, v in arguments.items() if k not in ("ref", "element")} | {"target": arguments["ref"]}
        try:
            run_id, answer = await self._sessions.call(key, name, arguments)
        except (RunLimitReached, ServerShuttingDown) as error:
            return types.CallToolResult(content=[types.TextContent(text=f"no browser session could be started: {error}")], is_error=True)
        return answer_result(run_id, answer, name)


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
    if tool == SNAPSHOT_TOOL and answer.page:
        # The agent's note that the tree is in its prompt's page section: here it is the next block.
        result.pop("note", None)
    ok = bool(result.get("ok", True))
    text = json.dumps(result, ensure_ascii=False, default=str)
    content: list[types.ContentBlock] = [types.TextContent(text=text)]
    if answer.page:
        content.append(types.TextContent(text=f"### Page (session run {run_id})\n{answer.page}"))
    return types.CallToolResult(content=content, is_error=not ok)
