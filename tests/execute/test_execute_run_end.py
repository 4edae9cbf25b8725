"""Binds features/execute_run_end.feature: what is true of a `verity run` when its final verdict is
on the event stream (`--json`), read from a real subprocess driving Chromium on a loopback site."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import scenarios, then, when

from runtime.browser.launch.chromium_start import LaunchOptions, find_chromium
from runtime.browser.launch.starting import launch_browser
from runtime.demo import DEMO_RECIPE, DemoSite
from tests.fixtures.site_server import FixtureSite

scenarios("execute_run_end.feature")

STARTED = re.compile(r"started Chromium: pid (\d+), profile (\S+)")


@dataclass
class AtVerdict:
    """What was seen the moment the final_verdict line was read, before the command exited."""

    verdict: dict[str, Any]
    chromium_cmdline: str | None  # None: no such process
    pid: str
    profile: Path
    profile_exists: bool
    run_files: set[str]
    code: int
    stderr: str


@pytest.fixture
def own_tmpdir() -> Iterator[Path]:
    # Short on purpose: Chromium's singleton socket lives under TMPDIR and must fit a socket path.
    path = Path(tempfile.mkdtemp(prefix="vre-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@when('I run "verity run --json" on the demo recipe with debug logging and stop reading at its final verdict', target_fixture="seen")
def run_until_verdict(demo_site: DemoSite, tmp_path: Path, own_tmpdir: Path) -> AtVerdict:
    run_dir = tmp_path / "run"
    log = tmp_path / "stderr.log"
    command = [
        sys.executable, "-m", "runtime.cli.main", "run", str(DEMO_RECIPE), "-i", f"site={demo_site.quote_base}",
        "-i", f"search_site={demo_site.search_base}", "--out", str(run_dir), "--json", "--log-level", "DEBUG",
    ]
    with open(log, "w", encoding="utf-8") as errors:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True, cwd=tmp_path, env={**os.environ, "TMPDIR": str(own_tmpdir)})
        try:
            assert process.stdout is not None
            verdict: dict[str, Any] | None = None
            for line in process.stdout:
                event = json.loads(line)
                if event["kind"] == "final_verdict":
                    verdict = event["payload"]
                    break
            # Everything below is looked at before the command is let go on (its stdout unread).
            started = STARTED.findall(log.read_text(encoding="utf-8"))
            assert verdict is not None, f"no final_verdict on the stream:\n{log.read_text(encoding='utf-8')[-3000:]}"
            assert len(started) == 1, f"expected one Chromium started, the log shows {started}"
            pid, profile = started[0]
            try:
                cmdline: str | None = Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace")
            except OSError:
                cmdline = None
            seen_files = {p.name for p in run_dir.iterdir()} if run_dir.is_dir() else set()
            profile_exists = Path(profile).exists()
            process.stdout.read()
            code = process.wait(timeout=90)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    return AtVerdict(verdict, cmdline, pid, Path(profile), profile_exists, seen_files, code, log.read_text(encoding="utf-8"))


@then("the final verdict says completed")
def completed(seen: AtVerdict) -> None:
    assert seen.verdict["status"] == "completed" and seen.code == 0, (seen.verdict, seen.code, seen.stderr[-3000:])


@then("when the final verdict was read, the Chromium the command started had exited")
def chromium_exited(seen: AtVerdict) -> None:
    # A pid reused by another process would not name our profile in its arguments.
    still_ours = seen.chromium_cmdline is not None and str(seen.profile) in seen.chromium_cmdline
    assert not still_ours, f"Chromium {seen.pid} still ran with profile {seen.profile} when the verdict was announced"


@then("when the final verdict was read, its profile directory was removed")
def profile_removed(seen: AtVerdict) -> None:
    assert not seen.profile_exists, f"{seen.profile} still existed when the verdict was announced"


@then("when the final verdict was read, report.html and verdict.json were in the run directory")
def run_files_written(seen: AtVerdict) -> None:
    missing = {"report.html", "verdict.json"} - seen.run_files
    assert not missing, f"not yet written when the verdict was announced: {sorted(missing)} (there: {sorted(seen.run_files)})"


@dataclass
class Closed:
    exit_code: int | None
    profile: Path  # the named profile, or the directory the launch made its own profile in
    # Where the browser's singleton socket lived while it ran (a temporary directory of Chromium's).
    singleton: Path | None = None


def _launch_open_close(options: LaunchOptions, url: str, profiles: Path) -> tuple[int | None, Path | None]:
    """Launch, open `url` in a context of its own, close (the desktop Chromium: the headless
    shell keeps no singleton socket and no "Local State"); the Chromium's exit status and the
    directory its singleton socket was in (found through the SingletonSocket link of the one
    profile under `profiles`)."""

    async def go() -> tuple[int | None, Path | None]:
        browser = await launch_browser(options)
        singleton = None
        try:
            context = await browser.create_context()
            page = await context.newPage()
            await page.goto(url)
            links = sorted(profiles.glob("**/SingletonSocket"))
            singleton = Path(os.readlink(links[0])).parent if links else None
        finally:
            await browser.close()
        return browser.exit_code, singleton

    return asyncio.run(go())


@when("a desktop Chromium launched in a profile of its own opens a page and is closed", target_fixture="closed")
def own_profile_closed(site: FixtureSite, own_tmpdir: Path) -> Closed:
    profiles = own_tmpdir / "profiles"
    code, singleton = _launch_open_close(LaunchOptions(executable_path=find_chromium(headless=False), profiles_dir=profiles), site.url("/article.html"), profiles)
    return Closed(code, profiles, singleton)


@when("a desktop Chromium launched in a named profile directory opens a page and is closed", target_fixture="closed")
def named_profile_closed(site: FixtureSite, own_tmpdir: Path) -> Closed:
    named = own_tmpdir / "named-profile"
    named.mkdir()
    code, _ = _launch_open_close(LaunchOptions(executable_path=find_chromium(headless=False), user_data_dir=str(named)), site.url("/article.html"), named)
    return Closed(code, named)


@then("its process was ended by SIGKILL")
def killed(closed: Closed) -> None:
    assert closed.exit_code == -signal.SIGKILL, f"exit status {closed.exit_code}"


@then("its profile directory is gone")
def own_profile_gone(closed: Closed) -> None:
    assert closed.profile.is_dir(), "the launch made no profiles directory: nothing was checked"
    left = sorted(p.name for p in closed.profile.iterdir())
    assert left == [], f"profiles left behind: {left}"


@then("the temporary directory its singleton socket was in is gone")
def singleton_gone(closed: Closed) -> None:
    assert closed.singleton is not None, "the profile had no SingletonSocket link while it ran: nothing was checked"
    assert not closed.singleton.exists(), f"{closed.singleton} was left behind: {sorted(p.name for p in closed.singleton.iterdir())}"


@then("its process exited with status 0")
def exited_cleanly(closed: Closed) -> None:
    assert closed.exit_code == 0, f"exit status {closed.exit_code}"


@then("the named profile directory holds Chromium's \"Local State\"")
def profile_kept(closed: Closed) -> None:
    assert (closed.profile / "Local State").is_file(), sorted(p.name for p in closed.profile.iterdir())
