"""pyppeteer as the CDP transport, with patches of ours: commands whose caller gave up do not
kill the connection, the DevTools websocket is opened without compression, and a websocket that
never opens fails the commands waiting for it.

Imported before anything else of pyppeteer's is used (`browser.py` imports it first).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pyppeteer.connection


def _drop_settled_callbacks(callbacks: dict[int, asyncio.Future[Any]]) -> None:
    for message_id in [key for key, future in callbacks.items() if future.done()]:
        del callbacks[message_id]


def _tolerate_abandoned_commands() -> None:
    """Let pyppeteer's transport survive commands whose caller gave up.

    An action that times out cancels the CDP command it was waiting for, and cancelling a task
    cancels that command's future. pyppeteer later settles the future anyway (the reply comes,
    or the target detaches), which raises InvalidStateError inside its receive loop and kills
    the browser connection for every session on it. Settled futures are dropped first.
    """
    connection_class, session_class = pyppeteer.connection.Connection, pyppeteer.connection.CDPSession
    if getattr(connection_class, "_verity_tolerant", False):
        return
    on_response, on_close = connection_class._on_response, connection_class._on_close
    on_message, on_closed = session_class._on_message, session_class._on_closed

    def connection_on_response(self: Any, msg: dict[str, Any]) -> None:
        future = self._callbacks.get(msg.get("id", -1))
        if future is not None and future.done():
            del self._callbacks[msg["id"]]
            return
        on_response(self, msg)

    async def connection_on_close(self: Any) -> None:
        _drop_settled_callbacks(self._callbacks)
        await on_close(self)

    def session_on_message(self: Any, msg: str) -> None:
        _drop_settled_callbacks(self._callbacks)
        on_message(self, msg)

    def session_on_closed(self: Any) -> None:
        _drop_settled_callbacks(self._callbacks)
        on_closed(self)

    connection_class._on_response = connection_on_response
    connection_class._on_close = connection_on_close
    session_class._on_message = session_on_message
    session_class._on_closed = session_on_closed
    connection_class._verity_tolerant = True


_tolerate_abandoned_commands()


def _devtools_socket() -> None:
    """Open the DevTools websocket without permessage-deflate, and end the commands of one that
    never opens.

    The socket only ever runs over loopback (or to a pool's attached browser on the host's
    network), where compressing every CDP message costs CPU on both ends and saves nothing worth
    it: screenshots travel base64-encoded, HTML and texts in full. pyppeteer's Connection builds
    its (lazy) connect in __init__ and opens it from a task that runs after, so the connect is
    replaced before it is used. A handshake refused (`_fail_if_never_opened`) fails the commands
    waiting for the socket, and their sends stop waiting.
    """
    connection_class = pyppeteer.connection.Connection
    if getattr(connection_class, "_verity_patched", False):
        return
    initialise = connection_class.__init__

    def connection_init(self: Any, url: str, loop: asyncio.AbstractEventLoop, delay: int = 0) -> None:
        initialise(self, url, loop, delay)
        self._ws = pyppeteer.connection.ws_connect(
            self._url, max_size=None, loop=self._loop, ping_interval=None, ping_timeout=None, compression=None
        )
        self._recv_fut.add_done_callback(lambda receiving: _fail_if_never_opened(self, receiving))

    send_when_open = connection_class._async_send

    async def async_send(self: Any, message: str, callback_id: int) -> None:
        # pyppeteer's own wait for the socket spins (sleep(0)) until it opens: one that never
        # opens would keep a core busy for the life of the process.
        while not self._connected:
            if self._recv_fut.done():
                return  # never opened: _fail_if_never_opened failed the command
            await asyncio.sleep(self._delay)
        await send_when_open(self, message, callback_id)

    connection_class.__init__ = connection_init
    connection_class._async_send = async_send
    connection_class._verity_patched = True


_devtools_socket()


def _fail_if_never_opened(connection: Any, receiving: asyncio.Task[None]) -> None:
    """pyppeteer sends a command only once its websocket is open, and waits for that forever: a
    refused handshake (a restarted Chromium answers its old browser id with HTTP 404) ended the
    receive task with the error and left `connect` waiting out its caller's whole timeout. The
    commands waiting then fail with that error at once."""
    if receiving.cancelled() or receiving.exception() is None or connection._connected:
        return
    error = pyppeteer.connection.NetworkError(f"the DevTools websocket did not open: {receiving.exception()}")
    for waiting in connection._callbacks.values():
        if not waiting.done():
            waiting.set_exception(error)


def send_in_flat_session(connection: Any, session_id: str, method: str, params: dict[str, Any] | None = None) -> asyncio.Future[Any]:
    """One command to a target through a flat session (the message names its `sessionId`), as
    Chromium requires for a target the browser attached on its own (`Target.setAutoAttach` at the
    browser's level). pyppeteer speaks only nested sessions; the reply comes back by id like any
    of the connection's, so its own bookkeeping settles it."""
    if connection._lastId and not connection._connected:
        raise ConnectionError("Connection is closed")
    connection._lastId += 1
    message_id = connection._lastId
    message = json.dumps({"id": message_id, "method": method, "params": params or {}, "sessionId": session_id})
    connection._loop.create_task(connection._async_send(message, message_id))
    reply = connection._loop.create_future()
    reply.error = pyppeteer.connection.NetworkError()
    reply.method = method
    connection._callbacks[message_id] = reply
    return reply


class FlatSession(pyppeteer.connection.EventEmitter):  # type: ignore[misc]
    """A target's flat session on the browser connection, as a CDP session: `send` a command,
    `on` an event. pyppeteer would emit a flat session's events as the browser's own, unattributed;
    `_flat_session_events` hands them to the FlatSession of their `sessionId` instead."""

    def __init__(self, connection: Any, session_id: str) -> None:
        super().__init__()
        self._connection = connection
        self.session_id = session_id
        connection.__dict__.setdefault("_verity_flat", {})[session_id] = self

    def send(self, method: str, params: dict[str, Any] | None = None) -> asyncio.Future[Any]:
        return send_in_flat_session(self._connection, self.session_id, method, params)

    def forget(self) -> None:
        self._connection.__dict__.get("_verity_flat", {}).pop(self.session_id, None)

    async def detach(self) -> None:
        """Let go of the target (it runs on); nothing is heard from it here any more."""
        self.forget()
        await self._connection.send("Target.detachFromTarget", {"sessionId": self.session_id})


def _flat_session_events() -> None:
    connection_class = pyppeteer.connection.Connection
    if getattr(connection_class, "_verity_flat_events", False):
        return
    on_query = connection_class._on_query

    def connection_on_query(self: Any, msg: dict[str, Any]) -> None:
        flat = self.__dict__.get("_verity_flat")
        session = flat.get(msg.get("sessionId")) if flat and msg.get("sessionId") else None
        if session is not None:
            session.emit(msg.get("method", ""), msg.get("params", {}))
            return
        if flat and msg.get("method") == "Target.detachedFromTarget":
            flat.pop((msg.get("params") or {}).get("sessionId"), None)
        on_query(self, msg)

    connection_class._on_query = connection_on_query
    connection_class._verity_flat_events = True


_flat_session_events()
