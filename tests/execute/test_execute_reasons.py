"""Binds features/execute_reasons.feature: a failed run's verdict says why, and a browser killed
during a step ends the run browser_crashed naming that step (real Chromium, loopback pages)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_bdd import parsers, scenarios, then, when

from runtime.browser import launch_browser
from runtime.events import ToolUsed
from runtime.execute import BrowserProvider
from runtime.outcomes import StopReason
from tests.execute.conftest import RECIPES, ExecRunner, wait_until
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.site_server import FixtureSite

scenarios("execute_reasons.feature")

VERITY = [sys.executable, "-m", "runtime.cli.main"]
# Ceilings for a loaded machine, never expected durations.
EVENT_CEILING_SECONDS = 60.0
EXIT_CEILING_SECONDS = 90.0


@pytest.fixture
def own_browser(loop_thread: LoopThread) -> Iterator[BrowserProvider]:
    """A Chromium of the test's own, which the test may kill."""
    browser = loop_thread.run(launch_browser())
    yield BrowserProvider(browser=browser)
    loop_thread.run(browser.close())


@pytest.fixture
def cli() -> dict:
    return {}


# --- in process ---------------------------------------------------------------------------------


@when(parsers.parse('I run "{name}" on the fixture site'))
def run_on_site(runner: ExecRunner, fixture_site: FixtureSite, name: str) -> None:
    runner.run(name, {"site": fixture_site.base_url})


@when(parsers.parse('I start "{name}" on a browser of its own'))
def start_on_own(runner: ExecRunner, fixture_site: FixtureSite, own_browser: BrowserProvider, name: str) -> None:
    runner.start(name, {"site": fixture_site.base_url}, provider=own_browser)


@when(parsers.parse('the run is in its "{action}" action'))
def in_action(runner: ExecRunner, action: str) -> None:
    record = runner.last

    def started() -> bool:
        uses = [t for t in record.payloads(ToolUsed) if t.tool == action]
        return bool(uses) and uses[-1].phase == "start"

    assert wait_until(started, timeout=EVENT_CEILING_SECONDS), [t.tool for t in record.payloads(ToolUsed)]


@when("that browser is killed with SIGKILL")
def kill_own(runner: ExecRunner, own_browser: BrowserProvider) -> None:
    pid = own_browser.browser.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    runner.wait(runner.last, timeout=EXIT_CEILING_SECONDS)


@then(parsers.parse('the verdict summary says "{text}"'))
def summary_says(runner: ExecRunner, text: str) -> None:
    assert text in runner.last.verdict.summary, runner.last.verdict.summary


@then("the verdict summary says how many elements matched")
def summary_counts(runner: ExecRunner) -> None:
    summary = runner.last.verdict.summary
    assert re.search(r"\b3\b[^;]*match", summary), summary  # the page has exactly three "Row" items


@then("verdict.json holds the same summary")
def verdict_file(runner: ExecRunner) -> None:
    written = json.loads((runner.last.run_dir / "verdict.json").read_text(encoding="utf-8"))
    assert written["summary"] == runner.last.verdict.summary
    assert "ambiguous_target" in written["summary"]


# --- through the CLI ----------------------------------------------------------------------------


@when(parsers.parse('"verity run" runs "{name}" on the fixture site'))
def cli_run(cli: dict, fixture_site: FixtureSite, tmp_path: Path, name: str) -> None:
    out = tmp_path / "run"
    done = subprocess.run(
        [*VERITY, "run", str(RECIPES / f"{name}.yaml"), "-i", f"site={fixture_site.base_url}", "--out", str(out)],
        capture_output=True, text=True, timeout=EXIT_CEILING_SECONDS, cwd=tmp_path,
    )
    cli.update(code=done.returncode, stdout=done.stdout, stderr=done.stderr)


@then(parsers.parse('its printed summary says "{text}"'))
def printed_summary(cli: dict, text: str) -> None:
    assert cli["code"] == StopReason.VERIFICATION_FAILED.exit_code, cli["stderr"][-2000:]
    summary = next(line for line in cli["stdout"].splitlines() if line.startswith("summary: "))
    assert text in summary, summary


@when(parsers.parse('"verity run" starts "{name}" on the fixture site'))
def cli_start(cli: dict, fixture_site: FixtureSite, tmp_path: Path, name: str) -> None:
    out = tmp_path / "run"
    cli["process"] = subprocess.Popen(
        [*VERITY, "run", str(RECIPES / f"{name}.yaml"), "-i", f"site={fixture_site.base_url}", "--out", str(out), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
    )
    cli["events"] = []


@pytest.fixture(autouse=True)
def _no_stray_cli(cli: dict) -> Iterator[None]:
    yield
    process = cli.get("process")
    if process is not None and process.poll() is None:
        process.kill()
        process.communicate(timeout=30)


@when(parsers.parse('its run is in its "{action}" action'))
def cli_in_action(cli: dict, action: str) -> None:
    process = cli["process"]
    assert process.stdout is not None
    for line in process.stdout:
        event = json.loads(line)
        cli["events"].append(event)
        if event["kind"] == "tool_used" and event["payload"]["tool"] == action and event["payload"]["phase"] == "start":
            return
    raise AssertionError(f"the run ended before its {action} action: {cli['events'][-3:]} {process.stderr.read() if process.stderr else ''}")


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid and stat[0] != "Z":
                found.append(int(entry.name))
    return found


def _cmdline(pid: int) -> list[str]:
    try:
        return [a.decode(errors="replace") for a in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") if a]
    except OSError:
        return []


@when("its Chromium is killed with SIGKILL")
def cli_kill_chromium(cli: dict) -> None:
    # The CLI's own Chromium: its child whose command line is Chromium's browser process (not a helper).
    browsers = [
        pid for pid in _children(cli["process"].pid)
        if any("remote-debugging" in a for a in _cmdline(pid)) and not any(a.startswith("--type=") for a in _cmdline(pid))
    ]
    assert len(browsers) == 1, [(pid, _cmdline(pid)[:3]) for pid in _children(cli["process"].pid)]
    os.kill(browsers[0], signal.SIGKILL)
    started = time.monotonic()
    rest, stderr = cli["process"].communicate(timeout=EXIT_CEILING_SECONDS)
    cli.update(code=cli["process"].returncode, stderr=stderr, seconds=time.monotonic() - started)
    cli["events"] += [json.loads(line) for line in rest.splitlines()]


@then(parsers.parse('it exits with the browser_crashed exit code and a final verdict naming "{text}"'))
def cli_crashed(cli: dict, text: str) -> None:
    assert cli["code"] == StopReason.BROWSER_CRASHED.exit_code, (cli["code"], cli["stderr"][-2000:])
    final = cli["events"][-1]
    assert final["kind"] == "final_verdict", final
    assert final["payload"]["stop_reason"] == "browser_crashed" and text in final["payload"]["summary"], final["payload"]
