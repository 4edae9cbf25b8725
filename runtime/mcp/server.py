"""The MCP server: tools are the catalog's recipes; resources are the files of runs.

    hosting = VerityServer(config)          # runtime.service: store, supervisor, browser
    await hosting.open_runs()
    server = mcp_server(hosting, sessions=browser_sessions(hosting, toolset))   # an mcp.server.lowlevel.Server
    ... transports.py runs it on stdio or Streamable HTTP; `await hosting.stop()` at the end.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from runtime import __version__
from runtime.mcp.browser_session import BrowserSessions, BrowserToolset
from runtime.mcp.browser_tools import BROWSER_TOOL_NAMES, BrowserCalls, browser_tools
from runtime.mcp.recipe_calls import RecipeCalls
from runtime.mcp.run_resources import read_run_file
from runtime.service.api.server import VerityServer

SERVER_NAME = "verity"
INSTRUCTIONS = (
    "Each tool runs one Verity recipe in a fenced headless Chromium and returns its verdict: status, stop reason, "
    "blocker kind and summary as JSON text, the recipe's structured output when it completed, and links to the run's "
    "report and files (verity://runs/<run id>/<file>). Only a `completed` verdict is a success."
)


def browser_sessions(hosting: VerityServer, browser: BrowserToolset) -> BrowserSessions | None:
    """The browser sessions of the server `hosting` hosts runs for; None without allowed domains
    (no browser tools)."""
    assert hosting.supervisor is not None, "open the runs first (VerityServer.open_runs)"
    return BrowserSessions(hosting.supervisor, browser) if browser.allowed_domains else None


def mcp_server(hosting: VerityServer, *, sessions: BrowserSessions | None = None) -> Server[Any]:
    """An MCP server over the runs `hosting` hosts (its `open_runs` has been awaited); with
    browser `sessions` (browser_sessions()), also the browser tools, each session in its own run."""
    assert hosting.supervisor is not None and hosting.catalog is not None, "open the runs first (VerityServer.open_runs)"
    config = hosting.config
    calls = RecipeCalls(hosting.supervisor, hosting.catalog, runs_dir=config.runs_dir)
    browser_calls = BrowserCalls(sessions, config.runs_dir, config.recipes_dir) if sessions is not None else None

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        # A recipe named like a browser tool would be unreachable: the browser tool wins, and the recipe is not listed.
        recipes = [tool for tool in calls.tools() if browser_calls is None or tool.name not in BROWSER_TOOL_NAMES]
        return types.ListToolsResult(tools=(browser_tools(sessions.toolset) if sessions is not None else []) + recipes)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult | types.InputRequiredResult:
        if browser_calls is not None and params.name in BROWSER_TOOL_NAMES:
            return await browser_calls.call(ctx, params.name, dict(params.arguments or {}))
        return await calls.call(ctx, params)

    async def list_resources(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        # Run files are reached through the links a tool result gives; there are too many to list.
        return types.ListResourcesResult(resources=[])

    async def read_resource(ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        return read_run_file(str(params.uri), config.runs_dir, config.max_message_bytes)

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )
