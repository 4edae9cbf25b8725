"""Launching and connecting to Chromium; the `Browser` that owns the connection.

Finding Chromium, its command line and the spawn are `chromium_start`;
pyppeteer carries the CDP transport; everything above it is ours.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import logging
import os
import signal
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from urllib.request import urlopen

# pyppeteer must never try to download its own Chromium; we always pass executablePath.
os.environ.setdefault("PYPPETEER_SKIP_CHROMIUM_DOWNLOAD", "1")

import pyppeteer  # noqa: E402
import pyppeteer.browser  # noqa: E402

import pyppeteer.connection  # noqa: E402

from runtime.browser.chromium_process import ChromiumProfile  # noqa: E402
from runtime.browser.chromium_start import LaunchOptions, SpawnedChromium, spawn  # noqa: E402
from runtime.browser.errors import BrowserLaunchError, LaunchErrorCode  # noqa: E402

_log = logging.getLogger(__name__)



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


def _uncompressed_devtools_socket() -> None:
    """Open the DevTools websocket without permessage-deflate.

    The socket only ever runs over loopback (or to a pool's attached browser on the host's
    network), where compressing every CDP message costs CPU on both ends and saves nothing worth
    it: screenshots travel base64-encoded, HTML and texts in full. pyppeteer's Connection builds
    its (lazy) connect in __init__ and opens it from a task that runs after, so the connect is
    replaced before it is used.
    """
    connection_class = pyppeteer.connection.Connection
    if getattr(connection_class, "_verity_uncompressed", False):
        return
    initialise = connection_class.__init__

    def connection_init(self: Any, url: str, loop: asyncio.AbstractEventLoop, delay: int = 0) -> None:
        initialise(self, url, loop, delay)
        self._ws = pyppeteer.connection.ws_connect(
            self._url, max_size=None, loop=self._loop, ping_interval=None, ping_timeout=None, compression=None
        )

    connection_class.__init__ = connection_init
    connection_class._verity_uncompressed = True


_uncompressed_devtools_socket()



# How long a browser that is asked whether it is still there may take to answer one command.
GONE_CHECK_CEILING_S = 10.0


class Browser:
    """One Chromium (launched or connected), shared by many runs.

    It owns the connection and nothing above it: whatever a run opens on it (an incognito context
    with its tabs) registers a stop callback with `on_close`, and `close()` calls them before the
    browser goes. `close()` is safe to call twice. If the Chromium process dies or the connection
    drops, `crashed` becomes True; callers watch `disconnected` to fail their pending work.
    """

    def __init__(
        self,
        raw: pyppeteer.browser.Browser,
        *,
        launched: bool,
        ws_endpoint: str,
        process: subprocess.Popen[bytes] | None = None,
        profile: ChromiumProfile | None = None,
    ) -> None:
        self._raw = raw
        self._launched = launched
        self.ws_endpoint = ws_endpoint
        self._process = process
        self._profile = profile
        self._closing = False
        self._closed = False
        # Latched once the browser is found dead (the connection dropped, or the process exited)
        # before anyone asked it to close: closing it afterwards (a provider replacing it) must
        # not turn the crash back into "closed on purpose" for a run still looking at it.
        self._lost = False
        self.disconnected = asyncio.Event()
        self._stop_on_close: dict[str, Callable[[], Awaitable[object]]] = {}
        raw.on("disconnected", self._on_disconnected)

    @property
    def raw(self) -> pyppeteer.browser.Browser:
        """The pyppeteer browser, for transport-level needs (CDP sessions, targets)."""
        return self._raw

    @property
    def attached_endpoint(self) -> str | None:
        """The DevTools URL this browser was attached at (`redact_endpoint`ed); None when launched."""
        return None if self._launched else redact_endpoint(self.ws_endpoint)

    @property
    def pid(self) -> int | None:
        """The Chromium process id when we launched it; None when connected."""
        return self._process.pid if self._process is not None else None

    @property
    def exit_code(self) -> int | None:
        """The launched Chromium's exit status once it has exited (negative: the signal that ended
        it); None while it runs, and when connected."""
        return self._process.poll() if self._process is not None else None

    @property
    def crashed(self) -> bool:
        """True when the connection dropped (or the process died) before `close()` was asked for."""
        return self._lost or (self.disconnected.is_set() and not self._closing)

    @property
    def process_died(self) -> bool:
        """True when we launched Chromium and its process has exited."""
        return self._process is not None and self._process.poll() is not None

    def _on_disconnected(self, *_: object) -> None:
        if not self._closing:
            self._lost = True
        self.disconnected.set()

    async def create_context(self, *, proxy_server: str | None = None, proxy_bypass_list: str = "") -> pyppeteer.browser.BrowserContext:
        """A fresh incognito browser context; with `proxy_server`, every request of every target
        in it (frames, popups, workers, WebSocket) goes through that proxy.

        pyppeteer's createIncognitoBrowserContext has no proxy option, so the context is created
        with raw CDP and wrapped in pyppeteer's BrowserContext, registered where pyppeteer files
        the contexts it made itself (its targets then find their context).
        """
        params: dict[str, object] = {"disposeOnDetach": True}
        if proxy_server is not None:
            params.update(proxyServer=proxy_server, proxyBypassList=proxy_bypass_list)
        reply = await self._raw._connection.send("Target.createBrowserContext", params)
        context_id = reply["browserContextId"]
        context = pyppeteer.browser.BrowserContext(self._raw, context_id)
        self._raw._contexts[context_id] = context
        return context

    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """One browser-level CDP command (Storage.setCookies with a browserContextId ...)."""
        return await self._raw._connection.send(method, params or {})

    async def round_trip(self) -> None:
        """One browser-level command and its reply. CDP sends a connection's messages in order,
        so when this returns, every event the browser emitted before it (a popup's
        Target.targetCreated) has been dispatched."""
        await self._raw._connection.send("Browser.getVersion")

    async def is_gone(self, ceiling_s: float = GONE_CHECK_CEILING_S) -> bool:
        """Is this browser dead or unreachable? Asked when an action or a step failed, before the
        failure is classified: a wait that "timed out" because Chromium was killed under it is a
        crash, whichever of the timeout and the disconnect notice came first. A live browser
        answers one command; a killed one cannot (its connection fails or stays silent)."""
        if self.crashed or self.process_died:
            return True
        if self._closing:
            return False  # closed on purpose while it was alive (a shutdown): not a crash
        answer = asyncio.ensure_future(self.round_trip())
        dropped = asyncio.ensure_future(self.disconnected.wait())
        try:
            done, _ = await asyncio.wait({answer, dropped}, timeout=ceiling_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            dropped.cancel()
            if not answer.done():
                answer.cancel()
        if answer in done and answer.exception() is None:
            return self.crashed
        # The command failed, or the connection dropped, or nothing answered within the ceiling.
        return not self._closing

    def on_cdp_event(self, method: str, listener: Callable[[dict[str, Any]], None]) -> None:
        """Hear a browser-level CDP event (Target.targetCreated ...) as soon as it arrives."""
        self._raw._connection.on(method, listener)

    def off_cdp_event(self, method: str, listener: Callable[[dict[str, Any]], None]) -> None:
        self._raw._connection.remove_listener(method, listener)

    def on_close(self, key: str, stop: Callable[[], Awaitable[object]]) -> None:
        """Call `stop()` (given at most 5 s) when this browser closes, unless `drop_on_close(key)`."""
        self._stop_on_close[key] = stop

    def drop_on_close(self, key: str) -> None:
        self._stop_on_close.pop(key, None)

    async def close(self) -> None:
        """Stop what registered `on_close`, then end Chromium: one we launched in a profile of our own
        is killed with its process group and the profile removed, one in a named profile is closed,
        one we connected to is disconnected from and left running."""
        if self._closed:
            return
        if self.disconnected.is_set() or self.process_died:
            self._lost = True  # it was dead before this close: a crash, whoever closes it now
        self._closing = True
        self._closed = True
        for stop in list(self._stop_on_close.values()):
            try:
                await asyncio.wait_for(stop(), timeout=5)
            except Exception:  # noqa: BLE001 - closing must proceed even if one stop is wedged
                pass
        # A Chromium in a profile of our own is killed, not asked to close: on a close it writes
        # its profile out (history, preferences, caches), which is removed right after, and that
        # took most of the run's end (BENCHMARKS.md, "Run start"). A profile the caller named is
        # theirs to keep: that Chromium closes the ordinary way.
        throwaway = self._launched and self._profile is not None
        try:
            if self._launched and not throwaway:
                await asyncio.wait_for(self._raw.close(), timeout=10)
            else:
                await asyncio.wait_for(self._raw.disconnect(), timeout=10)
        except Exception:  # noqa: BLE001 - the process may already be gone; kill below
            pass
        process = self._process
        if process is not None and throwaway:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # the browser leads its own process group
        if process is not None:
            if not await _exited(process, seconds=10):
                # The browser leads its own process group: take its helpers with it.
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                await _exited(process, seconds=10)
        if self._profile is not None:
            # Hundreds of files: removed on a worker thread, so the loop goes on meanwhile.
            await asyncio.to_thread(self._profile.remove)


class StartingChromium:
    """A spawned Chromium (`chromium_start.spawn`), not yet taken by anyone.

    Starting is split from connecting so that `verity run` can start the browser first and load
    its recipe (and the rest of its code) while Chromium starts on another core. `connect()`
    hands the process over to a `Browser` whose taker owns it; `discard()` (or, when nothing was
    begun, `abandon()`) ends it when no run will use it (a bad recipe). `begin_head_start()`
    connects early and prepares the browser for its taker (`verity run` reserves the first
    session's context while its executor is imported); the taker collects that with `prepared()`.
    """

    def __init__(self, spawned: SpawnedChromium) -> None:
        self.spawned = spawned
        self._connecting: asyncio.Future[Browser] | None = None
        self._head_start: asyncio.Future[Any] | None = None
        self._taken = False

    async def connect(self) -> Browser:
        """The `Browser` on this process, once it listens for DevTools; the caller owns it from
        then on. On failure the process is killed, its profile removed, and `BrowserLaunchError`
        raised."""
        self._taken = True
        return await self._connected()

    def _connected(self) -> asyncio.Future[Browser]:
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._connect())
        return self._connecting

    async def _connect(self) -> Browser:
        spawned = self.spawned
        spawned.claim()
        process, profile, executable, timeout_s = spawned.process, spawned.profile, spawned.executable, spawned.timeout_s
        try:
            ws_endpoint = await _devtools_endpoint(Path(spawned.user_data_dir), process, timeout_s, executable)
            if profile is not None:
                profile.record_browser(process)
            raw = await asyncio.wait_for(pyppeteer.connect(browserWSEndpoint=ws_endpoint), timeout_s)
        except BaseException as error:
            await asyncio.to_thread(spawned.end)
            if isinstance(error, BrowserLaunchError):
                raise
            if isinstance(error, asyncio.TimeoutError):
                raise BrowserLaunchError(
                    LaunchErrorCode.LAUNCH_FAILED, f"Chromium at {executable} did not answer within {timeout_s * 1000:.0f} ms"
                ) from None
            if isinstance(error, Exception):
                raise BrowserLaunchError(LaunchErrorCode.LAUNCH_FAILED, f"could not start Chromium at {executable}: {error}") from error
            raise
        return Browser(raw, launched=True, ws_endpoint=ws_endpoint, process=process, profile=profile)

    def begin_head_start(self, prepare: Callable[[Browser], Awaitable[Any]]) -> None:
        """Connect now, in the background, and then run `prepare` on the browser; its result
        waits for the taker (`prepared()`)."""

        async def head_start() -> Any:
            return await prepare(await self._connected())

        self._head_start = asyncio.ensure_future(head_start())

    async def prepared(self) -> Any:
        """What the head start prepared, handed over once; None when nothing was begun or the
        preparing failed (the browser is then used as it is, and a failed connect is raised by
        `connect()` itself)."""
        head_start, self._head_start = self._head_start, None
        if head_start is None:
            return None
        try:
            return await head_start
        except Exception as error:  # noqa: BLE001 - a head start is an optimisation; the run goes on without it
            _log.debug("the browser's head start failed: %s", error)
            return None

    async def discard(self) -> None:
        """End this Chromium if nobody took it: one connected early is closed (killed, its
        profile removed), one never connected is abandoned. Nothing once it was taken."""
        if self._taken:
            return
        self._taken = True
        if self._head_start is not None:
            self._head_start.cancel()
            await asyncio.gather(self._head_start, return_exceptions=True)
        if self._connecting is None:
            await asyncio.to_thread(self.spawned.abandon)
            return
        connected = (await asyncio.gather(self._connecting, return_exceptions=True))[0]
        if isinstance(connected, Browser):
            await connected.close()

    def abandon(self) -> None:
        """Kill the process (its whole group) and remove the profile we made for it; nothing
        once it was connected to (whoever connected closes it then)."""
        self.spawned.abandon()


def start_chromium(options: LaunchOptions | None = None) -> StartingChromium:
    """Spawn a headless Chromium (`chromium_start.spawn`) to connect to later."""
    return StartingChromium(spawn(options))


async def launch_browser(options: LaunchOptions | None = None) -> Browser:
    """Start a headless Chromium (`start_chromium`) and connect to it."""
    return await start_chromium(options).connect()


async def _devtools_endpoint(user_data_dir: Path, process: subprocess.Popen[bytes], timeout: float, executable: str) -> str:
    """The browser's DevTools websocket, from the DevToolsActivePort file it writes once listening."""
    marker = user_data_dir / "DevToolsActivePort"
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        try:
            port, path = marker.read_text().split()[:2]
            return f"ws://127.0.0.1:{int(port)}{path}"
        except (OSError, ValueError):
            pass  # not written yet, or half written
        if process.poll() is not None:
            raise BrowserLaunchError(
                LaunchErrorCode.LAUNCH_FAILED, f"Chromium at {executable} exited with code {process.returncode} while starting"
            )
        if asyncio.get_running_loop().time() > deadline:
            raise BrowserLaunchError(LaunchErrorCode.LAUNCH_FAILED, f"Chromium at {executable} did not start within {timeout * 1000:.0f} ms")
        await asyncio.sleep(0.02)


async def _exited(process: subprocess.Popen[bytes], *, seconds: float) -> bool:
    """Wait up to `seconds` for `process` to exit (and reap it), without blocking the loop."""
    deadline = asyncio.get_running_loop().time() + seconds
    while process.poll() is None:
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


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
