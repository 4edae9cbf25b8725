"""Webhooks: a run's terminal state POSTed to a URL, signed in the Standard Webhooks scheme.

The URL is the run's own (a run option, on the operator's allowlist) or the server's. A delivery
never stands in the verdict's way: it starts once the run's final verdict is durable and its
engine has ended, and each attempt is recorded as a `webhook` event after the final verdict,
whose record (status, verdict, end time) nothing after it changes.

Each attempt is judged by the network policy as any request is: the URL's scheme and host, then
the addresses its name resolves to, and the request goes to an address just vetted (a DNS answer
that changes in between cannot move it to a private address). Redirects are never followed: a
3xx answer is a failed attempt. Failed attempts are retried with waits that double.

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
from datetime import datetime, timezone
from typing import Any

import httpx2

from runtime.events import FinalVerdict, WebhookDelivery
from runtime.policy.upstream import ResolutionFailed, Resolver, UpstreamRefused, system_resolver, vetted_upstream
from runtime.policy.urls import judge_url
from runtime.service.config.webhook_settings import WebhookSettings, shown_url
from runtime.service.runs.live_run import LiveRun

_log = logging.getLogger(__name__)

EVENT_TYPE = "run.ended"


def webhook_signature(secret: bytes, webhook_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{webhook_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(secret, signed, hashlib.sha256).digest()).decode()


def terminal_state(live: LiveRun) -> dict[str, Any]:
    """The webhook's body: the run's final verdict (as its durable, redacted event has it) and record."""
    final = next(event for event in reversed(live.durable) if event.is_final)
    verdict = final.payload
    assert isinstance(verdict, FinalVerdict)
    record = live.shown
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


class _Refused(Exception):
    pass


class WebhookDeliveries:
    """Deliveries of this server's runs' terminal states, each a task of its own."""

    def __init__(self, settings: WebhookSettings, *, resolver: Resolver = system_resolver) -> None:
        self.settings = settings
        self._resolver = resolver
        self._run_urls: dict[str, str] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._client: httpx2.AsyncClient | None = None

    def address(self, run_id: str, url: str) -> None:
        """The run names its own URL (checked against the allowlist by whoever started it)."""
        self._run_urls[run_id] = url

    def run_ended(self, live: LiveRun) -> None:
        """The run's final verdict is durable: deliver it, off the run's path."""
        url = self._run_urls.pop(live.run_id, None) or self.settings.url
        if url is None:
            return
        task = asyncio.get_running_loop().create_task(self._deliver(live, url), name=f"webhook-{live.run_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self, wait_seconds: float) -> None:
        """At shutdown: attempts under way get `wait_seconds`; what remains is abandoned (recorded)."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=wait_seconds)
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._client is not None:
            await self._client.aclose()

    async def _deliver(self, live: LiveRun, url: str) -> None:
        if live.handle is not None:
            # The engine writes the run's files after its verdict; its listeners on the log end with it.
            await asyncio.wait([live.handle.task])
        webhook_id = f"msg_{live.run_id}"
        body = json.dumps(terminal_state(live), ensure_ascii=False, separators=(",", ":")).encode()
        shown = shown_url(url)
        attempt = 0
        try:
            while True:
                attempt += 1
                try:
                    status, error = await self._attempt(url, webhook_id, body)
                except _Refused as refused:
                    live.events.emit(WebhookDelivery(webhook_id, shown, attempt, "refused", error=str(refused)))
                    return
                if 200 <= status < 300:
                    live.events.emit(WebhookDelivery(webhook_id, shown, attempt, "delivered", status_code=status))
                    return
                if attempt >= self.settings.attempts:
                    live.events.emit(WebhookDelivery(webhook_id, shown, attempt, "failed", status_code=status, error=error))
                    return
                wait = self.settings.retry_wait(attempt)
                live.events.emit(
                    WebhookDelivery(webhook_id, shown, attempt, "retrying", status_code=status, error=error, retry_in_seconds=wait)
                )
                await asyncio.sleep(wait)
        except asyncio.CancelledError:
            live.events.emit(WebhookDelivery(webhook_id, shown, attempt, "abandoned", error="the server shut down before it was delivered"))
            raise
        except Exception:  # noqa: BLE001 - a delivery must never take the server down
            _log.exception("run %s: delivering its webhook failed", live.run_id)
            live.events.emit(WebhookDelivery(webhook_id, shown, attempt, "failed", error="the delivery failed inside the server"))

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

