"""Binds features/policy_external.feature: no program outside the browser starts (issue 33).

Each scenario puts a logging xdg-open (tests/fixtures/external_protocols/site.py) first on this
process's PATH, then starts a Chromium of its own: Verity's launch (POLICY-033) or one started the
way an operator starts one for --browser-ws (POLICY-034, POLICY-040), with that PATH as it is or
less its openers.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.artifacts import ArtifactStore
from runtime.browser import LaunchOptions, SessionPolicy, connect_browser, find_chromium, launch_browser, open_session
from runtime.browser.launch.desktop_handlers import handler_attempts, install_handler_stubs
from runtime.browser.supply.handler_fence import DEFAULT_PATH, openers_on_path, process_problem, same_process
from runtime.browser.vocabulary.errors import LaunchErrorCode
from runtime.execute import BrowserProvider
from runtime.policy import EXTERNAL_PROTOCOL, NetworkPolicy
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.external_chromium import external_chromium
from tests.fixtures.external_protocols.site import (
    CALL_CEILING_SECONDS, FRAME_URLS, LOGGED_PROGRAMS, QUOTE, URLS, ExternalProtocolSite, LoggingHandlers,
)
from tests.policy.corpus_runs import run_recipe

scenarios("policy_external.feature")

MAILTO = FRAME_URLS[0]
# Ceilings for a loaded machine, not expected durations.
RUN_CEILING_SECONDS = 150.0
PAGE_CEILING_MS = 60_000


@pytest.fixture
def world() -> dict[str, Any]:
    return {}


@pytest.fixture
def chromiums() -> Iterator[ExitStack]:
    """Chromiums a scenario starts, stopped when it ends (a later step may reach one again)."""
    with ExitStack() as stack:
        yield stack


@given("the external-protocols page and a logging xdg-open first on the PATH", target_fixture="site")
def _site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, world: dict[str, Any]) -> Iterator[ExternalProtocolSite]:
    world["handlers"] = LoggingHandlers(tmp_path / "logging-handlers")
    monkeypatch.setenv("PATH", f"{world['handlers'].directory}{os.pathsep}{os.environ.get('PATH', '')}")
    with ExternalProtocolSite() as site:
        yield site


@when(parsers.parse("a recipe reads the page through the run API on the {binary} Verity launched"))
def _run(loop_thread: LoopThread, site: ExternalProtocolSite, tmp_path: Path, world: dict[str, Any], binary: str) -> None:
    executable = {"desktop Chromium": find_chromium(headless=False), "headless shell": find_chromium(headless=True)}[binary]
    assert (binary == "headless shell") == ("headless-shell" in executable), f"no {binary} here: {executable}"

    async def run() -> Any:
        browser = await launch_browser(LaunchOptions(executable_path=executable))
        try:
            assert browser.pid is not None
            argv = Path(f"/proc/{browser.pid}/cmdline").read_bytes().decode().split("\0")
            world["profile"] = Path(next(arg for arg in argv if arg.startswith("--user-data-dir=")).partition("=")[2])
            done = await run_recipe(BrowserProvider(browser=browser), site.recipe_text(), site.page_url(), tmp_path / "external-run")
            # The shell asks no desktop for a handler, so there is no hand-off to wait for there.
            world["stub_asked"] = await _stub_asked(world["profile"]) if binary == "desktop Chromium" else None
            return done
        finally:
            await browser.close()

    world["run"] = loop_thread.run(run(), RUN_CEILING_SECONDS)


async def _stub_asked(profile: Path) -> bool:
    """Until Verity's stub logged the mailto hand-off (Chromium starts it on its own schedule)."""
    deadline = time.monotonic() + CALL_CEILING_SECONDS
    while ("xdg-open", MAILTO) not in handler_attempts(profile):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)  # another process writes the log; nothing to wait on but the file
    return True


@then("the run completes with the page's quote")
def _completed(world: dict[str, Any]) -> None:
    run = world["run"]
    assert (run.verdict.stop_reason.value, run.value) == ("completed", QUOTE), run.written


@then("verdict.json counts the frames' mailto, ssh and ircs attempts and the clicked windows' mailto, ssh and ircs as external_protocol blocked requests")
def _verdict_counts(world: dict[str, Any]) -> None:
    blocked = world["run"].written["blocked_requests"]
    external = {s["target"] for s in blocked["samples"] if s["method"] == EXTERNAL_PROTOCOL}
    assert external == set(URLS) and blocked["by_kind"].get("external_protocol") == len(URLS), blocked


@then("Verity's own stub was asked to open the mailto URL, and the logging xdg-open never was")
def _stubbed(world: dict[str, Any]) -> None:
    assert world["stub_asked"], handler_attempts(world["profile"])
    assert world["handlers"].calls() == [], world["handlers"].calls()


@then("neither Verity's stub nor the logging xdg-open was asked to open anything")
def _nothing_asked(world: dict[str, Any]) -> None:
    assert handler_attempts(world["profile"]) == [], handler_attempts(world["profile"])
    assert world["handlers"].calls() == [], world["handlers"].calls()


@when(parsers.re(r"a recipe reads the page through the run API on a (?P<binary>desktop Chromium|headless shell) started with "
                 r"that PATH(?P<less>( less its openers)?), attached through --browser-ws"))
def _attached(loop_thread: LoopThread, site: ExternalProtocolSite, chromiums: ExitStack, tmp_path: Path, world: dict[str, Any],
              binary: str, less: str) -> None:
    desktop = binary == "desktop Chromium"
    world["ws_endpoint"] = chromiums.enter_context(external_chromium(tmp_path / "attached-profile", desktop=desktop, openers=not less))
    provider = BrowserProvider(ws_endpoint=world["ws_endpoint"])

    async def run() -> Any:
        try:
            return await run_recipe(provider, site.recipe_text(), site.page_url(), tmp_path / "attached-run")
        finally:
            world["refusal"] = provider.last_error
            await provider.close()  # disconnects; the Chromium runs on for a later step

    world["run"] = loop_thread.run(run(), RUN_CEILING_SECONDS)


@then("the run ends browser_crashed as handlers_not_fenced, naming the logging xdg-open and what to do")
def _refused(world: dict[str, Any]) -> None:
    run, refusal = world["run"], world["refusal"]
    assert refusal is not None and refusal.code == LaunchErrorCode.HANDLERS_NOT_FENCED, (refusal, run.written)
    summary = run.written["summary"]
    assert run.verdict.stop_reason.value == "browser_crashed", run.written
    assert str(world["handlers"].directory / "xdg-open") in summary and "headless shell" in summary and "PATH" in summary, summary


@then("the page was never requested, and the logging xdg-open was never asked")
def _untouched(site: ExternalProtocolSite, world: dict[str, Any]) -> None:
    assert site.requested == [], site.requested
    assert world["handlers"].calls() == [], world["handlers"].calls()


@then("the logging xdg-open was never asked")
def _never_asked(world: dict[str, Any]) -> None:
    # A desktop Chromium hands the frames' mailto: over within the run (POLICY-033 waits for Verity's
    # stub to hear it); the run has ended, so by now any hand-off to the logging one would be logged.
    assert world["handlers"].calls() == [], world["handlers"].calls()


@when("the page opens in a session with the network policy on that Chromium, reached without Verity's attach checks")
def _unchecked(loop_thread: LoopThread, site: ExternalProtocolSite, tmp_path: Path, world: dict[str, Any]) -> None:
    async def run(ws_endpoint: str) -> None:
        browser = await connect_browser(ws_endpoint)
        try:
            policy = SessionPolicy(network=NetworkPolicy.of([site.allowed_host]))
            session = await open_session(browser, artifacts=ArtifactStore(tmp_path / "attached"), policy=policy)
            try:
                opened = await session.open_url(site.page_url(), timeout_ms=PAGE_CEILING_MS)
                assert opened.ok, opened.error
                assert session.proxy is not None
                world["blocked"] = [b for b in session.proxy.log.samples if b.method == EXTERNAL_PROTOCOL]
                world["called"] = await asyncio.to_thread(world["handlers"].wait_for_call, "xdg-open", MAILTO)
            finally:
                await session.stop()
        finally:
            await browser.close()

    loop_thread.run(run(world["ws_endpoint"]), RUN_CEILING_SECONDS)


@then("the logging xdg-open was asked to open the mailto URL")
def _called(world: dict[str, Any]) -> None:
    assert world["called"], world["handlers"].calls()


@then("the session's blocked requests name the mailto, ssh and ircs attempts as external_protocol")
def _recorded(world: dict[str, Any]) -> None:
    blocked = world["blocked"]
    assert {b.target for b in blocked} == set(FRAME_URLS) and all(b.kind == "external_protocol" for b in blocked), blocked


# --- the judgement of a desktop Chromium's process, without a browser (POLICY-040) -----------------

DEBIAN_STARTED = ["/usr/lib/chromium/chromium", "--load-extension=", "about:blank", "--headless", "--remote-debugging-port=0"]
# What CDP reported for that process (measured on 156): Chromium's own switches added, `--name=`
# written `--name`, the URL moved after the switches.
DEBIAN_REPORTED = ["/usr/lib/chromium/chromium", "--load-extension", "--headless", "--remote-debugging-port=0", "--noerrdialogs", "about:blank"]


@pytest.mark.parametrize(
    ("started", "same"),
    [
        (DEBIAN_STARTED, True),
        (["/usr/lib/chromium/chromium", "--headless", "--load-extension=", "--remote-debugging-port=0", "about:blank"], False),  # switches reordered
        (["/usr/lib/chromium/chromium", "--load-extension=", "--headless", "--remote-debugging-port=9222", "about:blank"], False),  # another value
        (["/usr/lib/chromium/chromium", "--load-extension=", "--headless", "--remote-debugging-port=0", "chrome://version"], False),  # another URL
        (["/usr/bin/python3", "--load-extension=", "--headless", "--remote-debugging-port=0", "about:blank"], False),  # another program
        ([], False),
    ],
)
def test_a_process_is_the_browser_only_when_its_command_line_is_the_one_cdp_reports(started: list[str], same: bool) -> None:
    assert same_process(DEBIAN_REPORTED, started) is same


def test_the_first_program_of_each_name_on_the_path_must_be_missing_or_veritys_stub(tmp_path: Path) -> None:
    stubs = install_handler_stubs(tmp_path / "profile")
    logging = LoggingHandlers(tmp_path / "logging")
    empty = tmp_path / "empty"
    empty.mkdir()
    root = Path("/")
    # Expected: nothing found on an empty directory; our stubs first hide whatever follows them;
    # the logging programs found first are named, each by the path the process would run.
    assert openers_on_path(str(empty), root, root) == []
    assert openers_on_path(f"{stubs}:{logging.directory}", root, root) == []
    assert openers_on_path(f"{empty}:{logging.directory}:{stubs}", root, root) == [str(logging.directory / p) for p in LOGGED_PROGRAMS]
    # A stub of ours edited, or copied elsewhere, is not ours: it names another log or runs something else.
    (stubs / "xdg-open").write_text((stubs / "xdg-open").read_text() + "xdg-open-real \"$@\"\n")
    assert openers_on_path(f"{stubs}:{empty}", root, root) == [str(stubs / "xdg-open")]
    # Relative entries are the process's working directory's; no PATH at all is execvp's default.
    assert openers_on_path("logging", root, tmp_path) == [f"logging/{p}" for p in LOGGED_PROGRAMS]
    assert openers_on_path(None, root / "nonexistent", root) == []


def test_a_process_that_cannot_be_read_or_is_another_is_refused() -> None:
    # Expected: this test's own process is not a Chromium, and pid 0 is not a process at all.
    mine = Path("/proc/self/cmdline").read_bytes().decode().split("\0")[:-1]
    assert "not the browser CDP describes" in (process_problem(os.getpid(), DEBIAN_REPORTED) or "")
    assert "not one this machine can read" in (process_problem(0, DEBIAN_REPORTED) or "")
    # The same process, described as it is: judged by the PATH it was started with (/proc's environ,
    # not os.environ: an xdist worker of the fresh clone started with none, and execvp then searches
    # its default), and names the xdg-open found there.
    started_with = dict(entry.split("=", 1) for entry in Path("/proc/self/environ").read_text().split("\0") if "=" in entry)
    found = shutil.which("xdg-open", path=started_with.get("PATH", DEFAULT_PATH))
    problem = process_problem(os.getpid(), mine)
    assert (problem is None) if found is None else (problem is not None and f"its PATH holds {found}" in problem), problem
    # A process whose files are another mount namespace's (a container, a snap): its PATH proves
    # nothing here, whatever it holds. unshare (root, as the DNS scenarios) execs sleep in a new one.
    other = subprocess.Popen(["unshare", "--mount", "--", "sleep", "60"], env={**os.environ, "PATH": "/nonexistent:/usr/bin:/bin"})
    try:
        deadline = time.monotonic() + CALL_CEILING_SECONDS
        while Path(f"/proc/{other.pid}/cmdline").read_bytes() != b"sleep\x0060\x00":
            assert other.poll() is None and time.monotonic() < deadline, "unshare --mount did not start sleep (it needs root)"
            time.sleep(0.01)  # until unshare has exec'd; nothing to wait on but the process
        assert "another mount namespace" in (process_problem(other.pid, ["sleep", "60"]) or ""), process_problem(other.pid, ["sleep", "60"])
    finally:
        other.kill()
        other.wait()
