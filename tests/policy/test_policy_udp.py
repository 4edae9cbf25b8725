"""Binds features/policy_udp.feature: WebRTC UDP cannot go around the network fence (issue 15).

Every WebRTC page here opens in a Chromium with WebRTC confined to the proxy and mDNS off; the one
scenario without the confinement (POLICY-025) runs in a network namespace of its own
(tests/fixtures/webrtc/unfenced.py), and the unfenced attached Chromium of POLICY-028 opens no
WebRTC page at all: only Verity's relay-only probe, whose one peer is a loopback socket.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.browser import Browser
from runtime.browser.launch.chromium_start import DNS_FENCE_FLAG, WEBRTC_UDP_FLAG, WEBRTC_UDP_FORCE_FLAG
from runtime.browser.supply.udp_fence import UdpFenceVerdict, probe_udp_fence
from runtime.execute import BrowserProvider
from runtime.outcomes import StopReason
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.external_chromium import external_chromium
from tests.fixtures.webrtc.exercise import QUOTE, Attempt, run_attempt
from tests.fixtures.webrtc.site import ROOT as WEBRTC_ROOT
from tests.fixtures.webrtc.site import WebRtcSite
from tests.fixtures.webrtc.unfenced import run_in_own_network_namespace
from tests.policy.corpus_runs import run_recipe

scenarios("policy_udp.feature")

REPO = Path(__file__).resolve().parents[2]
# Ceilings for a loaded machine, not expected durations.
COMMAND_CEILING_SECONDS = 180.0
EXIT_CONFIG_ERROR = 2


@pytest.fixture
def context() -> dict[str, Any]:
    return {}


@pytest.fixture
def webrtc_site() -> Iterator[WebRtcSite]:
    with WebRtcSite() as site:
        yield site


@given("the WebRTC fence site")
def _the_site(webrtc_site: WebRtcSite) -> None:
    assert sum(webrtc_site.datagrams().values()) == 0, "each scenario starts with silent peers"


def _recipe_text(site: WebRtcSite) -> str:
    return (WEBRTC_ROOT / "recipe.yaml").read_text(encoding="utf-8").replace("__ALLOWED__", site.allowed_host)


# --- the launched Chromium ------------------------------------------------------------------------


@given("a launched Chromium", target_fixture="browser")
def _launched(shared_browser: Browser) -> Browser:
    assert shared_browser.pid is not None, "the suite's browser is launched by Verity"
    return shared_browser


@when("its command line is read, from the process and from Chromium over CDP")
def _read_command_line(loop_thread: LoopThread, browser: Browser, context: dict[str, Any]) -> None:
    assert browser.pid is not None
    context["argv"] = Path(f"/proc/{browser.pid}/cmdline").read_bytes().decode().split("\0")

    async def held() -> list[str]:
        # The switches as the browser process parsed them, asked over CDP (the headless shell has
        # no chrome://version page); of two equal switches Chromium acts on the last.
        reply = await browser.raw._connection.send("Browser.getBrowserCommandLine")
        return list(reply["arguments"])

    switches = loop_thread.run(held())
    disabled = [arg.partition("=")[2] for arg in switches if arg.startswith("--disable-features=")]
    context["variations"] = {"disable-features": disabled[-1] if disabled else ""}


@then("the command line has the WebRTC UDP confinement and exactly one --disable-features flag")
def _command_line(context: dict[str, Any]) -> None:
    argv: list[str] = context["argv"]
    # The desktop browser reads the first as a preference; the headless shell reads only the second.
    assert WEBRTC_UDP_FLAG in argv and WEBRTC_UDP_FORCE_FLAG in argv, argv
    assert len([arg for arg in argv if arg.startswith("--disable-features=")]) == 1, argv


@then('the command line maps every name but loopback\'s to "not found"')
def _dns_fence(context: dict[str, Any]) -> None:
    # One --host-resolver-rules, ours (what it does to lookups: tests/policy/test_policy_dns.py).
    rules = [arg for arg in context["argv"] if arg.startswith("--host-resolver-rules=")]
    assert rules == [DNS_FENCE_FLAG], context["argv"]


@then("the features Chromium disabled include WebRtcHideLocalIpsWithMdns, IsolateOrigins and site-per-process")
def _disabled_features(context: dict[str, Any]) -> None:
    disabled = set(context["variations"].get("disable-features", "").split(","))
    assert {"WebRtcHideLocalIpsWithMdns", "IsolateOrigins", "site-per-process"} <= disabled, context["variations"]


# --- attempts in a session -----------------------------------------------------------------------------


def _attempt(loop_thread: LoopThread, browser: Browser, site: WebRtcSite, kind: str, when: str, tmp_path: Path) -> Attempt:
    late = {"on load": False, "after the page was verified": True}[when]
    return loop_thread.run(run_attempt(browser, site, kind, late=late, artifacts_dir=tmp_path / f"{kind}-{late}"), 120)


@when(parsers.parse('the page\'s "{kind}" attempt starts {when} in a session with the network policy on the launched Chromium'))
def _attempt_launched(loop_thread: LoopThread, shared_browser: Browser, webrtc_site: WebRtcSite, kind: str, when: str,
                      tmp_path: Path, context: dict[str, Any]) -> None:
    context["attempt"] = _attempt(loop_thread, shared_browser, webrtc_site, kind, when, tmp_path)


@then("the page's quote was verified before the attempt was awaited")
def _verified(context: dict[str, Any]) -> None:
    assert context["attempt"].verified, context["attempt"]


@then("the attempt was spent without gathering a candidate")
def _spent(context: dict[str, Any]) -> None:
    reported = context["attempt"].reported
    # Gathering completed, so every STUN/TURN datagram it would send was sent; with no local
    # candidate, no connectivity check to the forged candidate can ever be sent.
    assert reported["gathering"] == "complete" and reported["candidates"] == [], reported


@then("the off-domain peers received no datagram")
def _no_datagram(webrtc_site: WebRtcSite) -> None:
    counts = webrtc_site.datagrams()
    assert sum(counts.values()) == 0, counts


# --- the unfenced Chromium, in a namespace of its own --------------------------------------------------


@given("the WebRTC attempts run on a Chromium started without the UDP confinement, mDNS still off, inside a network namespace with no link out")
def _unfenced(context: dict[str, Any]) -> None:
    context["unfenced"] = run_in_own_network_namespace()


@then("every attempt's peer received at least one datagram, on load and after the page was verified")
def _every_attempt_leaked(context: dict[str, Any]) -> None:
    results: dict[str, dict[str, Any]] = context["unfenced"]
    assert set(results) == {"stun", "stun-late", "turn", "turn-late", "forged", "forged-late"}, results
    silent = {name: result for name, result in results.items() if result["datagrams"] < 1}
    assert not silent, results


# --- a run through the run API -------------------------------------------------------------------------


@when("a recipe reads the page whose forged candidate is tried on load, through the run API on the launched Chromium")
def _run_api(loop_thread: LoopThread, shared_browser: Browser, webrtc_site: WebRtcSite, tmp_path: Path, context: dict[str, Any]) -> None:
    provider = BrowserProvider(browser=shared_browser)
    context["run"] = loop_thread.run(
        run_recipe(provider, _recipe_text(webrtc_site), webrtc_site.page_url("forged", now=True), tmp_path / "webrtc-run"), 180
    )


@then("the run completes with the page's quote")
def _run_completed(context: dict[str, Any]) -> None:
    run = context["run"]
    assert (run.verdict.stop_reason, run.value) == (StopReason.COMPLETED, QUOTE), run.written


# --- attached browsers -------------------------------------------------------------------------------


@given("a desktop Chromium started with the UDP confinement and without mDNS, attached through --browser-ws", target_fixture="attached")
def _attached_fenced(loop_thread: LoopThread, tmp_path: Path) -> Iterator[BrowserProvider]:
    with external_chromium(tmp_path / "fenced-profile", udp_confined=True, desktop=True) as ws_endpoint:
        provider = BrowserProvider(ws_endpoint=ws_endpoint)
        loop_thread.run(provider.start())  # the probe runs here; an unfenced browser would raise
        yield provider
        loop_thread.run(provider.close())


@when(parsers.parse('the page\'s "{kind}" attempt starts {when} in a session of the attached Chromium'))
def _attempt_attached(loop_thread: LoopThread, attached: BrowserProvider, webrtc_site: WebRtcSite, kind: str, when: str,
                      tmp_path: Path, context: dict[str, Any]) -> None:
    assert attached.browser is not None
    context["attempt"] = _attempt(loop_thread, attached.browser, webrtc_site, kind, when, tmp_path)


@then("the probe found the attached Chromium fenced")
def _probe_fenced(loop_thread: LoopThread, attached: BrowserProvider) -> None:
    assert attached.browser is not None
    verdict: UdpFenceVerdict = loop_thread.run(probe_udp_fence(attached.browser), 120)
    assert verdict.fenced and verdict.webrtc and verdict.datagrams == 0, verdict


@given("a Chromium started without the UDP confinement (mDNS still off), with a remote debugging port", target_fixture="unfenced_ws")
def _unfenced_external(tmp_path: Path) -> Iterator[str]:
    with external_chromium(tmp_path / "unfenced-profile", udp_confined=False) as ws_endpoint:
        yield ws_endpoint


def _verity(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "runtime.cli.main", *args], capture_output=True, text=True, timeout=COMMAND_CEILING_SECONDS,
        cwd=cwd, env={**os.environ, "PYTHONPATH": str(REPO)}, check=False,
    )


@when('"verity run --browser-ws" runs the WebRTC recipe on it')
def _verity_run(webrtc_site: WebRtcSite, unfenced_ws: str, tmp_path: Path, context: dict[str, Any]) -> None:
    recipe = tmp_path / "webrtc.yaml"
    recipe.write_text(_recipe_text(webrtc_site), encoding="utf-8")
    context["run_dir"] = tmp_path / "cli-run"
    context["command"] = _verity(
        "run", str(recipe), "-i", f"page_url={webrtc_site.page_url('forged', now=True)}", "--out", str(context["run_dir"]),
        "--browser-ws", unfenced_ws, cwd=tmp_path,
    )


@then("it exits with the browser_crashed exit code, naming the flag the browser must be started with, without a traceback")
def _run_refused(context: dict[str, Any]) -> None:
    done: subprocess.CompletedProcess[str] = context["command"]
    shown = done.stdout + done.stderr
    assert done.returncode == StopReason.BROWSER_CRASHED.exit_code, shown
    assert WEBRTC_UDP_FLAG in shown and "Traceback" not in shown, shown


@then("the run's verdict says no browser could be had and names the flag")
def _run_verdict(context: dict[str, Any]) -> None:
    verdict = json.loads((context["run_dir"] / "verdict.json").read_text(encoding="utf-8"))
    assert verdict["stop_reason"] == "browser_crashed", verdict
    # The summary names the step first ("navigate open: no browser: ..."), then why.
    assert "no browser:" in verdict["summary"] and WEBRTC_UDP_FLAG in verdict["summary"], verdict


@when('"verity serve --browser-ws" starts on it')
def _verity_serve(unfenced_ws: str, tmp_path: Path, context: dict[str, Any]) -> None:
    recipes = tmp_path / "recipes"
    recipes.mkdir()
    context["command"] = _verity(
        "serve", "--port", "0", "--store", str(tmp_path / "serve" / "verity.db"), "--runs-dir", str(tmp_path / "serve" / "runs"),
        "--recipes-dir", str(recipes), "--browser-ws", unfenced_ws, cwd=tmp_path,
    )


@then("it exits with the configuration error code, naming the flag, without a traceback")
def _serve_refused(context: dict[str, Any]) -> None:
    done: subprocess.CompletedProcess[str] = context["command"]
    shown = done.stdout + done.stderr
    assert done.returncode == EXIT_CONFIG_ERROR, shown
    assert WEBRTC_UDP_FLAG in done.stderr and "Traceback" not in shown and "listening on" not in shown, shown


