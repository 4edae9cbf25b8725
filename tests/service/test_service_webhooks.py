"""Bindings of features/service_webhooks.feature: a real server delivering to real HTTP receivers
on loopback. The signature is checked here from the Standard Webhooks definition, not with the
server's own signing code."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.fixtures.site_server import FixtureSite
from tests.service.run_steps import *  # noqa: F403 - pytest-bdd step fixtures
from tests.service.run_steps import run_inputs
from tests.service.service_harness import ServedServer
from tests.service.webhook_receiver import HOLD, Received, WebhookReceiver

from runtime.cli.main import parse_args
from runtime.cli.serve import server_config_from_args
from runtime.client import VerityClient, VerityRpcError
from runtime.service.config.config_file import load_config_file
from runtime.service.config.errors import ServiceConfigError
from runtime.service.config.server_config import ServerConfig
from runtime.service.gen.verity.v1 import events_pb2 as events_pb

scenarios("service_webhooks.feature")

SECRET = "whsec_" + base64.b64encode(os.urandom(32)).decode()
HOOK_NAME = "hooks.example"


def verifies(secret: str, received: Received) -> bool:
    """Standard Webhooks: the signature header lists "v1,<base64 HMAC-SHA256 of id.timestamp.body>"."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{received.headers['webhook-id']}.{received.headers['webhook-timestamp']}.".encode() + received.body
    expected = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(hmac.compare_digest(expected, given) for given in received.headers["webhook-signature"].split(" "))


async def _loopback_name(name: str, port: int) -> list[str]:
    """DNS at the edge: the test's one name answers with loopback; no name leaves the machine."""
    assert name == HOOK_NAME, name
    return ["127.0.0.1"]


def _webhook_server(serve: Callable[..., ServedServer], url: str, **overrides: Any) -> ServedServer:
    values: dict[str, Any] = {"webhook_url": url, "webhook_secret": SECRET, "webhook_allow_private_network": True}
    values.update(overrides)
    return serve(**values)


def _attempts(client: VerityClient, run_id: str, final_seq: int, count: int) -> list[events_pb.Event]:
    """The run's webhook events after its final verdict, once `count` have been recorded."""
    deadline = time.monotonic() + 30
    while True:
        events = [e for e in client.stream_run(run_id, after_seq=final_seq) if e.HasField("webhook")]
        if len(events) >= count:
            return events
        assert time.monotonic() < deadline, f"{len(events)} of {count} attempts recorded: {events}"
        time.sleep(0.02)


# --- one delivery ---------------------------------------------------------------------------------


@given("a webhook receiver on loopback", target_fixture="receiver")
def _receiver(receivers: Callable[..., WebhookReceiver]) -> WebhookReceiver:
    return receivers()


@given("a webhook receiver on loopback that answers 500, 500, then 200", target_fixture="receiver")
def _failing_receiver(receivers: Callable[..., WebhookReceiver]) -> WebhookReceiver:
    return receivers(500, 500, 200)


@given("a webhook receiver on loopback that never answers", target_fixture="receiver")
def _holding_receiver(receivers: Callable[..., WebhookReceiver]) -> WebhookReceiver:
    return receivers(HOLD)


@given("a server that sends every run's terminal state to the receiver", target_fixture="server")
def _server_to_receiver(serve: Callable[..., ServedServer], receiver: WebhookReceiver) -> ServedServer:
    return _webhook_server(serve, receiver.url + "runs", webhook_timeout_seconds=60.0)


@given("a server that sends every run's terminal state to the receiver, in at most 3 attempts", target_fixture="server")
def _retrying_server(serve: Callable[..., ServedServer], receiver: WebhookReceiver) -> ServedServer:
    return _webhook_server(serve, receiver.url + "runs", webhook_attempts=3, webhook_backoff_seconds=0.01)


@when("a served run ends")
def _served_run_ends(server: ServedServer, context: dict[str, Any]) -> None:
    live = context["live"] = server.open_run("webhooked", labels={"team": "search"})
    context["final"] = server.finish(live)


@then("the receiver gets one delivery, whose signature verifies with the shared secret and not with another")
def _one_signed(server: ServedServer, receiver: WebhookReceiver, context: dict[str, Any]) -> None:
    (delivery,) = receiver.wait_for(1)
    context["delivery"] = delivery
    assert delivery.path == "/hooks/runs" and delivery.headers["content-type"] == "application/json"
    assert verifies(SECRET, delivery)
    assert not verifies("whsec_" + base64.b64encode(os.urandom(32)).decode(), delivery)
    assert abs(int(delivery.headers["webhook-timestamp"]) - time.time()) < 300


@then("its body is the run's terminal state, and its webhook id names the run")
def _terminal_state(context: dict[str, Any]) -> None:
    delivery, live, final = context["delivery"], context["live"], context["final"]
    body = json.loads(delivery.body)
    assert body["type"] == "run.ended" and delivery.headers["webhook-id"] == f"msg_{live.run_id}"
    data = body["data"]
    assert data["run_id"] == live.run_id and data["recipe_name"] == "webhooked" and data["labels"] == {"team": "search"}
    assert (data["status"], data["stop_reason"], data["verified"], data["summary"]) == ("completed", "completed", True, "done")
    assert data["final_seq"] == final.seq and data["blocker_kind"] is None


@then("the run's stream still ends with its final verdict, and after it one attempt is recorded delivered")
def _recorded_after(server: ServedServer, receiver: WebhookReceiver, context: dict[str, Any]) -> None:
    client, live, final = server.client(), context["live"], context["final"]
    (attempt,) = _attempts(client, live.run_id, final.seq, 1)
    assert attempt.seq == final.seq + 1
    shown = attempt.webhook
    assert (shown.webhook_id, shown.attempt, shown.outcome, shown.status_code) == (f"msg_{live.run_id}", 1, "delivered", 200)
    assert shown.url == receiver.url + "runs"
    stream = list(client.stream_run(live.run_id))
    assert stream[-1].seq == final.seq and stream[-1].HasField("final_verdict")
    assert client.get_run(live.run_id).run.last_seq == attempt.seq
    assert len(receiver.received) == 1


@then("a server with a webhook and no secret, or a secret that is not whsec_ and base64, does not start")
def _needs_secret(tmp_path: Path) -> None:
    base = {"webhook_url": "https://hooks.example/runs", "store_path": tmp_path / "v.db", "runs_dir": tmp_path / "runs"}
    for secret, complaint in (
        (None, "webhooks need a secret"),
        ("c2VjcmV0IGtleSBvZiB0aGlydHkgdHdvIGJ5dGVzISE=", "must start with 'whsec_'"),
        ("whsec_not base64!", "is not base64"),
        ("whsec_" + base64.b64encode(b"short").decode(), "must be 24 to 64 bytes"),
    ):
        with pytest.raises(ServiceConfigError, match=complaint) as refused:
            ServerConfig(**base, webhook_secret=secret).validate()
        assert secret is None or secret not in str(refused.value)
    ServerConfig(**base, webhook_secret=SECRET).validate()


@then("a config file's webhook_secret_file and webhook_allowed_urls become the server's webhook settings")
def _from_config_file(tmp_path: Path) -> None:
    (tmp_path / "hook-secret.txt").write_text(SECRET + "\n")
    config = tmp_path / "serve.yaml"
    config.write_text(
        "webhook_secret_file: hook-secret.txt\n"
        "webhook_allowed_urls: [https://hooks.example/teams/, https://hooks.example/one]\n"
        "webhook_attempts: 3\n"
    )
    values = load_config_file(config)
    assert "whsec_" not in repr(ServerConfig(**values))
    settings = ServerConfig(**values).webhook_settings()
    assert settings is not None and settings.secret == base64.b64decode(SECRET.removeprefix("whsec_"))
    assert settings.allowed_urls == ("https://hooks.example/teams/", "https://hooks.example/one") and settings.attempts == 3
    flags = parse_args([
        "serve", "--store", str(tmp_path / "x.db"), "--webhook-url", "https://hooks.example/all",
        "--webhook-allowed-url", "https://hooks.example/a/", "--webhook-allowed-url", "https://hooks.example/b/",
        "--webhook-secret-file", str(tmp_path / "hook-secret.txt"),
    ])
    from_flags = server_config_from_args(flags).webhook_settings()
    assert from_flags is not None and from_flags.url == "https://hooks.example/all" and from_flags.secret == settings.secret
    assert from_flags.allowed_urls == ("https://hooks.example/a/", "https://hooks.example/b/") and not from_flags.allow_private_network
    config.write_text("webhook_allowed_urls: https://hooks.example/teams/\n")
    with pytest.raises(ServiceConfigError, match=r"serve.yaml:1:1: webhook_allowed_urls must be a list of URLs"):
        load_config_file(config)


# --- retries --------------------------------------------------------------------------------------


@then("the receiver gets three attempts with one webhook id, each signed afresh")
def _three_attempts(receiver: WebhookReceiver, context: dict[str, Any]) -> None:
    deliveries = receiver.wait_for(3)
    assert len(deliveries) == 3 and all(verifies(SECRET, d) for d in deliveries)
    assert {d.headers["webhook-id"] for d in deliveries} == {f"msg_{context['live'].run_id}"}
    assert len({d.body for d in deliveries}) == 1


@then("the run records them retrying, retrying, delivered, with waits that double")
def _recorded_retries(server: ServedServer, context: dict[str, Any]) -> None:
    attempts = [e.webhook for e in _attempts(server.client(), context["live"].run_id, context["final"].seq, 3)]
    assert [(a.attempt, a.outcome, a.status_code) for a in attempts] == [(1, "retrying", 500), (2, "retrying", 500), (3, "delivered", 200)]
    assert [a.retry_in_seconds for a in attempts] == [0.01, 0.02, 0.0]
    assert attempts[0].error == "answered 500"


# --- a receiver that never answers -------------------------------------------------------------------


@then("while the receiver holds the delivery, the run has ended: its verdict and its final event were recorded before the delivery arrived")
def _ended_while_held(server: ServedServer, receiver: WebhookReceiver, context: dict[str, Any]) -> None:
    (held,) = receiver.wait_for(1)
    client, live, final = server.client(), context["live"], context["final"]
    run = client.get_run(live.run_id).run
    assert run.status == events_pb.TASK_STATE_COMPLETED and run.verified and run.last_seq == final.seq
    assert run.end_time.ToNanoseconds() == final.timestamp_ns < held.arrived_ns
    stream = list(client.stream_run(live.run_id))
    assert stream[-1].seq == final.seq and stream[-1].timestamp.ToNanoseconds() == final.timestamp_ns
    context["run_while_held"], context["stream_while_held"] = run, stream


@when("the receiver answers at last")
def _answer(receiver: WebhookReceiver) -> None:
    receiver.release()


@then("the attempt is recorded delivered, and the run's verdict, end time and final event are as they were")
def _unchanged(server: ServedServer, context: dict[str, Any]) -> None:
    client, live, final = server.client(), context["live"], context["final"]
    (attempt,) = _attempts(client, live.run_id, final.seq, 1)
    assert (attempt.webhook.outcome, attempt.webhook.attempt) == ("delivered", 1)
    before = context["run_while_held"]
    after = client.get_run(live.run_id).run
    assert (after.status, after.stop_reason, after.verified, after.summary, after.end_time) == (
        before.status, before.stop_reason, before.verified, before.summary, before.end_time
    )
    assert list(client.stream_run(live.run_id)) == context["stream_while_held"]


# --- the network policy --------------------------------------------------------------------------------


@given("a webhook receiver on loopback that redirects to a second receiver", target_fixture="receiver")
def _redirecting(receivers: Callable[..., WebhookReceiver], context: dict[str, Any]) -> WebhookReceiver:
    second = context["second"] = receivers()
    return receivers(("redirect", second.url + "elsewhere"))


@then("a server whose webhook is a loopback address does not start without webhook_allow_private_network")
def _loopback_refused(receiver: WebhookReceiver, tmp_path: Path) -> None:
    base = {"webhook_secret": SECRET, "store_path": tmp_path / "v.db", "runs_dir": tmp_path / "runs"}
    with pytest.raises(ServiceConfigError, match="webhook_url: 127.0.0.1 is a loopback address.*webhook_allow_private_network"):
        ServerConfig(**base, webhook_url=receiver.url).validate()
    with pytest.raises(ServiceConfigError, match="webhook_allowed_urls: localhost is a loopback address"):
        ServerConfig(**base, webhook_allowed_urls=("http://localhost:9/hooks/",)).validate()
    ServerConfig(**base, webhook_url=receiver.url, webhook_allow_private_network=True).validate()


@when("a server sends a run's terminal state to a name that resolves to loopback, without webhook_allow_private_network")
def _to_private_name(serve: Callable[..., ServedServer], receiver: WebhookReceiver, context: dict[str, Any]) -> None:
    url = f"http://{HOOK_NAME}:{receiver.port}/hooks/runs?token=t0p"
    server = context["server"] = _webhook_server(serve, url, webhook_allow_private_network=False, resolver=_loopback_name)
    live = context["live"] = server.open_run("to-a-name")
    context["final"] = server.finish(live)


@then("the delivery is recorded refused, and the receiver gets nothing")
def _refused(receiver: WebhookReceiver, context: dict[str, Any]) -> None:
    (attempt,) = _attempts(context["server"].client(), context["live"].run_id, context["final"].seq, 1)
    shown = attempt.webhook
    assert shown.outcome == "refused" and shown.status_code == 0, shown
    assert "resolves to 127.0.0.1, a loopback address" in shown.error
    assert shown.url == f"http://{HOOK_NAME}:{receiver.port}/hooks/runs"  # no query: it may hold a credential
    assert receiver.received == []


@when("a server that allows webhooks on private networks sends a run's terminal state to that name")
def _to_allowed_name(serve: Callable[..., ServedServer], receiver: WebhookReceiver, context: dict[str, Any], tmp_path: Path) -> None:
    url = f"http://{HOOK_NAME}:{receiver.port}/hooks/runs"
    server = context["server"] = _webhook_server(
        serve, url, webhook_attempts=1, resolver=_loopback_name, store_path=tmp_path / "second" / "verity.db", runs_dir=tmp_path / "second-runs"
    )
    live = context["live"] = server.open_run("redirected")
    context["final"] = server.finish(live)


@then("the receiver gets it at the vetted address with the name as its Host, and answers with a redirect")
def _at_vetted_address(receiver: WebhookReceiver) -> None:
    (delivery,) = receiver.wait_for(1)
    assert delivery.headers["host"] == f"{HOOK_NAME}:{receiver.port}" and verifies(SECRET, delivery)


@then("the redirect is not followed: the second receiver gets nothing, and the attempt is recorded failed with 302")
def _not_followed(context: dict[str, Any]) -> None:
    (attempt,) = _attempts(context["server"].client(), context["live"].run_id, context["final"].seq, 1)
    shown = attempt.webhook
    assert (shown.outcome, shown.status_code, shown.attempt) == ("failed", 302, 1)
    assert "redirect, which is not followed" in shown.error
    assert context["second"].received == []


# --- a run's own webhook -------------------------------------------------------------------------------


@given("a server whose webhook allowlist holds the receiver's URL", target_fixture="target")
def _allowlisting_server(serve: Callable[..., ServedServer], recipes_dir: Path, receiver: WebhookReceiver, context: dict[str, Any]) -> str:
    server = context["server"] = serve(
        recipes_dir=recipes_dir, webhook_allowed_urls=(receiver.url,), webhook_secret=SECRET, webhook_allow_private_network=True
    )
    return server.target


@when(parsers.parse('a client starts "{name}" naming a webhook URL not on the allowlist'))
def _start_off_list(target: str, client_for: Any, site: FixtureSite, receiver: WebhookReceiver, context: dict[str, Any], name: str) -> None:
    with pytest.raises(VerityRpcError) as refused:
        client_for(target).start_run(recipe_name=name, inputs=run_inputs(site), webhook_url=f"http://127.0.0.1:{receiver.port}/other")
    context["refused"] = refused.value


@then("the start is refused INVALID_ARGUMENT at options.webhook_url, and no run is listed")
def _refused_option(target: str, client_for: Any, context: dict[str, Any]) -> None:
    error = context["refused"]
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT, error
    assert [v.field for v in error.field_violations] == ["options.webhook_url"], error
    assert list(client_for(target).iter_runs()) == []


@when(parsers.parse('a client runs "{name}" naming a webhook URL on the allowlist'))
def _run_on_list(target: str, client_for: Any, site: FixtureSite, receiver: WebhookReceiver, context: dict[str, Any], name: str) -> None:
    context["events"] = list(client_for(target).run(recipe_name=name, inputs=run_inputs(site), webhook_url=receiver.url + "team-a"))


@then("the receiver gets that run's completed terminal state, signed with the server's secret")
def _run_delivery(receiver: WebhookReceiver, context: dict[str, Any]) -> None:
    (delivery,) = receiver.wait_for(1)
    events = context["events"]
    data = json.loads(delivery.body)["data"]
    assert delivery.path == "/hooks/team-a" and verifies(SECRET, delivery)
    assert (data["run_id"], data["status"], data["verified"], data["final_seq"]) == (events[-1].run_id, "completed", True, events[-1].seq)
