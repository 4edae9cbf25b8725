"""`verity mcp` on its transports: stdio (one client, the process that started it) or Streamable
HTTP (many clients; a bearer token and TLS exactly as `verity serve` has them).

Either way the runs are hosted as `verity serve` hosts them (VerityServer.open_runs), and stopped
the same way at the end: running runs get the grace period, then are interrupted with a verdict.
On stdio, stdout is the protocol's: everything else (logs) goes to stderr.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import uvicorn
from mcp.server.stdio import stdio_server

from runtime.mcp.browser_session import BrowserSessions, BrowserToolset
from runtime.mcp.browser_tools import http_session_key
from runtime.mcp.server import browser_sessions, mcp_server
from runtime.service.api.auth import bearer_credentials
from runtime.service.api.server import VerityServer
from runtime.service.config.server_config import ServerConfig

_log = logging.getLogger(__name__)
MCP_PATH = "/mcp"
SESSION_ENDED = "the MCP client ended its session: its browser was closed"

Asgi = Callable[[dict[str, Any], Callable[[], Awaitable[dict[str, Any]]], Callable[[dict[str, Any]], Awaitable[None]]], Awaitable[None]]


async def serve_stdio(config: ServerConfig, browser: BrowserToolset = BrowserToolset()) -> None:
    """Serve one client on this process's stdin/stdout until it closes them."""
    hosting = VerityServer(config)
    await hosting.open_runs()
    try:
        server = mcp_server(hosting, sessions=browser_sessions(hosting, browser))
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        await hosting.stop()


class ServedHttp:
    """`verity mcp --http`: `await start()` (returns the URL), `await stop()`."""

    def __init__(self, config: ServerConfig, browser: BrowserToolset = BrowserToolset()) -> None:
        self.config = config
        self.browser = browser
        self.hosting = VerityServer(config)
        self.url = ""
        self._uvicorn: uvicorn.Server | None = None
        self._serving: asyncio.Task[None] | None = None

    async def start(self) -> str:
        config = self.config
        await self.hosting.open_runs()
        sessions = browser_sessions(self.hosting, self.browser)
        app: Asgi = mcp_server(self.hosting, sessions=sessions).streamable_http_app(streamable_http_path=MCP_PATH, host=config.host)
        if sessions is not None:
            app = SessionEnds(app, sessions)
        if config.token:
            app = BearerTokenGate(app, config.token)
        uv_config = uvicorn.Config(
            app,
            host=config.host,
            port=config.port,
            ssl_certfile=str(config.tls_cert) if config.tls_cert else None,
            ssl_keyfile=str(config.tls_key) if config.tls_key else None,
            log_level="warning",
            lifespan="on",
        )
        self._uvicorn = uvicorn.Server(uv_config)
        self._serving = asyncio.ensure_future(self._uvicorn.serve())
        while not self._uvicorn.started:
            if self._serving.done():
                await self.hosting.stop()
                raise OSError(f"cannot listen on {config.host}:{config.port}")
            await asyncio.sleep(0.02)
        port = self._uvicorn.servers[0].sockets[0].getsockname()[1]
        host = f"[{config.host}]" if ":" in config.host else config.host
        self.url = f"{'https' if config.uses_tls else 'http'}://{host}:{port}{MCP_PATH}"
        return self.url

    async def stop(self) -> None:
        if self._uvicorn is not None and self._serving is not None:
            self._uvicorn.should_exit = True
            await asyncio.gather(self._serving, return_exceptions=True)
        await self.hosting.stop()


class SessionEnds:
    """An ASGI wrapper that ends an MCP session's browser when its client ends the session (the
    transport's DELETE, answered with success): the run ends at once, instead of holding a
    browser context and a run slot until the idle time runs out. The DELETE is answered once the
    run has ended, so a client that saw its session end knows its browser is gone."""

    def __init__(self, app: Asgi, sessions: BrowserSessions) -> None:
        self._app = app
        self._sessions = sessions

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        session_id = dict(scope.get("headers") or ()).get(b"mcp-session-id", b"").decode("latin-1")
        if scope["type"] != "http" or scope.get("method") != "DELETE" or not session_id:
            await self._app(scope, receive, send)
            return
        answer: list[dict[str, Any]] = []

        async def held(message: dict[str, Any]) -> None:
            answer.append(message)

        try:
            await self._app(scope, receive, held)
            status = next((int(m["status"]) for m in answer if m["type"] == "http.response.start"), 0)
            if 200 <= status < 300:  # the transport ended that session (not an unknown or foreign one)
                await self._sessions.end(http_session_key(session_id), SESSION_ENDED)
        finally:
            for message in answer:
                await send(message)


class BearerTokenGate:
    """An ASGI wrapper that lets through only requests with `Authorization: Bearer <token>`,
    compared in constant time (as the gRPC interceptor does); others get 401 and a reason."""

    def __init__(self, app: Asgi, token: str) -> None:
        self._app = app
        self._expected = token.encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        presented = headers.get(b"authorization", b"").decode("latin-1")
        if presented and hmac.compare_digest(bearer_credentials(presented).encode(), self._expected):
            await self._app(scope, receive, send)
            return
        message = b"missing bearer token: send 'Authorization: Bearer <token>'" if not presented else b"the bearer token is not valid for this server"
        _log.warning("rejected %s %s: %s", scope.get("method"), scope.get("path"), "no bearer token" if not presented else "wrong bearer token")
        await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")]})
        await send({"type": "http.response.body", "body": message})


async def serve_http_until_signalled(config: ServerConfig, browser: BrowserToolset = BrowserToolset()) -> None:
    served = ServedHttp(config, browser)
    url = await served.start()
    print(f"verity mcp: listening on {url}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    print("verity mcp: shutting down", file=sys.stderr, flush=True)
    await served.stop()
