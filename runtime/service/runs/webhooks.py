"""Webhooks: a run's terminal state POSTed to a URL, signed in the Standard Webhooks scheme.

The URL is the run's own (a run option, on the operator's allowlist) or the server's. A delivery
never stands in the verdict's way: it starts once the run's final verdict is durable and its
engine has ended, and each attempt is recorded as a `webhook` event after the final verdict,
whose record (status, verdict, end time) nothing after it changes.

Each attempt is judged by the network policy as any request is: the URL's scheme and host, then
the addresses its name resolves to, and the request goes to an address just vetted (a DNS answer
that changes in between cannot move it to a private address). Redirects are never followed: a
3xx answer is a failed attempt. Failed attempts are retried with waits that double.

A delivery outlives its server: it is kept in the run store (runtime/store/pending_webhooks.py)
from the moment its run is recorded, and each attempt is counted there before it begins. A
server that starts on the store, once it has closed the runs left in flight, resumes what is
left: the same webhook id and body, attempt numbers continuing, each attempt appended to the
ended run's stored events. A lease in the store keeps a delivery with one server at a time, so
replicas on one PostgreSQL store never both resume it. Receivers may still get an attempt twice
(one under way when its server died): they deduplicate on the webhook id, as the scheme asks.

Headers, as https://www.standardwebhooks.com specifies: `webhook-id` (the same for every attempt
of one delivery), `webhook-timestamp` (seconds, per attempt) and `webhook-signature`, "v1," and
the base64 HMAC-SHA256 of "<id>.<timestamp>.<body>" under the shared secret.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import logging
import time
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx2

from runtime.events import Event, EventLog, FinalVerdict, WebhookDelivery
from runtime.policy.upstream import ResolutionFailed, Resolver, UpstreamRefused, system_resolver, vetted_upstream
from runtime.policy.urls import judge_url
from runtime.service.config.webhook_settings import WebhookSettings, shown_url
from runtime.service.runs.event_bounds import EventBounder, EventLimits
from runtime.service.runs.ledger import write_event
from runtime.service.runs.live_run import LiveRun
from runtime.store import BufferedRunStore, RunRecord
from runtime.store.pending_webhooks import ALL_LEASES_EXPIRED_NS, PendingWebhook, PendingWebhooks

_log = logging.getLogger(__name__)

EVENT_TYPE = "run.ended"
# How far back from a run's stored last seq a resumed delivery looks for the run's final verdict.
_TAIL_EVENTS = 64


def webhook_signature(secret: bytes, webhook_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{webhook_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(secret, signed, hashlib.sha256).digest()).decode()


def terminal_state(record: RunRecord, final: Event) -> dict[str, Any]:
    """The webhook's body: the run's final verdict (as its durable, redacted event has it) and record."""
    verdict = final.payload
    assert isinstance(verdict, FinalVerdict)
    return {
        "type": EVENT_TYPE,
        "timestamp": datetime.fromtimestamp(final.timestamp_ns / 1e9, timezone.utc).isoformat(),
        "data": {
            "run_id": record.run_id,
            "recipe_name": record.recipe_name,
            "recipe_version": record.recipe_version,
            "status": verdict.status.value,
            "stop_reason": verdict.stop_reason.value,
            "verified": verdict.verified,
            "summary": verdict.summary,
            "blocker_kind": verdict.blocker_kind.value if verdict.blocker_kind is not None else None,
            "final_seq": final.seq,
            "trace_id": record.trace_id,
            "labels": dict(record.labels),
        },
    }


def _body(record: RunRecord, final: Event) -> bytes:
    return json.dumps(terminal_state(record, final), ensure_ascii=False, separators=(",", ":")).encode()


class _Refused(Exception):
    pass


@dataclass(frozen=True)
class StoredRuns:
    """Where a resumed delivery finds its ended run and records its attempts: the run store the
    server opened, its runs' directories (for events too large to keep whole) and event bounds."""

    store: BufferedRunStore
    runs_dir: Path
    event_limits: EventLimits


class WebhookDeliveries:
    """Deliveries of runs' terminal states, each a task of its own, kept in the run store
    (`pending`) from the run's start to the delivery's end, so that the next server resumes what
    this one did not finish. `owner` names this server in the store's leases; `lease_seconds` is
    how long another server waits for it before taking a delivery over; `shared`: other servers
    use the store at the same time (replicas on PostgreSQL), so it is scanned every
    `scan_seconds` for deliveries whose server died."""

    def __init__(
        self,
        settings: WebhookSettings,
        *,
        pending: PendingWebhooks,
        runs: StoredRuns,
        resolver: Resolver = system_resolver,
        lease_seconds: float = 15.0,
        shared: bool = False,
        scan_seconds: float = 2.0,
    ) -> None:
        self.settings = settings
        self._pending = pending
        self._runs = runs
        self._resolver = resolver
        self._owner = f"webhooks-{uuid.uuid4().hex[:12]}"
        self._lease_ns = int(lease_seconds * 1e9)
        self._shared = shared
        self._scan_seconds = scan_seconds
        self._expected: set[str] = set()
        self._unstored: dict[str, str] = {}  # runs whose delivery the store did not take at their start
        self._active: set[str] = set()  # runs whose delivery has a task here
        self._held: list[str] = []  # runs that ended as the server shut down: the next server delivers
        self._holding = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._scanner: asyncio.Task[None] | None = None
        self._client: httpx2.AsyncClient | None = None

    async def expect(self, run_id: str, url: str | None) -> None:
        """A run was recorded: keep its delivery (to `url`, the run's own URL on the operator's
        allowlist, or the server's) before its verdict can exist."""
        url = url or self.settings.url
        if url is None:
            return
        self._expected.add(run_id)
        try:
            await asyncio.to_thread(self._pending.expect, run_id, url, self._owner)
        except Exception:  # noqa: BLE001 - the run goes on; storing its delivery is tried again as it ends
            _log.exception("run %s: its webhook delivery could not be stored yet", run_id)
            self._unstored[run_id] = url

    def run_ended(self, live: LiveRun) -> None:
        """The run's final verdict is durable: deliver it, off the run's path."""
        if live.run_id not in self._expected:
            return
        self._expected.discard(live.run_id)
        if self._holding:
            self._held.append(live.run_id)
            return
        self._spawn(live.run_id, self._deliver_live(live))

    def resume_pending(self) -> None:
        """At start-up (after runs left in flight were closed): resume the deliveries a previous
        server did not finish; on a shared store, keep looking for those of servers that die."""
        self._scanner = asyncio.get_running_loop().create_task(self._scan(), name="webhook-resume")

    def hold_new(self) -> None:
        """The server shuts down: a run ending from now on is delivered by the next server."""
        self._holding = True

    async def close(self, wait_seconds: float) -> None:
        """At shutdown: attempts under way get `wait_seconds`; what remains is abandoned
        (recorded) and left, leased to nobody, to the next server."""
        self._holding = True
        if self._scanner is not None:
            self._scanner.cancel()
            await asyncio.gather(self._scanner, return_exceptions=True)
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=wait_seconds)
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        for run_id in self._held:
            await self._store_call(self._pending.release, run_id, self._owner)
        if self._client is not None:
            await self._client.aclose()
        await asyncio.to_thread(self._pending.close)

    # --- one delivery -------------------------------------------------------------------------------

    def _spawn(self, run_id: str, delivery: Coroutine[Any, Any, None]) -> None:
        self._active.add(run_id)
        task = asyncio.get_running_loop().create_task(delivery, name=f"webhook-{run_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(lambda _: self._active.discard(run_id))

    async def _deliver_live(self, live: LiveRun) -> None:
        if live.handle is not None:
            # The engine writes the run's files after its verdict; its listeners on the log end with it.
            await asyncio.wait([live.handle.task])
        if (url := self._unstored.pop(live.run_id, None)) is not None:
            await self._store_call(self._pending.expect, live.run_id, url, self._owner)
        pending = await self._claim(live.run_id)
        if pending is None:
            return  # another server took it over (a replica that found this one's lease expired)
        final = next(event for event in reversed(live.durable) if event.is_final)
        await self._attempts(pending, _body(live.shown, final), live.events.emit)

    async def _scan(self) -> None:
        while True:
            try:
                await self._resume_claimable()
            except Exception:  # noqa: BLE001 - the next scan tries again
                _log.exception("resuming webhook deliveries failed")
            if not self._shared:
                return  # one server at a time on this store: what it did not start, nobody left
            await asyncio.sleep(self._scan_seconds)

    async def _resume_claimable(self) -> None:
        now = time.time_ns()
        # A delivery never leased waits a lease past its run's end for the run's own server.
        now, ended_before = (now, now - self._lease_ns) if self._shared else (ALL_LEASES_EXPIRED_NS, ALL_LEASES_EXPIRED_NS)
        for run_id in await asyncio.to_thread(self._pending.claimable, self._owner, now, ended_before):
            if run_id in self._active or run_id in self._expected or self._holding:
                continue
            pending = await self._claim(run_id, now)
            if pending is not None:
                self._spawn(run_id, self._resume(pending))

    async def _resume(self, pending: PendingWebhook) -> None:
        """A delivery another server left: the run's terminal state as the store has it, its
        attempts appended to the run's stored events (nobody hosts the ended run)."""
        store = self._runs.store
        record = await store.get_run(pending.run_id)
        # The run's tail: its verdict and the attempts after it. An ended run's stored last seq is
        # its verdict's on PostgreSQL (a trigger keeps the ended run's row) and the newest
        # attempt's on SQLite; the whole run is read only when many attempts came after it.
        events: list[Event] = []
        final: Event | None = None
        for after in ((max(0, record.last_seq - _TAIL_EVENTS), 0) if record is not None else ()):
            events = await store.read_events(pending.run_id, after)
            final = next((event for event in reversed(events) if event.is_final), None)
            if final is not None or after == 0:
                break
        if record is None or final is None:
            _log.error("run %s: its webhook delivery has no ended run in the store; dropped", pending.run_id)
            await self._store_call(self._pending.finish, pending.run_id)
            return
        log = EventLog(record.run_id, record.trace_id, first_seq=max(record.last_seq, events[-1].seq) + 1)
        bounder = EventBounder(self._runs.event_limits, self._runs.runs_dir / record.run_id)
        log.add_listener(lambda event: write_event(store, record, bounder.bound(event), bounder))
        await self._attempts(pending, _body(record, final), log.emit)

    async def _attempts(self, pending: PendingWebhook, body: bytes, emit: Callable[[WebhookDelivery], Any]) -> None:
        """Attempts after `pending.attempts_made` (counted across servers), each recorded in the
        store before it begins and as a `webhook` event once it has an outcome."""
        run_id, url = pending.run_id, pending.url
        webhook_id = f"msg_{run_id}"
        shown = shown_url(url)
        attempt = pending.attempts_made
        try:
            if attempt >= self.settings.attempts:
                emit(WebhookDelivery(webhook_id, shown, attempt, "failed", error="the last attempt was under way when its server stopped"))
                await self._store_call(self._pending.finish, run_id)
                return
            if (wait := (pending.next_due_ns - time.time_ns()) / 1e9) > 0:
                if not await self._progress(pending, pending.next_due_ns + self._lease_ns):
                    return
                await asyncio.sleep(wait)
            while True:
                attempt += 1
                lease = time.time_ns() + int(self.settings.timeout_seconds * 1e9) + self._lease_ns
                if not await self._progress(PendingWebhook(run_id, url, attempt, time.time_ns()), lease):
                    return
                try:
                    status, error = await self._attempt(url, webhook_id, body)
                except _Refused as refused:
                    emit(WebhookDelivery(webhook_id, shown, attempt, "refused", error=str(refused)))
                    await self._store_call(self._pending.finish, run_id)
                    return
                if 200 <= status < 300:
                    emit(WebhookDelivery(webhook_id, shown, attempt, "delivered", status_code=status))
                    await self._store_call(self._pending.finish, run_id)
                    return
                if attempt >= self.settings.attempts:
                    emit(WebhookDelivery(webhook_id, shown, attempt, "failed", status_code=status, error=error))
                    await self._store_call(self._pending.finish, run_id)
                    return
                wait = self.settings.retry_wait(attempt)
                emit(WebhookDelivery(webhook_id, shown, attempt, "retrying", status_code=status, error=error, retry_in_seconds=wait))
                due = time.time_ns() + int(wait * 1e9)
                if not await self._progress(PendingWebhook(run_id, url, attempt, due), due + self._lease_ns):
                    return
                await asyncio.sleep(wait)
        except asyncio.CancelledError:
            why = "the server shut down before it was delivered; the next server on this store resumes it"
            emit(WebhookDelivery(webhook_id, shown, attempt, "abandoned", error=why))
            try:
                self._pending.release(run_id, self._owner)  # at once: this task is being cancelled
            except Exception:  # noqa: BLE001 - the lease then expires instead
                _log.exception("run %s: releasing its webhook delivery failed", run_id)
            raise
        except Exception:  # noqa: BLE001 - a delivery must never take the server down
            _log.exception("run %s: delivering its webhook failed", run_id)
            emit(WebhookDelivery(webhook_id, shown, attempt, "failed", error="the delivery failed inside the server"))

    async def _claim(self, run_id: str, now: int | None = None) -> PendingWebhook | None:
        now = time.time_ns() if now is None else now
        lease = time.time_ns() + self._lease_ns
        try:
            return await asyncio.to_thread(self._pending.claim, run_id, self._owner, now, lease)
        except Exception:  # noqa: BLE001 - the row stays: the next scan (or server) tries again
            _log.exception("run %s: its webhook delivery could not be claimed", run_id)
            return None

    async def _progress(self, pending: PendingWebhook, lease_until_ns: int) -> bool:
        """Record the delivery's progress; False (and the delivery is left) when another server
        took it over, which happens only once this one let its lease expire."""
        kept = await asyncio.to_thread(self._pending.progress, pending, self._owner, lease_until_ns)
        if not kept:
            _log.warning("run %s: another server took its webhook delivery over", pending.run_id)
        return kept

    async def _store_call(self, call: Callable[..., Any], *args: Any) -> None:
        try:
            await asyncio.to_thread(call, *args)
        except Exception:  # noqa: BLE001 - the row stays: the next server resumes (receivers deduplicate)
            _log.exception("the pending webhooks could not be updated")

    async def _attempt(self, url: str, webhook_id: str, body: bytes) -> tuple[int, str]:
        """One POST: (status, why it failed) with status 0 when no answer came; _Refused when the
        network policy refuses the URL."""
        judgement = judge_url(url, self.settings.policy())
        if not judgement.allowed:
            raise _Refused(judgement.reason)
        timeout = self.settings.timeout_seconds
        try:
            upstream = await vetted_upstream(judgement, self._resolver, timeout)
        except UpstreamRefused as refused:
            raise _Refused(refused.reason) from None
        except ResolutionFailed as failed:
            return 0, str(failed)
        timestamp = int(time.time())
        headers = {
            "content-type": "application/json",
            "webhook-id": webhook_id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": webhook_signature(self.settings.secret, webhook_id, timestamp, body),
            # The name the URL has, while the connection goes to the vetted address.
            "host": httpx2.URL(url).netloc.decode("ascii"),
        }
        extensions = {"sni_hostname": judgement.endpoint.bare} if judgement.scheme == "https" and judgement.endpoint else {}
        error = "no address answered"
        for address in upstream.addresses:
            pinned = httpx2.URL(url).copy_with(host=address)
            try:
                async with self._http().stream(
                    "POST", pinned, content=body, headers=headers, extensions=extensions, timeout=timeout
                ) as response:
                    # The body is never read: only the status matters, and it may be large.
                    status = response.status_code
            except httpx2.ConnectError as failed:
                error = f"cannot connect to {address}: {failed}"
                continue
            except httpx2.HTTPError as failed:
                return 0, f"{type(failed).__name__}: {failed}" if str(failed) else type(failed).__name__
            if 300 <= status < 400:
                return status, f"answered {status}, a redirect, which is not followed"
            return status, "" if 200 <= status < 300 else f"answered {status}"
        return 0, error

    def _http(self) -> httpx2.AsyncClient:
        if self._client is None:
            # trust_env=False: no proxy from the environment between the vetted address and us.
            self._client = httpx2.AsyncClient(follow_redirects=False, trust_env=False)
        return self._client

