"""Bindings of features/service_browser_pool.feature: `verity serve` processes attached to two real
Chromiums over their DevTools websockets (never more than two Chromiums in one test)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.fixtures.external_chromium import WEBRTC_UDP_FLAG, RestartableChromium, external_chromium
from tests.service.run_steps import *  # noqa: F403 - the shared real-run steps
from tests.service.run_steps import SERVING, run_inputs, serve_args, start_and_watch

from runtime.cli.serve import EXIT_CONFIG_ERROR
from runtime.service.gen.verity.v1 import events_pb2 as events_pb

scenarios("service_browser_pool.feature")

# Ceilings for a loaded machine, never expected durations.
# Reconnection waits out the endpoint's backoff (0.5 s doubling to 15 s between attempts).
BACK_IN_POOL_CEILING = 120.0
ENDPOINT_PREFIX = "browser endpoint "
URL_PASSWORD = "pool-secret-7f3a9c"


@pytest.fixture
def pool_chromiums(tmp_path: Path) -> Iterator[list[RestartableChromium]]:
    chromiums = [RestartableChromium(tmp_path / f"chromium-{n}") for n in (1, 2)]
    yield chromiums
    for chromium in chromiums:
        chromium.kill()


def endpoint_of(events: list[Any]) -> str | None:
    """The endpoint a run's events name, or None before its session is open."""
    for event in events:
        if event.HasField("status_changed") and event.status_changed.detail.startswith(ENDPOINT_PREFIX):
            return event.status_changed.detail.removeprefix(ENDPOINT_PREFIX)
    return None


def address_of(url: str) -> str:
    """host:port of a URL, as shown redacted too (`[redacted]@host:port` is no URL urlsplit takes)."""
    return url.partition("://")[2].partition("/")[0].rpartition("@")[2]


def with_password(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=f"verity:{URL_PASSWORD}@{parts.netloc}"))


# --- starting attached to a pool -------------------------------------------------------------------


@given("two Chromiums listening for DevTools on loopback")
@given("two Chromiums listening for DevTools on fixed loopback ports")
def _two_chromiums(pool_chromiums: list[RestartableChromium], context: dict[str, Any]) -> None:
    context["endpoints"] = [chromium.start() for chromium in pool_chromiums]


@given("an endpoints file listing both, with comments, the second with a password in its URL")
def _endpoints_file(tmp_path: Path, context: dict[str, Any]) -> None:
    # A DevTools server ignores credentials in the URL; a hosted browser's would check them.
    first, second = context["endpoints"]
    context["listed"] = [first, with_password(second)]
    path = context["endpoints_file"] = tmp_path / "endpoints.txt"
    path.write_text(f"# the browsers of this server\n{first}   # the first\n\n  # the second, with its credentials\n{context['listed'][1]}\n")


@given("a verity serve process attached with --browser-ws-file", target_fixture="target")
def _serve_with_file(serve_processes: Any, tmp_path: Path, recipes_dir: Path, context: dict[str, Any]) -> str:
    # Its runs hang until the test ends: no grace period for them when the server is stopped then.
    args = serve_args(tmp_path, recipes_dir, "--browser-ws-file", str(context["endpoints_file"]), "--grace-seconds", "0")
    context["process"] = process = serve_processes(*args)
    return process.target


@given(
    parsers.parse("a verity serve process attached to both with --browser-ws given twice, retrying a lost one at most every {seconds:d} second"),
    target_fixture="target",
)
def _serve_with_flags(serve_processes: Any, tmp_path: Path, recipes_dir: Path, context: dict[str, Any], seconds: int) -> str:
    first, second = context["endpoints"]
    retry = ("--browser-retry-max-seconds", str(seconds))
    context["process"] = process = serve_processes(*serve_args(tmp_path, recipes_dir, "--browser-ws", first, "--browser-ws", second, *retry))
    return process.target


RETRY_WAIT = re.compile(r"trying again in ([0-9.]+) s")


@then(parsers.parse("the server's log shows it tried again, waiting at most {seconds:d} second between attempts"))
def _retry_waits(context: dict[str, Any], seconds: int) -> None:
    waits = [float(found) for found in RETRY_WAIT.findall(context["process"].text)]
    assert waits and max(waits) <= seconds, waits


# --- runs and their endpoints ----------------------------------------------------------------------


def _start_until_endpoint(target: str, client_for: Any, site: Any, context: dict[str, Any], name: str) -> str:
    watcher = start_and_watch(target, client_for, site, context, name, lambda events: endpoint_of(events) is not None, "a browser endpoint")
    context.setdefault("watchers", []).append(watcher)
    return endpoint_of(watcher.events) or ""


@when(parsers.parse('a client starts "{name}" and waits until it names its browser endpoint'))
@when(parsers.parse('a second client starts "{name}" and waits until it names its browser endpoint'))
def _start_named(target: str, client_for: Any, site: Any, context: dict[str, Any], name: str) -> None:
    context.setdefault("run_endpoints", []).append(_start_until_endpoint(target, client_for, site, context, name))


@then("the first run names the first endpoint and the second run the second endpoint")
def _spread(context: dict[str, Any]) -> None:
    first, second = context["run_endpoints"]
    assert address_of(first) == address_of(context["endpoints"][0]), context["run_endpoints"]
    assert address_of(second) == address_of(context["endpoints"][1]), context["run_endpoints"]


@then("no event of either run nor the server's log holds the password, which shows as redacted")
def _redacted(context: dict[str, Any]) -> None:
    first, second = context["run_endpoints"]
    assert "[redacted]@" in second and "[redacted]@" not in first, context["run_endpoints"]
    for watcher in context["watchers"]:
        for event in watcher.events:
            assert URL_PASSWORD not in str(event), event
    assert URL_PASSWORD not in context["process"].text


@when("the Chromium of the first endpoint is killed")
def _kill_first(pool_chromiums: list[RestartableChromium]) -> None:
    pool_chromiums[0].kill()


@when("the Chromiums of both endpoints are killed")
def _kill_both(pool_chromiums: list[RestartableChromium]) -> None:
    for chromium in pool_chromiums:
        chromium.kill()


@when("a Chromium listens on the first endpoint's port again")
def _restart_first(pool_chromiums: list[RestartableChromium], context: dict[str, Any]) -> None:
    assert pool_chromiums[0].start() != context["endpoints"][0]  # a new browser id at the same address


def _run(target: str, client_for: Any, site: Any, name: str) -> list[Any]:
    return list(client_for(target).run(recipe_name=name, inputs=run_inputs(site)))


def _assert_completed(events: list[Any]) -> None:
    final = events[-1].final_verdict
    assert events[-1].HasField("final_verdict") and final.stop_reason == events_pb.STOP_REASON_COMPLETED and final.verified, final


@then(parsers.parse('a client running "{name}" gets a completed, verified verdict from the {which} endpoint'))
def _completed_on(target: str, client_for: Any, site: Any, context: dict[str, Any], name: str, which: str) -> None:
    events = _run(target, client_for, site, name)
    _assert_completed(events)
    index = {"first": 0, "second": 1}[which]
    assert address_of(endpoint_of(events) or "") == address_of(context["endpoints"][index]), endpoint_of(events)


@then("the health watcher has seen only SERVING")
def _only_serving(context: dict[str, Any]) -> None:
    statuses = context["health"].statuses
    assert statuses and set(statuses) == {SERVING}, statuses


@then(parsers.parse('a run of "{name}" completes on the first endpoint again after its backoff'))
def _back_in_pool(target: str, client_for: Any, site: Any, context: dict[str, Any], name: str) -> None:
    # Both endpoints are idle: a run goes to the first listed as soon as it is back in the pool,
    # and to the second until then. Runs are started until one lands there (the condition).
    first = address_of(context["endpoints"][0])
    deadline = time.monotonic() + BACK_IN_POOL_CEILING
    landed: list[str] = []
    while True:
        events = _run(target, client_for, site, name)
        _assert_completed(events)
        landed.append(address_of(endpoint_of(events) or ""))
        if landed[-1] == first:
            return
        assert time.monotonic() < deadline, f"the first endpoint never took a run again: {landed}"


@then(parsers.parse('a client running "{name}" gets a browser_crashed verdict saying no browser could be had'))
def _no_browser(target: str, client_for: Any, site: Any, name: str) -> None:
    events = _run(target, client_for, site, name)
    final = events[-1].final_verdict
    assert events[-1].HasField("final_verdict") and final.stop_reason == events_pb.STOP_REASON_BROWSER_CRASHED, final
    assert "no browser:" in final.summary and endpoint_of(events) is None, final.summary


# --- refused at start-up ---------------------------------------------------------------------------


def _verity_serve(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    recipes = tmp_path / "recipes-empty"
    recipes.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "runtime.cli.main", "serve", "--port", "0", "--store", str(tmp_path / "refused" / "verity.db"),
         "--runs-dir", str(tmp_path / "refused" / "runs"), "--recipes-dir", str(recipes), *args],
        capture_output=True, text=True, timeout=180, env=dict(os.environ),
    )


@pytest.fixture
def exit_stack() -> Iterator[ExitStack]:
    with ExitStack() as stack:
        yield stack


@given("a Chromium started with the UDP confinement and one started without it")
def _fenced_and_not(tmp_path: Path, context: dict[str, Any], exit_stack: ExitStack) -> None:
    context["fenced"] = exit_stack.enter_context(external_chromium(tmp_path / "fenced-profile"))
    context["unfenced"] = exit_stack.enter_context(external_chromium(tmp_path / "unfenced-profile", udp_confined=False))


@when("verity serve starts with both as --browser-ws")
def _serve_both(tmp_path: Path, context: dict[str, Any]) -> None:
    context["command"] = _verity_serve(tmp_path, "--browser-ws", context["fenced"], "--browser-ws", context["unfenced"])


@then("it exits with the configuration error code, naming the unfenced endpoint and the flag")
def _refused_unfenced(context: dict[str, Any]) -> None:
    done: subprocess.CompletedProcess[str] = context["command"]
    shown = done.stdout + done.stderr
    assert done.returncode == EXIT_CONFIG_ERROR, shown
    refusal = [line for line in done.stderr.splitlines() if line.startswith("verity serve:")]
    assert len(refusal) == 1 and context["unfenced"] in refusal[0] and context["fenced"] not in refusal[0], shown
    assert WEBRTC_UDP_FLAG in refusal[0] and "Traceback" not in shown and "listening on" not in shown, shown


BAD_LINES = {
    "an http URL": "http://127.0.0.1:9/devtools/browser/x?token=bad-line-secret",
    "the URL already listed on line 2": "ws://127.0.0.1:9/devtools/browser/first",
}


@given(parsers.parse("{source} whose line 3 is {problem}"))
def _bad_list(tmp_path: Path, context: dict[str, Any], source: str, problem: str) -> None:
    bad = BAD_LINES[problem]
    if source == "an endpoints file":
        path = tmp_path / "endpoints.txt"
        path.write_text(f"# endpoints\nws://127.0.0.1:9/devtools/browser/first\n{bad}\n")
        context["serve_args"] = ["--browser-ws-file", str(path)]
    else:
        assert source == "a config file's browser_ws list", source
        path = tmp_path / "serve.yaml"
        path.write_text(f"browser_ws:\n  - ws://127.0.0.1:9/devtools/browser/first\n  - {bad}\n")
        context["serve_args"] = ["--config", str(path)]
    context["list_file"] = path


@when("verity serve starts with it")
def _serve_with_list(tmp_path: Path, context: dict[str, Any]) -> None:
    context["command"] = _verity_serve(tmp_path, *context["serve_args"])


@then(parsers.parse('it exits with the configuration error code naming line 3 and saying "{says}", without a traceback'))
def _refused_list(context: dict[str, Any], says: str) -> None:
    done: subprocess.CompletedProcess[str] = context["command"]
    shown = done.stdout + done.stderr
    assert done.returncode == EXIT_CONFIG_ERROR, shown
    assert f"{context['list_file']}:3" in done.stderr and says in done.stderr, shown
    assert "Traceback" not in shown and "listening on" not in shown and "bad-line-secret" not in shown, shown


@when(parsers.parse("verity serve starts with browser_retry_max_seconds {value} given {how}"))
def _serve_with_retry_cap(tmp_path: Path, context: dict[str, Any], value: str, how: str) -> None:
    if how == "in its config file":
        path = tmp_path / "serve.yaml"
        path.write_text(f"browser_retry_max_seconds: {value}\n")
        context["command"] = _verity_serve(tmp_path, "--config", str(path))
    else:
        assert how == "as a flag", how
        context["command"] = _verity_serve(tmp_path, "--browser-retry-max-seconds", value)


@then(parsers.parse('it exits with the configuration error code saying "{says}", without a traceback'))
def _refused_saying(context: dict[str, Any], says: str) -> None:
    done: subprocess.CompletedProcess[str] = context["command"]
    shown = done.stdout + done.stderr
    assert done.returncode == EXIT_CONFIG_ERROR and says in done.stderr, shown
    assert "Traceback" not in shown and "listening on" not in shown, shown
