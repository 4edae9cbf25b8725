"""Attaching to a Chromium someone else started (`verity serve --browser-ws`), and finding where a
restarted one now listens."""

from __future__ import annotations

import asyncio
import http.client
import json
from urllib.parse import urlsplit
from urllib.request import urlopen

import runtime.browser.launch.transport  # noqa: F401 - pyppeteer patched before it is used
import pyppeteer

from runtime.browser.launch.browser import Browser
from runtime.browser.launch.endpoints import endpoint_problem, redact_endpoint
from runtime.browser.vocabulary.errors import BrowserLaunchError, LaunchErrorCode


async def connect_browser(ws_endpoint: str, *, timeout_ms: int = 10_000) -> Browser:
    """Attach to an already running Chromium's CDP endpoint (``ws://127.0.0.1:PORT/devtools/browser/...``).

    `close()` on the result disconnects and leaves that Chromium running. Errors name the endpoint
    redacted (`redact_endpoint`): they end up in run verdicts.
    """
    shown = redact_endpoint(ws_endpoint)
    if problem := endpoint_problem(ws_endpoint):
        raise BrowserLaunchError(LaunchErrorCode.CONNECT_FAILED, f"--browser-ws {shown}: {problem}")
    # pyppeteer.connect does not fail on a refused connection (its reader task only logs it), so it
    # would wait out the whole timeout; a port nothing listens on is told at once instead.
    parts = urlsplit(ws_endpoint)
    try:
        _, probe = await asyncio.wait_for(asyncio.open_connection(parts.hostname, parts.port or (443 if parts.scheme == "wss" else 80)), timeout_ms / 1000)
    except (OSError, asyncio.TimeoutError) as exc:
        reason = "no answer" if isinstance(exc, asyncio.TimeoutError) else (exc.strerror or str(exc))
        raise BrowserLaunchError(LaunchErrorCode.CONNECT_FAILED, f"could not connect to {shown}: {reason}") from None
    probe.close()
    try:
        raw = await asyncio.wait_for(
            pyppeteer.connect(browserWSEndpoint=ws_endpoint), timeout_ms / 1000
        )
    except asyncio.TimeoutError:
        raise BrowserLaunchError(
            LaunchErrorCode.CONNECT_FAILED, f"no answer from {shown} within {timeout_ms} ms"
        ) from None
    except Exception as exc:
        raise BrowserLaunchError(
            LaunchErrorCode.CONNECT_FAILED, f"could not connect to {shown}: {str(exc).replace(ws_endpoint, shown)}"
        ) from None
    return Browser(raw, launched=False, ws_endpoint=ws_endpoint)


async def discover_ws_endpoint(ws_endpoint: str, *, timeout: float = 5.0) -> str | None:
    """The DevTools websocket a Chromium at `ws_endpoint`'s address announces now (its
    /json/version), or None. A restarted Chromium keeps its address but gets a new browser id."""
    parts = urlsplit(ws_endpoint)
    if parts.scheme not in ("ws", "wss") or not parts.netloc:
        return None
    address = parts.netloc.rpartition("@")[2]  # credentials in the URL are the websocket's, not for this
    version_url = f"{'https' if parts.scheme == 'wss' else 'http'}://{address}/json/version"

    def fetch() -> str | None:
        try:
            with urlopen(version_url, timeout=timeout) as reply:  # noqa: S310 - the configured DevTools address
                found = json.loads(reply.read().decode("utf-8")).get("webSocketDebuggerUrl")
        except (OSError, ValueError, http.client.HTTPException):
            return None
        return found if isinstance(found, str) and found.startswith(("ws://", "wss://")) else None

    return await asyncio.to_thread(fetch)
