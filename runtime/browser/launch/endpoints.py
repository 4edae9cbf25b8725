"""DevTools endpoints as a user gives them: whether one can be attached to, and how it is shown in
events, logs and errors (its secrets redacted). Plain functions: importing this loads no pyppeteer."""

from __future__ import annotations

from urllib.parse import urlsplit


def endpoint_problem(ws_endpoint: str) -> str | None:
    """Why `ws_endpoint` cannot be a DevTools websocket to attach to, or None when it can be."""
    try:
        parts = urlsplit(ws_endpoint)
        port = parts.port
    except ValueError as error:
        return f"not a URL ({error})"
    if parts.scheme not in ("ws", "wss"):
        return "a DevTools URL starts with ws:// or wss:// (e.g. ws://127.0.0.1:9222/devtools/browser/ID)"
    if not parts.hostname:
        return "the URL names no host"
    if port is None and parts.scheme == "ws":
        return "the URL names no port (e.g. ws://127.0.0.1:9222/...)"
    return None


REDACTED = "[redacted]"


def redact_endpoint(ws_endpoint: str) -> str:
    """`ws_endpoint` fit to show in events, logs and errors: user and password, query values and
    fragment replaced. A hosted browser's URL often carries its access token in the query."""
    try:
        parts = urlsplit(ws_endpoint)
        netloc = parts.netloc
    except ValueError:
        return REDACTED
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rpartition('@')[2]}"
    query = "&".join(f"{pair.partition('=')[0]}={REDACTED}" if "=" in pair else REDACTED for pair in parts.query.split("&") if pair)
    shown = f"{parts.scheme}://{netloc}{parts.path}" if parts.scheme else REDACTED
    return shown + (f"?{query}" if query else "") + (f"#{REDACTED}" if parts.fragment else "")
