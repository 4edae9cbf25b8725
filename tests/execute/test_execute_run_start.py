"""Binds features/execute_run_start.feature: `verity run` starts Chromium first and imports only
what a run needs, as real subprocesses (Chromium on loopback pages)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pytest_bdd import parsers, scenarios, then, when

from runtime.browser.chromium_process import PROFILE_PREFIX
from runtime.demo import DEMO_RECIPE, DemoSite
from tests.execute.conftest import RECIPES

scenarios("execute_run_start.feature")

VERITY = [sys.executable, "-m", "runtime.cli.main"]
STARTED = re.compile(r"started Chromium: pid (\d+), profile (\S+)")


@dataclass
class Command:
    code: int
    stderr: str
    temporary: Path


@pytest.fixture
def temporary() -> Iterator[Path]:
    """A short temporary directory of the command's own. Chromium puts its singleton socket
    under TMPDIR and exits (code 21) when that path is longer than a socket path may be, as
    pytest's tmp_path is."""
    path = Path(tempfile.mkdtemp(prefix="vrs-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _verity_run(args: list[str], tmp_path: Path, temporary: Path) -> Command:
    # The browser's profile goes to the system's temporary directory: a directory of its own
    # shows exactly what this command left there.
    env = {**os.environ, "TMPDIR": str(temporary)}
    done = subprocess.run(
        [*VERITY, "run", *args, "--out", str(tmp_path / "run"), "--log-level", "DEBUG"],
        capture_output=True, text=True, timeout=90, cwd=tmp_path, env=env,
    )
    return Command(done.returncode, done.stderr, temporary)


@when('I run "verity run" on the demo recipe with debug logging and a temporary directory of its own', target_fixture="command")
def run_demo(demo_site: DemoSite, tmp_path: Path, temporary: Path) -> Command:
    return _verity_run([str(DEMO_RECIPE), "-i", f"site={demo_site.quote_base}", "-i", f"search_site={demo_site.search_base}"], tmp_path, temporary)


@when('I run "verity run" on the broken recipe with debug logging and a temporary directory of its own', target_fixture="command")
def run_broken(tmp_path: Path, temporary: Path) -> Command:
    return _verity_run([str(RECIPES / "broken.yaml")], tmp_path, temporary)


@then(parsers.parse("the command exits {code:d}"))
def exits(command: Command, code: int) -> None:
    assert command.code == code, command.stderr[-3000:]


@then("the command started exactly one Chromium")
def one_chromium(command: Command) -> None:
    started = STARTED.findall(command.stderr)
    assert len(started) == 1, f"expected one Chromium started, the log shows {len(started)}: {started}\n{command.stderr[-3000:]}"
    assert Path(started[0][1]).parent == command.temporary, started


@then("that Chromium is no longer running")
def chromium_gone(command: Command) -> None:
    pid, profile = STARTED.findall(command.stderr)[0]
    try:
        arguments = Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace")
    except OSError:
        return  # no such process
    # The pid may have been reused by an unrelated process; ours would name its profile.
    assert profile not in arguments, f"Chromium {pid} still runs with profile {profile}"


@then("no Chromium profile is left in the temporary directory")
def no_profile(command: Command) -> None:
    left = sorted(p.name for p in command.temporary.iterdir() if p.name.startswith(PROFILE_PREFIX))
    assert left == [], f"profiles left behind: {left}"


@when(parsers.parse('a fresh interpreter imports what "verity run" loads before its run starts'), target_fixture="modules")
def modules_of_run_command() -> set[str]:
    # The command's own module, then the executor it hands the run to (runtime.execute.cli),
    # imported as `verity run` imports them: through the CLI's parser for the run command.
    script = (
        "import json, sys\n"
        "from runtime.cli.main import build_parser\n"
        "build_parser(['run'])\n"
        "import runtime.execute.cli\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    return set(json.loads(done.stdout))


@then(parsers.parse('none of {names} is among its modules'))
def none_imported(modules: set[str], names: str) -> None:
    wanted = [name.strip().strip('"') for name in names.split(",")]
    loaded = sorted(m for m in modules for name in wanted if m == name or m.startswith(name + "."))
    assert loaded == [], f"imported before the run starts: {loaded}"


@then(parsers.parse('"{name}" is among its modules'))
def imported(modules: set[str], name: str) -> None:
    assert name in modules, f"{name} was not imported: the check would pass for the wrong reason"
