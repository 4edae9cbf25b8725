"""Bindings of features/service_webhook_restarts.feature: real servers in process, one after the
other on one run store (SQLite, or the suite's PostgreSQL), delivering to a real receiver on
loopback. What the store keeps is read with plain SQL, not through the server's own code."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from pytest_bdd import given, parsers, scenarios, then, when
from tests.service.service_harness import ServedServer, running
from tests.service.test_service_webhooks import SECRET, _attempts, verifies
from tests.service.webhook_receiver import HOLD, WebhookReceiver

from runtime.store.location import PostgresUrl
from runtime.store.opening import open_run_store
from runtime.store.pending_webhooks import PendingWebhook, open_pending_webhooks

scenarios("service_webhook_restarts.feature")


def _pending_rows(location: Path | PostgresUrl) -> list[tuple[Any, ...]]:
    """The store's pending deliveries as SQL reads them: (run id, url, attempts made)."""
    query = "SELECT run_id, url, attempts_made FROM pending_webhooks ORDER BY run_id"
    if isinstance(location, PostgresUrl):
        with psycopg.connect(location.url) as conn:
            return [tuple(row) for row in conn.execute(query).fetchall()]
    with sqlite3.connect(location) as db:
        return [tuple(row) for row in db.execute(query).fetchall()]


def _server_factory(serve: Callable[..., ServedServer], location: Path | PostgresUrl, url: str, **overrides: Any) -> Callable[[], ServedServer]:
    """Starts a server on `location` delivering to `url`: the first, then the next on the same store."""
    values: dict[str, Any] = {
        "store_path": location, "webhook_url": url, "webhook_secret": SECRET, "webhook_allow_private_network": True, **overrides,
    }  # fmt: skip
    return lambda: serve(**values)


# --- a delivery under way when its server stops ------------------------------------------------------


@given("a webhook receiver on loopback that answers 500, then holds its answer", target_fixture="receiver")
def _failing_then_holding(receivers: Callable[..., WebhookReceiver]) -> WebhookReceiver:
    return receivers(500, HOLD)


@given(
    parsers.parse("a server on a {kind} store that sends every run's terminal state to the receiver, in at most 3 attempts"),
    target_fixture="server",
)
def _server_on_store(
    serve: Callable[..., ServedServer], store_location: Any, receiver: WebhookReceiver, kind: str, context: dict[str, Any]
) -> ServedServer:
    location = context["location"] = store_location(kind)
    start = context["start"] = _server_factory(serve, location, receiver.url + "runs", webhook_attempts=3, webhook_backoff_seconds=0.01)
    return start()


@when("a served run ends")
def _served_run_ends(server: ServedServer, context: dict[str, Any]) -> None:
    live = context["live"] = server.open_run("webhooked", labels={"team": "search"})
    context["final"] = server.finish(live)


@when("the receiver holds the second attempt while the server stops")
def _stop_while_held(server: ServedServer, receiver: WebhookReceiver) -> None:
    receiver.wait_for(2)
    server.stop(grace=0.0)


@when("a second server starts on the same store")
def _second_server(context: dict[str, Any]) -> None:
    context["second"] = context["start"]()


@then("the receiver gets the delivery a third time, from the second server: the same webhook id and body, signed afresh")
def _third_time(receiver: WebhookReceiver, context: dict[str, Any]) -> None:
    first, second, third = receiver.wait_for(3)
    assert {d.headers["webhook-id"] for d in (first, second, third)} == {f"msg_{context['live'].run_id}"}
    assert third.body == first.body and third.path == "/hooks/runs" and verifies(SECRET, third)


@then("the run records attempt 1 retrying, attempt 2 abandoned, then attempt 3 delivered by the second server")
def _recorded_across_servers(receiver: WebhookReceiver, context: dict[str, Any]) -> None:
    final = context["final"]
    events = _attempts(context["second"].client(), context["live"].run_id, final.seq, 3)
    assert [(e.webhook.attempt, e.webhook.outcome, e.webhook.status_code) for e in events] == [
        (1, "retrying", 500), (2, "abandoned", 0), (3, "delivered", 200),
    ]  # fmt: skip
    assert [e.seq for e in events] == [final.seq + 1, final.seq + 2, final.seq + 3]
    assert "the next server on this store resumes it" in events[1].webhook.error
    assert len(receiver.received) == 3  # delivered once: nothing after the third


@then("the store no longer keeps the delivery or its URL")
def _nothing_kept(context: dict[str, Any]) -> None:
    assert _pending_rows(context["location"]) == []


# --- a run interrupted as its server stops ----------------------------------------------------------


@given("a webhook receiver on loopback", target_fixture="receiver")
def _receiver(receivers: Callable[..., WebhookReceiver]) -> WebhookReceiver:
    return receivers()


@given("a server that sends every run's terminal state to the receiver's URL with a token in its query", target_fixture="server")
def _server_with_token(serve: Callable[..., ServedServer], tmp_path: Path, receiver: WebhookReceiver, context: dict[str, Any]) -> ServedServer:
    location = context["location"] = tmp_path / "store" / "verity.db"
    url = context["url"] = receiver.url + "runs?token=t0p-s3cret"
    start = context["start"] = _server_factory(serve, location, url)
    return start()


@when("a served run is in flight as the server stops")
def _in_flight_at_stop(server: ServedServer, context: dict[str, Any]) -> None:
    live = context["live"] = server.open_run("interrupted")
    server.emit(live, [running()])
    server.stop(grace=0.0)


@then("the receiver has got nothing, and the store keeps the delivery with its whole URL and no attempt made")
def _kept_not_sent(receiver: WebhookReceiver, context: dict[str, Any]) -> None:
    assert receiver.received == []
    assert _pending_rows(context["location"]) == [(context["live"].run_id, context["url"], 0)]


@then("the receiver gets the run's interrupted terminal state from the second server, as attempt 1, recorded without the token")
def _interrupted_delivered(receiver: WebhookReceiver, context: dict[str, Any]) -> None:
    (delivery,) = receiver.wait_for(1)
    run_id = context["live"].run_id
    data = json.loads(delivery.body)["data"]
    assert delivery.headers["webhook-id"] == f"msg_{run_id}" and verifies(SECRET, delivery)
    assert delivery.path == "/hooks/runs?token=t0p-s3cret"
    assert (data["run_id"], data["status"], data["stop_reason"], data["verified"]) == (run_id, "stopped", "interrupted", False)
    client = context["second"].client()
    assert list(client.stream_run(run_id))[-1].seq == data["final_seq"]
    (attempt,) = _attempts(client, run_id, data["final_seq"], 1)
    assert (attempt.webhook.attempt, attempt.webhook.outcome, attempt.webhook.status_code) == (1, "delivered", 200)
    assert attempt.webhook.url == receiver.url + "runs" and "t0p-s3cret" not in str(attempt)


# --- leases ---------------------------------------------------------------------------------------------


@given(parsers.parse("an empty {kind} run store with a delivery expected for an ended run"), target_fixture="pending")
def _pending_store(store_location: Any, kind: str) -> Any:
    location = store_location(kind)
    open_run_store(location).close()  # a PostgreSQL store gets its tables by migration
    pending = open_pending_webhooks(location)
    pending.expect("run-leased", "https://hooks.example/runs", "server-a")
    yield pending
    pending.close()


@then("the run's server claims it and another server cannot until the lease expires")
def _one_lease(pending: Any, context: dict[str, Any]) -> None:
    now = time.time_ns()
    context["now"] = now
    assert pending.claim("run-leased", "server-b", now, now + 10**9) is not None  # never leased: claimable
    assert pending.claim("run-leased", "server-a", now, now + 10**9) is None  # b holds it now
    claimed = pending.claim("run-leased", "server-b", now, now + 10**9)
    assert claimed == PendingWebhook("run-leased", "https://hooks.example/runs", 0, 0)  # its holder renews it
    assert pending.progress(PendingWebhook("run-leased", claimed.url, 1, now), "server-b", now + 10**9)


@then("once it has expired the other server takes it over and the first one's progress is refused")
def _taken_over(pending: Any, context: dict[str, Any]) -> None:
    later = context["now"] + 2 * 10**9
    taken = pending.claim("run-leased", "server-a", later, later + 10**9)
    assert taken == PendingWebhook("run-leased", "https://hooks.example/runs", 1, context["now"])
    assert not pending.progress(PendingWebhook("run-leased", taken.url, 2, later), "server-b", later + 10**9)


@then("a released lease is taken over at once")
def _released(pending: Any, context: dict[str, Any]) -> None:
    now = context["now"]
    pending.release("run-leased", "server-b")  # not its holder: nothing changes
    assert pending.claim("run-leased", "server-b", now, now + 10**9) is None
    pending.release("run-leased", "server-a")
    assert pending.claim("run-leased", "server-b", now, now + 10**9) is not None
    pending.finish("run-leased")
    assert pending.claim("run-leased", "server-a", now, now + 10**9) is None
