"""Bindings of features/service_browser.feature: `verity serve` processes and their real Chromium."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.fixtures.external_chromium import RestartableChromium
from tests.service.run_steps import *  # noqa: F403 - the shared real-run steps
from tests.service.run_steps import serve_args, start_and_watch

from runtime.browser import find_chromium
from runtime.browser.launch.chromium_process import PROFILE_PREFIX, ChromiumProfile, process_start_ticks, reap_stale_profiles

scenarios("service_browser.feature")

# Ceilings for a loaded machine, never expected durations.
CHROMIUM_START_CEILING = 30.0
PROCESS_EXIT_CEILING = 60.0
SECRETS = {"VERITY_TOKEN": "tok-6f1d2e0c9b", "GEMINI_API_KEY": "gem-key-8a7b6c", "GOOGLE_API_KEY": "goog-key-5d4e3f"}


def _profiles_dir(tmp_path: Path) -> Path:
    """Where the `verity serve` of serve_args keeps its Chromium profiles: beside its store."""
    return tmp_path / "proc" / "chromium-profiles"


def _chromium_processes(profiles: Path) -> dict[int, list[str]]:
    """Live processes whose command line names a profile under `profiles`: pid -> arguments."""
    marker = f"--user-data-dir={profiles}{os.sep}"
    found: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            arguments = [a.decode(errors="replace") for a in (entry / "cmdline").read_bytes().split(b"\0") if a]
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and any(a.startswith(marker) for a in arguments):
            found[int(entry.name)] = arguments
    return found


def _browser_process(profiles: Path) -> int:
    """The pid of the server's Chromium browser process (the one that is not a helper)."""
    deadline = time.monotonic() + CHROMIUM_START_CEILING
    while True:
        main = [pid for pid, args in _chromium_processes(profiles).items() if not any(a.startswith("--type=") for a in args)]
        if main:
            return main[0]
        assert time.monotonic() < deadline, "the server has no Chromium"
        time.sleep(0.05)


def _wait_gone(pids: set[int]) -> None:
    deadline = time.monotonic() + PROCESS_EXIT_CEILING
    while pids & set(_alive(pids)):
        assert time.monotonic() < deadline, f"still running: {sorted(_alive(pids))}"
        time.sleep(0.1)


def _alive(pids: set[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.append(pid)
    return alive


@when("the server's Chromium is killed")
def _kill_chromium(tmp_path: Path) -> None:
    os.kill(_browser_process(_profiles_dir(tmp_path)), signal.SIGKILL)


# --- a Chromium that can be switched off ---------------------------------------------------------


@given("a verity serve process whose Chromium can be switched off", target_fixture="target")
def _switchable_server(serve_processes: Any, tmp_path: Path, recipes_dir: Path, context: dict[str, Any]) -> str:
    switch = tmp_path / "chromium-on"
    switch.touch()
    launcher = tmp_path / "switchable-chromium"
    # Chromium gets a scrubbed environment, so the switch is a file the script names itself.
    launcher.write_text(f'#!/bin/sh\n[ -e "{switch}" ] || exit 1\nexec "{find_chromium()}" "$@"\n')
    launcher.chmod(0o755)
    context["switch"] = switch
    context["process"] = process = serve_processes(*serve_args(tmp_path, recipes_dir), env={"VERITY_CHROME": str(launcher)})
    return process.target


@when("Chromium is switched off and the server's Chromium is killed")
def _switch_off(tmp_path: Path, context: dict[str, Any]) -> None:
    context["switch"].unlink()
    _kill_chromium(tmp_path)


@when("Chromium is switched on again")
def _switch_on(context: dict[str, Any]) -> None:
    context["switch"].touch()


# --- a Chromium the server attaches to -----------------------------------------------------------


@pytest.fixture
def external_chromium(tmp_path: Path) -> Iterator[RestartableChromium]:
    chromium = RestartableChromium(tmp_path / "external")
    yield chromium
    chromium.kill()


@given("a Chromium listening for DevTools on a fixed loopback port")
def _external(external_chromium: RestartableChromium, context: dict[str, Any]) -> None:
    context["ws_endpoint"] = external_chromium.start()


@given(
    parsers.parse("a verity serve process attached to it with --browser-ws, retrying a lost one at most every {seconds:d} second"),
    target_fixture="target",
)
def _attached_server(serve_processes: Any, tmp_path: Path, recipes_dir: Path, context: dict[str, Any], seconds: int) -> str:
    retry = ("--browser-retry-max-seconds", str(seconds))
    context["process"] = process = serve_processes(*serve_args(tmp_path, recipes_dir, "--browser-ws", context["ws_endpoint"], *retry))
    return process.target


@when("that Chromium is killed")
def _kill_external(external_chromium: RestartableChromium) -> None:
    external_chromium.kill()


@when("a Chromium listens on that port again")
def _restart_external(external_chromium: RestartableChromium, context: dict[str, Any]) -> None:
    assert external_chromium.start() != context["ws_endpoint"]  # a new browser id at the same address


# --- a killed server ------------------------------------------------------------------------------


@when("the server process alone is killed with SIGKILL")
def _kill_server_alone(tmp_path: Path, context: dict[str, Any]) -> None:
    profiles = _profiles_dir(tmp_path)
    _browser_process(profiles)  # the run has its browser
    context["chromium_pids"] = set(_chromium_processes(profiles))
    context["profiles"] = {p for p in profiles.iterdir() if p.is_dir()}
    process = context["process"]
    process.process.send_signal(signal.SIGKILL)  # not its process group: Chromium must follow by itself
    process.wait(30)


@then("no Chromium process of the killed server is left")
def _no_orphans(context: dict[str, Any]) -> None:
    _wait_gone(context["chromium_pids"])


@then("the killed server's Chromium profile is gone")
def _profile_gone(context: dict[str, Any]) -> None:
    assert context["profiles"]
    assert not [p for p in context["profiles"] if p.exists()]


# --- the environment -------------------------------------------------------------------------------


@given("a verity serve process with a token, a Gemini key and a Google key in its environment", target_fixture="target")
def _server_with_secrets(serve_processes: Any, tmp_path: Path, recipes_dir: Path, context: dict[str, Any]) -> str:
    context["token"] = SECRETS["VERITY_TOKEN"]
    context["process"] = process = serve_processes(*serve_args(tmp_path, recipes_dir), env=SECRETS)
    return process.target


@then("no process of the server's Chromium holds the token or a key in its environment")
def _scrubbed(tmp_path: Path) -> None:
    profiles = _profiles_dir(tmp_path)
    _browser_process(profiles)
    checked = 0
    for pid in _chromium_processes(profiles):
        try:
            environment = Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")
        except OSError:
            continue
        checked += 1
        variables = dict(entry.partition("=")[::2] for entry in environment.split("\0") if entry)
        for name, value in SECRETS.items():
            assert value not in environment, f"Chromium {pid} holds our {name}"
        # Debian's chromium wrapper exports its own GOOGLE_API_KEY (/etc/chromium.d/apikeys); ours never gets there.
        assert "VERITY_TOKEN" not in variables and "GEMINI_API_KEY" not in variables, sorted(variables)
    assert checked



@when(parsers.parse('a client starts "{name}" and waits until its first browser action is under way'))
def _start_and_wait_for_action(target: str, client_for: Any, site: Any, context: dict[str, Any], name: str) -> None:
    # A run opens its browser session on its first action, after its first step has started: a
    # Chromium killed before that is replaced before the run ever uses it. An action's start event
    # comes once the session is open on the one Chromium the server has, so the kill lands mid-run.
    start_and_watch(
        target, client_for, site, context, name,
        lambda events: any(e.HasField("tool_used") and e.tool_used.phase == "start" for e in events), "to its first browser action",
    )


# --- what a dead server left behind --------------------------------------------------------------


def _dead_owner() -> dict[str, object]:
    """The owner marker of a process that has exited: a pid no live process has with that start."""
    gone = subprocess.Popen(["true"])
    started = process_start_ticks(gone.pid)
    gone.wait()
    return {"owner_pid": gone.pid, "owner_start": started}


def _untied_chromium(profile: ChromiumProfile, owner: dict[str, object]) -> subprocess.Popen[bytes]:
    """Chromium in `profile`, not tied to us (as if started before parent-death signals), marked
    as owned by `owner`."""
    (profile.path / "verity-owner.json").write_text(json.dumps(owner))
    process = subprocess.Popen(
        [find_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-port=0", profile.flag, "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    deadline = time.monotonic() + CHROMIUM_START_CEILING
    while not (profile.path / "DevToolsActivePort").exists():
        assert process.poll() is None and time.monotonic() < deadline, "Chromium did not start"
        time.sleep(0.05)
    profile.record_browser(process)
    return process


@pytest.fixture
def untied_chromiums() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(30)


@given("a Chromium left running in the store's profile directory by a server that is gone")
def _orphan(tmp_path: Path, context: dict[str, Any], untied_chromiums: list[subprocess.Popen[bytes]]) -> None:
    profile = ChromiumProfile.create(_profiles_dir(tmp_path))
    untied_chromiums.append(process := _untied_chromium(profile, _dead_owner()))
    context["orphan"] = (profile, process.pid, set(_chromium_processes(_profiles_dir(tmp_path))))


@given("a Chromium running in the store's profile directory for a server that is alive")
def _owned(tmp_path: Path, context: dict[str, Any], untied_chromiums: list[subprocess.Popen[bytes]]) -> None:
    profile = ChromiumProfile.create(_profiles_dir(tmp_path))  # owned by this test process, which lives on
    untied_chromiums.append(process := _untied_chromium(profile, json.loads((profile.path / "verity-owner.json").read_text())))
    context["owned"] = (profile, process)


@when("verity serve is started on that store")
def _start_on_store(serve_processes: Any, tmp_path: Path, recipes_dir: Path, context: dict[str, Any]) -> None:
    context["process"] = serve_processes(*serve_args(tmp_path, recipes_dir))


@then("the Chromium of the server that is gone is no longer running and its profile is removed")
def _orphan_reaped(context: dict[str, Any]) -> None:
    profile, _pid, pids = context["orphan"]
    _wait_gone(pids)
    assert not profile.path.exists()


@then("the Chromium of the live server still runs in its profile")
def _owned_untouched(context: dict[str, Any]) -> None:
    profile, process = context["owned"]
    assert process.poll() is None and profile.path.is_dir()


# --- a profile being made, beside a reaper -----------------------------------------------------


@when("a Chromium profile is made while another process reaps the same directory at the worst moment", target_fixture="made")
def _made_beside_a_reaper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    parent = tmp_path / "profiles"
    reaped: list[list[Path]] = []
    write_owner = ChromiumProfile._write_owner

    def reap_first(profile: ChromiumProfile, data: dict[str, object]) -> None:
        # The worst moment: the profile's directory exists and its owner is not marked yet.
        reaped.append(reap_stale_profiles(parent))
        write_owner(profile, data)

    monkeypatch.setattr(ChromiumProfile, "_write_owner", reap_first)
    profile = ChromiumProfile.create(parent)
    monkeypatch.undo()
    return {"profile": profile, "reaped": reaped, "parent": parent}


@then("the reaper did not take the new profile for a dead one")
def _not_reaped(made: dict[str, Any]) -> None:
    assert len(made["reaped"]) == 1, "the reaper never ran: nothing was checked"
    assert made["reaped"] == [[]], f"the reaper removed {made['reaped']}"


@then("the new profile is in place with its owner marked")
def _in_place(made: dict[str, Any]) -> None:
    profile: ChromiumProfile = made["profile"]
    assert profile.path.is_dir() and profile.path.name.startswith(PROFILE_PREFIX), profile.path
    assert profile.owner_alive(), sorted(p.name for p in profile.path.iterdir())
    assert [p.name for p in made["parent"].iterdir()] == [profile.path.name]
