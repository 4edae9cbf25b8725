"""The policy proxy: an HTTP forward proxy on 127.0.0.1 that judges every request before any byte
leaves for its target.

A browser context created with `Target.createBrowserContext {proxyServer: proxy.proxy_server,
proxyBypassList: PROXY_BYPASS_LIST}` sends it every request of every frame, popup and worker,
WebSocket included (as CONNECT); `<-loopback>` stops Chromium from sending loopback and
`*.localhost` traffic around it. Per request the proxy:

1. reads a bounded head (CONNECT authority, or an absolute-form URL);
2. judges host and port with `judge_url` / `judge_connect`;
3. resolves names itself and drops private answers unless the policy allows them;
4. connects to the exact address it vetted, or answers 403 with `X-Verity-Blocker: <kind>` and
   records the refusal, without ever opening a connection to the target.

Plain HTTP: one upstream connection per request (`Connection: close` upstream), while the
browser's connection to the proxy may stay alive; bodies stream in both directions.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from types import TracebackType
from typing import Self

from runtime.outcomes import BlockerKind
from runtime.policy.blocked_log import DEFAULT_SAMPLE_LIMIT, BlockedLog, BlockedRequest, OnBlocked, ProxyCounters
from runtime.policy.network_policy import NetworkPolicy
from runtime.policy.upstream import Resolver, ResolutionFailed, Upstream, UpstreamRefused, system_resolver, vetted_upstream
from runtime.policy.urls import DEFAULT_PORTS, NAVIGATION_SCHEMES, UrlError, UrlJudgement, judge_connect, judge_url, parse_url
from runtime.policy.wire import (
    HOP_BY_HOP,
    MAX_HEAD_BYTES,
    COPY_CHUNK,
    Head,
    WireError,
    discard_body,
    parse_request_head,
    parse_response_head,
    read_head,
    relay_body,
    request_framing,
    response_framing,
    serialise_head,
)

_log = logging.getLogger(__name__)

PROXY_BYPASS_LIST = "<-loopback>"
BLOCKER_HEADER = "X-Verity-Blocker"
_SEC_FETCH = ("sec-fetch-dest", "sec-fetch-mode", "sec-fetch-site", "sec-fetch-user")
_DISCARD_LIMIT = 1024 * 1024
_REDIRECTS = ("301", "302", "303", "307", "308")
_REASONS = {400: "Bad Request", 403: "Forbidden", 431: "Request Header Fields Too Large", 501: "Not Implemented",
            502: "Bad Gateway", 504: "Gateway Timeout", 505: "HTTP Version Not Supported"}


@dataclass(frozen=True)
class ProxyTimeouts:
    """Seconds. `head`: waiting for a request head (also between keep-alive requests)."""

    head: float = 30.0
    resolve: float = 10.0
    connect: float = 10.0


class _Refused(Exception):
    """A request the proxy answers itself: `status`, and the refusal to record if any."""

    def __init__(self, status: int, message: str, blocked: BlockedRequest | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.blocked = blocked


class PolicyProxy:
    """`async with PolicyProxy(policy) as proxy:` then give Chromium `proxy.proxy_server`.

    `on_blocked` is awaited for each refusal before the browser sees the 403, so a listener (the
    session's `guardrail_tripped` events) always knows of a block before the page does.
    """

    def __init__(self, policy: NetworkPolicy, *, resolver: Resolver | None = None, on_blocked: OnBlocked | None = None,
                 sample_limit: int = DEFAULT_SAMPLE_LIMIT, timeouts: ProxyTimeouts = ProxyTimeouts()) -> None:
        self.policy = policy
        self.log = BlockedLog(sample_limit, on_blocked)
        self._resolver = resolver or system_resolver
        self._timeouts = timeouts
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ lifecycle

    async def start(self, listener: socket.socket | None = None) -> Self:
        """Serve on a loopback port of its own, or on `listener`: a loopback socket already bound
        and listening, which a browser context may have been given before this proxy existed
        (connections wait in its backlog until they are served here, never anywhere else)."""
        if listener is None:
            self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0, limit=MAX_HEAD_BYTES)
        else:
            self._server = await asyncio.start_server(self._accept, sock=listener, limit=MAX_HEAD_BYTES)
        return self

    async def stop(self) -> None:
        """Stop listening and end every open connection; safe to call twice."""
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        await server.wait_closed()

    async def __aenter__(self) -> Self:
        return await self.start()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "the proxy is not started"
        return self._server.sockets[0].getsockname()[1]

    @property
    def proxy_server(self) -> str:
        """The value for `Target.createBrowserContext`'s `proxyServer`."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def counters(self) -> ProxyCounters:
        return self.log.counters

    # ------------------------------------------------------------------ connections

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            await self._serve(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.TimeoutError):
            pass  # the browser or the upstream went away; nothing to answer
        except asyncio.CancelledError:
            # Only stop() cancels a connection; ending quietly keeps asyncio's server callback
            # from logging the cancellation as an error.
            pass
        except WireError as error:  # a body broke its framing mid-stream: nothing left to answer on
            self.counters.malformed += 1
            _log.warning("policy proxy: %s", error)
        except Exception:  # noqa: BLE001 - one connection's bug must not stop the proxy
            _log.exception("policy proxy: a connection failed")
        finally:
            self._connections.discard(task)
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                raw = await asyncio.wait_for(read_head(reader), self._timeouts.head)
                if raw is None:
                    return
                head = parse_request_head(raw)
            except WireError as error:
                self.counters.malformed += 1
                await _answer(writer, error.status, str(error))
                return
            self.counters.requests += 1
            try:
                if head.start[0] == "CONNECT":
                    await self._tunnel(head, reader, writer)
                    return
                if not await self._forward(head, reader, writer):
                    return
            except _Refused as refusal:
                if refusal.blocked is not None:
                    await self.log.record(refusal.blocked)
                await _answer(writer, refusal.status, str(refusal), refusal.blocked)
                return

    async def _tunnel(self, head: Head, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        judgement = judge_connect(head.start[1], self.policy)
        upstream_reader, upstream_writer = await self._open(head, judgement)
        writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        await _pipe(reader, writer, upstream_reader, upstream_writer)

    async def _forward(self, head: Head, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """One plain-HTTP exchange; True when the browser's connection may carry another."""
        method, target, version = head.start
        try:
            parse_url(target)
            framing = request_framing(head)
        except (UrlError, WireError) as error:
            self.counters.malformed += 1
            status = error.status if isinstance(error, WireError) else 400
            raise _Refused(status, f"{error}; this is a forward proxy: send absolute-form requests (GET http://host/path)") from None
        websocket = "websocket" in head.tokens("upgrade")
        judgement = judge_url(target, self.policy, websocket=websocket)
        if judgement.allowed and judgement.scheme not in ("http", "ws"):
            raise _Refused(501, f"{judgement.scheme}: through this proxy needs CONNECT")
        try:
            upstream_reader, upstream_writer = await self._open(head, judgement)
        except _Refused:
            # Read a small body first, so the browser gets the answer instead of a reset.
            with contextlib.suppress(asyncio.IncompleteReadError, asyncio.TimeoutError):
                await asyncio.wait_for(discard_body(reader, framing, _DISCARD_LIMIT), self._timeouts.head)
            raise
        sending: asyncio.Task[None] | None = None
        try:
            upstream_writer.write(serialise_head(f"{method} {_origin_form(target)} HTTP/1.1", _upstream_headers(head, judgement, websocket)))
            sending = asyncio.create_task(relay_body(reader, upstream_writer, framing))
            response = await _unless_failed(sending, self._final_response(upstream_reader, writer, method))
            if response.start[1] == "101":
                writer.write(serialise_head(_status_line(response), list(response.headers)))
                await _pipe(reader, writer, upstream_reader, upstream_writer)
                return False
            self._refuse_unsafe_redirect(head, response)
            body = response_framing(response, method)
            keep_alive = version == "HTTP/1.1" and "close" not in head.tokens("connection") and body.kind != "eof"
            headers = [(k, v) for k, v in response.headers if k.lower() not in _dropped(response)]
            headers.append(("Connection", "keep-alive" if keep_alive else "close"))
            writer.write(serialise_head(_status_line(response), headers))
            await relay_body(upstream_reader, writer, body)
            await writer.drain()
            # A response that ended before the request body did leaves the connection unusable.
            return keep_alive and sending.done() and sending.exception() is None
        finally:
            if sending is not None:
                sending.cancel()
                await asyncio.gather(sending, return_exceptions=True)
            upstream_writer.close()

    def _refuse_unsafe_redirect(self, head: Head, response: Head) -> None:
        """A redirect to a scheme the browser would not ask the proxy for (data:, file:,
        javascript:, ...) is refused here, where the hop is still visible: http(s) hops come back
        through the proxy and are judged when followed."""
        location = response.header("location")
        if response.start[1] not in _REDIRECTS or not location:
            return
        try:
            scheme = parse_url(location).scheme
        except UrlError:
            return  # relative (or scheme-relative): the next request is judged when it comes
        if scheme in NAVIGATION_SCHEMES:
            return
        reason = f"{head.start[1]} redirects to {scheme}:, which is not allowed (only {', '.join(NAVIGATION_SCHEMES)})"
        judgement = UrlJudgement(False, BlockerKind.SCHEME_NOT_ALLOWED, reason, head.start[1], scheme=scheme)
        raise _Refused(403, reason, self._blocked(head, judgement, reason, None))

    async def _final_response(self, upstream: asyncio.StreamReader, writer: asyncio.StreamWriter, method: str) -> Head:
        """The upstream's final response head; interim 1xx heads (100 Continue) pass through."""
        while True:
            try:
                raw = await read_head(upstream)
                if raw is None:
                    raise WireError(502, "the upstream closed without answering")
                response = parse_response_head(raw)
            except WireError as error:
                self.counters.upstream_failed += 1
                raise _Refused(502, str(error)) from None
            status = int(response.start[1])
            if status >= 200 or status == 101:
                return response
            writer.write(serialise_head(_status_line(response), list(response.headers)))

    async def _open(self, head: Head, judgement: UrlJudgement) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """Refuse (403) or connect to a vetted address; the target is never touched on refusal."""
        if not judgement.allowed:
            raise _Refused(403, judgement.reason, self._blocked(head, judgement, judgement.reason, judgement.private_class))
        try:
            upstream = await vetted_upstream(judgement, self._resolver, self._timeouts.resolve)
        except UpstreamRefused as refusal:
            raise _Refused(403, refusal.reason, self._blocked(head, judgement, refusal.reason, refusal.private_class)) from None
        except ResolutionFailed as error:
            self.counters.upstream_failed += 1
            raise _Refused(502, str(error)) from None
        connection = await self._connect(upstream)
        self.counters.allowed += 1
        return connection

    async def _connect(self, upstream: Upstream) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        failures = []
        for address in upstream.addresses:
            try:
                return await asyncio.wait_for(
                    asyncio.open_connection(address, upstream.port, limit=MAX_HEAD_BYTES), self._timeouts.connect
                )
            except (OSError, asyncio.TimeoutError) as error:
                failures.append(f"{address}: {error or 'timed out'}")
        self.counters.upstream_failed += 1
        raise _Refused(502, f"could not connect to port {upstream.port} ({'; '.join(failures)})")

    def _blocked(self, head: Head, judgement: UrlJudgement, reason: str, klass: str | None) -> BlockedRequest:
        return BlockedRequest(
            at=time.time(),
            method=head.start[0],
            target=head.start[1],
            blocker_kind=judgement.blocker_kind or BlockerKind.DOMAIN_NOT_ALLOWED,
            reason=reason,
            host=judgement.host,
            port=judgement.port,
            private_class=klass,
            sec_fetch={name: value for name in _SEC_FETCH if (value := head.header(name)) is not None},
        )


def _origin_form(target: str) -> str:
    rest = parse_url(target).rest.partition("#")[0]
    return rest if rest.startswith("/") else "/" + rest


def _upstream_headers(head: Head, judgement: UrlJudgement, websocket: bool) -> list[tuple[str, str]]:
    """The browser's headers minus hop-by-hop ones, Host set from the judged URL (RFC 9112 3.2.2)."""
    dropped = HOP_BY_HOP | {"host"} | head.tokens("connection")
    headers = [(k, v) for k, v in head.headers if k.lower() not in dropped]
    default = DEFAULT_PORTS.get(judgement.scheme or "")
    host = judgement.host if judgement.port == default else f"{judgement.host}:{judgement.port}"
    headers.insert(0, ("Host", host or ""))
    if websocket:
        headers += [("Connection", "Upgrade"), ("Upgrade", head.header("upgrade") or "websocket")]
    else:
        headers.append(("Connection", "close"))
    return headers


def _dropped(response: Head) -> set[str]:
    # The fence's refusal header is the proxy's alone: a site that sends one (to pass its page off
    # as a refusal of a URL the proxy did refuse before) has it removed, so only our 403 carries it.
    return {"connection", "keep-alive", "proxy-connection", BLOCKER_HEADER.lower()} | response.tokens("connection")


def _status_line(response: Head) -> str:
    _, status, reason = response.start
    return f"HTTP/1.1 {status} {reason}".rstrip()


async def _unless_failed(sending: asyncio.Task[None], answer: Awaitable[Head]) -> Head:
    """Await the upstream's answer, unless sending the browser's body fails first (the browser
    went away mid-body: the upstream would wait for the rest forever)."""
    answering = asyncio.ensure_future(answer)
    try:
        await asyncio.wait({sending, answering}, return_when=asyncio.FIRST_COMPLETED)
        if not answering.done() and sending.exception() is not None:
            raise ConnectionError(f"the request body could not be sent: {sending.exception()}")
        return await answering
    finally:
        answering.cancel()


async def _answer(writer: asyncio.StreamWriter, status: int, message: str, blocked: BlockedRequest | None = None) -> None:
    """The proxy's own answer; a refusal names its blocker kind in a header and in the body."""
    kind = blocked.blocker_kind.value if blocked else None
    body = (f"Blocked by Verity's network policy ({kind}): {message}\n" if kind else f"{message}\n").encode("utf-8")
    headers = [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body))),
               ("Cache-Control", "no-store"), ("Connection", "close")]
    if kind:
        headers.insert(0, (BLOCKER_HEADER, kind))
    with contextlib.suppress(ConnectionError):
        writer.write(serialise_head(f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}", headers) + body)
        await writer.drain()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                upstream_reader: asyncio.StreamReader, upstream_writer: asyncio.StreamWriter) -> None:
    """Copy bytes both ways until either side closes (a tunnel or an upgraded WebSocket)."""

    async def copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while chunk := await source.read(COPY_CHUNK):
                sink.write(chunk)
                await sink.drain()

    directions = [asyncio.create_task(copy(reader, upstream_writer)), asyncio.create_task(copy(upstream_reader, writer))]
    try:
        await asyncio.wait(directions, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in directions:
            task.cancel()
        await asyncio.gather(*directions, return_exceptions=True)
        upstream_writer.close()
