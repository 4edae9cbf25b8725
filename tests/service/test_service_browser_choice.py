"""Bindings of features/service_browser_choice.feature and service_browser_endpoints.feature: servers in process attached to one real
Chromium over its DevTools websocket (one Chromium for the whole module), driven over a real gRPC
channel. A run that holds the browser waits for a confirmation the test answers, so every wait
here ends when the test says, never when a clock does (but the one scenario about the clock)."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.external_chromium import external_chromium
from tests.fixtures.site_server import FixtureSite
from tests.service.run_steps import *  # noqa: F403 - the shared real-run steps
from tests.service.run_steps import run_inputs
from tests.service.service_harness import Watcher

from runtime.browser.supply.browser_pool import BrowserPool
from runtime.browser.supply.endpoint_specs import BrowserState, parse_endpoint_specs
from runtime.cli.main import main as verity_main
from runtime.outcomes import StopReason
from runtime.service.config.browser_endpoints import checked_endpoints
from runtime.service.config.errors import ServiceConfigError
from runtime.service.gen.verity.v1 import agent_service_pb2 as agent_pb
from runtime.service.gen.verity.v1 import events_pb2 as events_pb

scenarios("service_browser_choice.feature", "service_browser_endpoints.feature")

WAITING = events_pb.TASK_STATE_WAITING_FOR_BROWSER_SELECTION
# A ceiling for a loaded machine, never an expected duration.
CEILING = 60.0


@pytest.fixture(scope="module")
def shared_chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with external_chromium(tmp_path_factory.mktemp("choice-chromium") / "profile") as ws_endpoint:
        yield ws_endpoint


@given("a Chromium listening for DevTools on loopback")
def _chromium(shared_chromium: str, context: dict[str, Any]) -> None:
    context["endpoint"] = shared_chromium


@given(parsers.parse('a server attached to it as "{options}", queueing at most {length:d} runs'), target_fixture="target")
def _server_with_options(serve: Any, recipes_dir: Path, context: dict[str, Any], options: str, length: int) -> str:
    browser_id, _, rest = options.partition(" ")
    endpoint = f"{context['endpoint']} id={browser_id} {rest}"
    context["server"] = server = serve(recipes_dir=recipes_dir, browser_ws_endpoints=(endpoint,), browser_queue_length=length)
    return server.target


@given(parsers.parse("a server attached to it allowing {most:d} concurrent run and waits of {seconds:d} seconds"), target_fixture="target")
def _server_with_limit(serve: Any, recipes_dir: Path, context: dict[str, Any], most: int, seconds: int) -> str:
    context["server"] = server = serve(
        recipes_dir=recipes_dir, browser_ws_endpoints=(context["endpoint"],), max_concurrent_runs=most, browser_wait_seconds=float(seconds)
    )
    return server.target


def _until(what: str, reached: Any, watcher: Watcher | None = None) -> None:
    deadline = time.monotonic() + CEILING
    while not reached():
        ended = watcher is not None and watcher.done.is_set()
        assert time.monotonic() < deadline and not ended, f"never {what}: {watcher.events[-3:] if watcher else ''}"
        time.sleep(0.02)


def _start(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str, label: str = "") -> Watcher:
    client = client_for(target)
    run_id = client.start_run(recipe_name=name, inputs=run_inputs(site), browser_label=label).run_id
    watcher = Watcher(client, run_id).start()
    context.setdefault("runs", []).append(watcher)
    return watcher


def _browser(target: str, client_for: Any, browser_id: str) -> agent_pb.BrowserInfo:
    listed = client_for(target).list_browsers().browsers
    return next(b for b in listed if b.browser_id == browser_id)


# --- seeing and holding the browser ---------------------------------------------------------------


@then(parsers.parse('ListBrowsers shows "{browser_id}" {state}, labelled "{label}", hosting {runs:d} runs of a capacity of {capacity:d}'))
def _lists(target: str, client_for: Any, context: dict[str, Any], browser_id: str, state: str, label: str, runs: int, capacity: int) -> None:
    wanted = agent_pb.BrowserState.Value(f"BROWSER_STATE_{state.upper()}")
    # A run's session closes a moment after its verdict: wait for the browser to be given back.
    _until(f"listed {browser_id} {state}", lambda: _browser(target, client_for, browser_id).state == wanted)
    browser = _browser(target, client_for, browser_id)
    assert list(browser.labels) == [label] and browser.active_runs == runs and browser.capacity == capacity, browser
    assert browser.endpoint == context["endpoint"]


@when(parsers.parse('a first client starts "{name}" pinned to label "{label}" and waits for its confirmation request'))
def _first_pinned(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str, label: str) -> None:
    watcher = _start(target, client_for, site, context, name, label)
    _until("asked for confirmation", lambda: any(e.HasField("confirmation_requested") for e in watcher.events), watcher)


@when(parsers.parse('a first client starts "{name}" and waits for its confirmation request'))
def _first(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    _first_pinned(target, client_for, site, context, name, "")


@when(parsers.parse('a second and then a third client start "{name}", each until its run waits for a browser'))
def _two_waiting(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    for _ in range(2):
        watcher = _start(target, client_for, site, context, name)
        _until("waited for a browser", lambda: any(e.status_changed.status == WAITING for e in watcher.events), watcher)


@then(parsers.parse("ListBrowsers counts {count:d} runs waiting"))
def _counted(target: str, client_for: Any, count: int) -> None:
    assert client_for(target).list_browsers().runs_waiting == count


@then("each waiting run's event says it waits for a run slot under max_concurrent_runs")
def _slot_detail(context: dict[str, Any]) -> None:
    for place, watcher in enumerate(context["runs"][1:]):
        detail = next(e.status_changed.detail for e in watcher.events if e.status_changed.status == WAITING)
        assert "a run slot" in detail and "max_concurrent_runs" in detail and f"({place} run" in detail, detail


# --- runs that cannot have a browser --------------------------------------------------------------


@when(parsers.parse('another client runs "{name}" pinned to label "{label}"'))
def _runs_pinned(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str, label: str) -> None:
    context["refused"] = list(client_for(target).run(recipe_name=name, inputs=run_inputs(site), browser_label=label))


@when(parsers.parse('another client runs "{name}"'))
def _runs_once(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str) -> None:
    _runs_pinned(target, client_for, site, context, name, "")


@then(parsers.parse('that run ends browser_unavailable, its summary naming "{first}" and "{second}"'))
def _unavailable_naming(context: dict[str, Any], first: str, second: str) -> None:
    final = context["refused"][-1].final_verdict
    assert final.stop_reason == events_pb.STOP_REASON_BROWSER_UNAVAILABLE and final.status == events_pb.TASK_STATE_ERROR, final
    assert first in final.summary and second in final.summary, final.summary
    assert not final.browser_id


@then(parsers.parse('that run ends browser_unavailable, its summary naming "{first}"'))
def _unavailable(context: dict[str, Any], first: str) -> None:
    _unavailable_naming(context, first, first)


# --- taking turns ---------------------------------------------------------------------------------


@when("the first run's confirmation is approved")
def _approve(context: dict[str, Any]) -> None:
    first = context["runs"][0]
    request_id = next(e for e in first.events if e.HasField("confirmation_requested")).confirmation_requested.request_id
    first.client.confirm_action(first.run_id, request_id, True)


@then("the three runs complete verified, the second taking the browser before the third")
def _in_order(context: dict[str, Any]) -> None:
    runs = context["runs"]
    for watcher in runs:
        watcher.join(CEILING)
        final = watcher.events[-1]
        assert final.HasField("final_verdict") and final.final_verdict.verified, watcher.events[-3:]
    second, third = runs[1].events, runs[2].events
    # The browser (or the slot) holds one run: the second got it first, and the third only once
    # the second had done its last step (its session closes, or its slot frees, after that).
    second_got, third_got = _got_it(second), _got_it(third)
    last_step = max(e.timestamp.ToNanoseconds() for e in second if e.HasField("step_finished"))
    assert second_got < third_got and last_step <= third_got
    for events in (second, third):
        states = [e.status_changed.status for e in events if e.HasField("status_changed")]
        assert WAITING in states and states.index(WAITING) < len(states) - 1 and states[states.index(WAITING) + 1] == events_pb.TASK_STATE_RUNNING


def _got_it(events: list[Any]) -> int:
    """When a run that waited went on: its first `running` after it waited."""
    waited = next(e.seq for e in events if e.status_changed.status == WAITING)
    return next(e.timestamp.ToNanoseconds() for e in events if e.seq > waited and e.status_changed.status == events_pb.TASK_STATE_RUNNING)


@then(parsers.parse('GetRun and the final verdict of each of the three name "{browser_id}"'))
def _named(target: str, client_for: Any, context: dict[str, Any], browser_id: str) -> None:
    client = client_for(target)
    for watcher in context["runs"]:
        assert watcher.events[-1].final_verdict.browser_id == browser_id
        assert client.get_run(watcher.run_id).run.browser_id == browser_id


# --- endpoint lines ---------------------------------------------------------------------------------


@when(parsers.parse('verity serve reads the endpoint "{endpoint}" from endpoints.txt line {line:d}'))
def _read_line(context: dict[str, Any], endpoint: str, line: int) -> None:
    try:
        context["read"] = checked_endpoints([(f"endpoints.txt:{line}", endpoint)])
    except ServiceConfigError as error:
        context["read"] = error


@then(parsers.parse("it has id {browser_id}, labels {first} and {second}, and capacity {capacity:d}"))
def _has(context: dict[str, Any], browser_id: str, first: str, second: str, capacity: int) -> None:
    read = context["read"]
    assert not isinstance(read, ServiceConfigError), read
    (spec,) = parse_endpoint_specs(read)
    assert (spec.browser_id, spec.labels, spec.capacity) == (browser_id, tuple(x for x in (first, second) if x), capacity)


@then(parsers.parse("it has id {browser_id}, no labels and no capacity of its own"))
def _has_plain(context: dict[str, Any], browser_id: str) -> None:
    _has(context, browser_id, "", "", 0)


@then(parsers.parse('it is refused at {place} naming "{text}"'))
def _refused(context: dict[str, Any], place: str, text: str) -> None:
    read = context["read"]
    assert isinstance(read, ServiceConfigError), read
    assert str(read).startswith(f"{place}: ") and text in str(read) and "hunter2" not in str(read), str(read)


# --- browsers that cannot take a run, and the launched one ------------------------------------------


@given("a Chromium started without the UDP confinement, listening for DevTools on loopback", target_fixture="unfenced_endpoint")
def _unfenced(tmp_path: Path) -> Iterator[str]:
    with external_chromium(tmp_path / "unfenced-profile", udp_confined=False) as ws_endpoint:
        yield ws_endpoint


@when(parsers.parse('a pool of it as "{unfenced_id}" and of a loopback port nobody listens at as "{gone_id}" is started'))
def _pool(loop_thread: LoopThread, unfenced_endpoint: str, context: dict[str, Any], unfenced_id: str, gone_id: str) -> None:
    # A port held bound but never listening: connecting is refused at once, and no other process
    # can start listening there meanwhile.
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        gone = f"ws://127.0.0.1:{held.getsockname()[1]}/devtools/browser/none id={gone_id}"
        pool = BrowserPool([f"{unfenced_endpoint} id={unfenced_id}", gone], retry_delays=(3600.0,))
        failed = loop_thread.run(pool.start_all(), 120)
        context["described"] = {d.browser_id: d for d in pool.describe()}
        loop_thread.run(pool.close())
    assert len(failed) == 2, failed


@then(parsers.parse('the pool describes "{unfenced_id}" as {refused} and "{gone_id}" as {lost}, each hosting no run'))
def _described(context: dict[str, Any], unfenced_id: str, refused: str, gone_id: str, lost: str) -> None:
    described = context["described"]
    assert described[unfenced_id].state is BrowserState(refused) and described[gone_id].state is BrowserState(lost), described
    assert all(d.active_runs == 0 and d.capacity == 0 for d in described.values())


@given("a server that launches its own Chromium", target_fixture="target")
def _launching_server(serve: Any, recipes_dir: Path, context: dict[str, Any]) -> str:
    context["server"] = server = serve(recipes_dir=recipes_dir)
    return server.target


@then('ListBrowsers lists one browser, "local", ready, with no labels, no endpoint and no capacity of its own')
def _local(target: str, client_for: Any) -> None:
    (browser,) = client_for(target).list_browsers().browsers
    assert (browser.browser_id, browser.state, list(browser.labels), browser.endpoint, browser.capacity) == (
        "local", agent_pb.BROWSER_STATE_READY, [], "", 0,
    ), browser


@when(parsers.parse('a client runs "{name}" pinned to label "{label}" there'))
def _runs_pinned_there(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], name: str, label: str) -> None:
    _runs_pinned(target, client_for, site, context, name, label)


@then("the server has launched no Chromium")
def _no_launch(context: dict[str, Any]) -> None:
    browser = context["server"].server._browser
    assert browser.browser is None and browser.available is None


@when(parsers.parse('I run "verity client {command}" against it'))
def _cli(target: str, site: FixtureSite, capsys: pytest.CaptureFixture[str], context: dict[str, Any], command: str) -> None:
    extra = ["--input", f"site={site.base_url}"] if command.startswith("run ") else []
    code = verity_main(["client", *command.split(), *extra, "--target", target])
    context["cli"] = (code, capsys.readouterr().out)


@then(parsers.parse('it prints "{first}" and "{second}"'))
def _printed(context: dict[str, Any], first: str, second: str) -> None:
    code, out = context["cli"]
    assert code == 0 and out.splitlines() == [first, second], out


@then(parsers.parse('it exits {code:d}, the browser_unavailable code, printing the final verdict naming "{text}"'))
def _exited(context: dict[str, Any], code: int, text: str) -> None:
    exit_code, out = context["cli"]
    assert exit_code == code == StopReason.BROWSER_UNAVAILABLE.exit_code, out
    assert "final_verdict" in out.splitlines()[-1] and text in out.splitlines()[-1], out
