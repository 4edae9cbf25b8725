"""Bindings of features/service_streaming.feature: real server, real channels, real event logs."""

from __future__ import annotations

import time
from typing import Any

import grpc
import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.service.service_harness import ServedServer, Watcher, chat_deltas

from runtime.client import VerityRpcError
from runtime.service.gen.verity.v1 import agent_service_pb2 as agent_pb
from runtime.service.gen.verity.v1 import events_pb2 as events_pb

scenarios("service_streaming.feature")


def assert_exact_sequence(seqs: list[int], first: int, last: int) -> None:
    expected = list(range(first, last + 1))
    assert seqs == expected, f"got {len(seqs)} events: lost {sorted(set(expected) - set(seqs))[:10]}, " f"duplicated or out of order near {[s for a, s in zip(seqs, seqs[1:]) if s != a + 1][:10]}"


# --- given ---------------------------------------------------------------------------------------


@given("a server whose subscribers may fall 64 events behind", target_fixture="server")
def _lagging_server(serve: Any) -> ServedServer:
    return serve(subscriber_buffer=64)


@given("a server that keeps the newest 10 events of an ended run", target_fixture="server")
def _trimming_server(serve: Any) -> ServedServer:
    return serve(retain_events_per_run=10)


@pytest.fixture
def server(serve: Any) -> ServedServer:
    return serve()


@given(parsers.parse("a served run that has emitted {count:d} events"))
def _run_with_events(server: ServedServer, context: dict[str, Any], count: int) -> None:
    context["run"] = server.open_run()
    server.emit(context["run"], chat_deltas(count))


@given("a served run watched through a proxy that can cut connections")
def _run_behind_proxy(server: ServedServer, proxies: Any, context: dict[str, Any]) -> None:
    context["run"] = live = server.open_run()
    context["proxy"] = proxy = proxies(server.port)
    client = server.client(target=proxy.target, resume_backoff=0.05)
    context["watcher"] = Watcher(client, live.run_id).start()


@given("a served run with a watcher that does not read and a watcher that keeps up")
def _run_with_slow_and_fast(server: ServedServer, context: dict[str, Any]) -> None:
    context["run"] = live = server.open_run()
    # Without BDP probing the connection's flow-control window stays small, as on a slow link.
    slow_client = server.client(channel_options=[("grpc.http2.bdp_probe", 0)])
    # A raw call that is started but never read: its messages pile up in flow control, then in
    # the server's bounded buffer for it.
    context["slow_call"] = slow_client.agent.StreamRun(agent_pb.StreamRunRequest(run_id=live.run_id))
    context["fast"] = Watcher(server.client(), live.run_id).start()
    _wait_for_subscribers(server, live, 2)


@given(parsers.parse("a served run with {count:d} watchers"))
def _run_with_watchers(server: ServedServer, context: dict[str, Any], count: int) -> None:
    context["run"] = live = server.open_run()
    client = server.client()
    context["watchers"] = [Watcher(client, live.run_id).start() for _ in range(count)]
    _wait_for_subscribers(server, live, count)


@given(parsers.parse("{count:d} served runs, each with a watcher"))
def _runs_with_watchers(server: ServedServer, context: dict[str, Any], count: int) -> None:
    context["runs"] = runs = [server.open_run(recipe_name=f"recipe-{i}") for i in range(count)]
    client = server.client()
    context["watchers"] = [Watcher(client, live.run_id).start() for live in runs]
    for live in runs:
        _wait_for_subscribers(server, live, 1)


def _wait_for_subscribers(server: ServedServer, live: Any, count: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while server.on_loop(lambda: live.broadcast.subscriber_count) < count:
        assert time.monotonic() < deadline, f"only {live.broadcast.subscriber_count} of {count} watchers subscribed"
        time.sleep(0.01)


# --- when ----------------------------------------------------------------------------------------


@when("a client streams the run from the start")
def _stream_from_start(server: ServedServer, context: dict[str, Any]) -> None:
    context["watcher"] = Watcher(server.client(), context["run"].run_id, resume=False).start()


@when(parsers.parse("a client streams the run after seq {seq:d}"))
def _stream_after(server: ServedServer, context: dict[str, Any], seq: int) -> None:
    context["watcher"] = Watcher(server.client(), context["run"].run_id, after_seq=seq).start()


@when(parsers.parse("the client has received {count:d} events"))
def _client_received(context: dict[str, Any], count: int) -> None:
    context["watcher"].wait_for(count)


@when(parsers.parse("the run emits {count:d} more events and its final verdict"))
@when(parsers.parse("the run emits {count:d} events and its final verdict"))
def _emit_and_finish(server: ServedServer, context: dict[str, Any], count: int) -> None:
    server.emit(context["run"], chat_deltas(count, prefix="live"))
    server.finish(context["run"])


@when("the run emits its final verdict")
@given("the run emits its final verdict")
def _finish(server: ServedServer, context: dict[str, Any]) -> None:
    server.finish(context["run"])


@when(parsers.parse("the run emits {count:d} events"))
def _emit(server: ServedServer, context: dict[str, Any], count: int) -> None:
    server.emit(context["run"], chat_deltas(count))


@when(parsers.parse("the proxy cuts every connection once the client has received {count:d} events"))
def _cut(context: dict[str, Any], count: int) -> None:
    context["watcher"].wait_for(count)
    assert context["proxy"].drop_all() >= 1


@when(parsers.parse("the run emits {count:d} more events while the client is cut off"))
def _emit_while_cut(server: ServedServer, context: dict[str, Any], count: int) -> None:
    server.emit(context["run"], chat_deltas(count, prefix="offline"))


@when("the run emits 600 events of 4 KiB in small bursts and its final verdict")
def _emit_bursts(server: ServedServer, context: dict[str, Any]) -> None:
    server.emit_paced(context["run"], chat_deltas(600, text_size=4096), chunk=4, pause=0.002)
    server.finish(context["run"])


@when("the runs emit 100 events each, interleaved, and their final verdicts")
def _emit_interleaved(server: ServedServer, context: dict[str, Any]) -> None:
    runs = context["runs"]
    for round_ in range(10):
        for index, live in enumerate(runs):
            server.emit(live, chat_deltas(10, prefix=f"{live.run_id}-{round_}"))
    for live in runs:
        server.finish(live)


# --- then ----------------------------------------------------------------------------------------


@then(parsers.parse("the client receives seq {first:d} to {last:d} in order exactly once"))
def _client_receives(context: dict[str, Any], first: int, last: int) -> None:
    watcher = context["watcher"]
    watcher.join()
    assert watcher.error is None, watcher.error
    assert_exact_sequence(watcher.seqs, first, last)


@then("the stream ended after the final verdict")
def _ended_after_final(context: dict[str, Any]) -> None:
    events = context["watcher"].events
    assert events[-1].HasField("final_verdict")
    assert events[-1].final_verdict.stop_reason == events_pb.STOP_REASON_COMPLETED
    assert sum(e.HasField("final_verdict") for e in events) == 1


@then(parsers.parse("the client connected at least {count:d} times"))
def _connected(context: dict[str, Any], count: int) -> None:
    assert context["proxy"].connections_accepted >= count


@then(parsers.parse("the run's {count:d} events were all stored and the run ended while the slow watcher had read nothing"))
def _ended_without_slow_reader(server: ServedServer, context: dict[str, Any], count: int) -> None:
    # The slow call is first read in a later step: the run emitting and ending (server.finish waits
    # for it) never depended on that reader.
    run = server.client().get_run(context["run"].run_id).run
    assert run.last_seq == count and run.HasField("end_time")


@then(parsers.parse("the watcher that keeps up received seq {first:d} to {last:d} in order exactly once"))
def _fast_receives(context: dict[str, Any], first: int, last: int) -> None:
    watcher = context["fast"]
    watcher.join()
    assert watcher.error is None, watcher.error
    assert_exact_sequence(watcher.seqs, first, last)


@then("the slow watcher's stream fails with ABORTED SUBSCRIBER_LAGGING after its last received seq")
def _slow_cut_off(context: dict[str, Any]) -> None:
    received: list[int] = []
    with pytest.raises(grpc.RpcError) as failure:
        for response in context["slow_call"]:
            received.extend(e.seq for e in response.events)
    error = VerityRpcError.from_rpc_error(failure.value)
    assert error.code == grpc.StatusCode.ABORTED, error
    assert error.reason == "SUBSCRIBER_LAGGING"
    assert_exact_sequence(received, 1, len(received))
    assert len(received) < 602
    assert int(error.metadata["resume_after_seq"]) == received[-1]
    context["resume_after"] = received[-1]


@then("resuming after that seq delivers the rest of the run exactly once")
def _resume_rest(server: ServedServer, context: dict[str, Any]) -> None:
    after = context["resume_after"]
    seqs = [e.seq for e in server.client().stream_run(context["run"].run_id, after)]
    assert_exact_sequence(seqs, after + 1, 602)


@then(parsers.parse("every watcher receives seq {first:d} to {last:d} in order exactly once"))
def _every_watcher(context: dict[str, Any], first: int, last: int) -> None:
    for watcher in context["watchers"]:
        watcher.join()
        assert watcher.error is None, watcher.error
        assert_exact_sequence(watcher.seqs, first, last)


@then("each watcher receives only its run's events, seq 1 to 102 in order")
def _each_own_run(context: dict[str, Any]) -> None:
    for live, watcher in zip(context["runs"], context["watchers"]):
        watcher.join()
        assert watcher.error is None, watcher.error
        assert_exact_sequence(watcher.seqs, 1, 102)
        assert {e.run_id for e in watcher.events} == {live.run_id}
        deltas = [e.chat_delta.text for e in watcher.events if e.HasField("chat_delta")]
        assert all(text.startswith(live.run_id) for text in deltas)


@then(parsers.parse("the stream fails with OUT_OF_RANGE HISTORY_TRIMMED and earliest seq {seq:d}"))
def _out_of_range(context: dict[str, Any], seq: int) -> None:
    watcher = context["watcher"]
    watcher.join()
    assert watcher.events == []
    assert watcher.error is not None and watcher.error.code == grpc.StatusCode.OUT_OF_RANGE
    assert watcher.error.reason == "HISTORY_TRIMMED"
    assert watcher.error.metadata["earliest_seq"] == str(seq)


@then(parsers.parse("streaming after seq {after:d} delivers seq {first:d} to {last:d}"))
def _stream_after_trim(server: ServedServer, context: dict[str, Any], after: int, first: int, last: int) -> None:
    seqs = [e.seq for e in server.client().stream_run(context["run"].run_id, after)]
    assert_exact_sequence(seqs, first, last)


@when(parsers.parse("a second client streams the run after seq {seq:d}"))
def _second_stream_after(server: ServedServer, context: dict[str, Any], seq: int) -> None:
    context["second"] = Watcher(server.client(), context["run"].run_id, after_seq=seq).start()


@then(parsers.parse("the client has received seq {first:d} to {last:d}"))
def _received_so_far(context: dict[str, Any], first: int, last: int) -> None:
    watcher = context["watcher"]
    watcher.wait_for(last - first + 1)
    assert_exact_sequence(watcher.seqs, first, last)


def _assert_beyond_last_seq(watcher: Watcher, last_seq: int) -> None:
    watcher.join()
    assert watcher.events == []
    assert watcher.error is not None and watcher.error.code == grpc.StatusCode.OUT_OF_RANGE, watcher.error
    assert watcher.error.reason == "BEYOND_LAST_SEQ"
    assert watcher.error.metadata["last_seq"] == str(last_seq)


@then(parsers.parse("the stream fails with OUT_OF_RANGE BEYOND_LAST_SEQ and last seq {seq:d}"))
def _beyond_last_seq(context: dict[str, Any], seq: int) -> None:
    _assert_beyond_last_seq(context["watcher"], seq)


@then(parsers.parse("the second client's stream fails with OUT_OF_RANGE BEYOND_LAST_SEQ and last seq {seq:d}"))
def _second_beyond_last_seq(context: dict[str, Any], seq: int) -> None:
    _assert_beyond_last_seq(context["second"], seq)


@then(parsers.parse("streaming after seq {seq:d} delivers nothing and ends"))
def _nothing_after_end(server: ServedServer, context: dict[str, Any], seq: int) -> None:
    # The client holds the whole run, final verdict included: an empty stream that ends is the answer.
    assert list(server.client(resume_attempts=0).stream_run(context["run"].run_id, seq)) == []
