"""Binds features/cli_approvals.feature: `verity run` as a real subprocess against a loopback page,
its approvals answered by flags, on a real pseudo-terminal, or by nobody."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pytest_bdd import given, scenarios, then, when
from tests.fixtures.one_page_site import OnePageSite

from runtime.cli.approval_answers import ApprovalAnswers
from runtime.outcomes import StopReason

scenarios("cli_approvals.feature")

VERITY = [sys.executable, "-m", "runtime.cli.main"]
# A bound on waiting for the command, never a measure of its speed.
DEADLINE_SECONDS = 120.0

PAGE = "<html><head><title>Tide table</title></head><body><h1>High tide at 06:12</h1></body></html>"
RECIPE = """\
name: approval-twice
version: "1"
goal: read the tide table
inputs:
  site:
    type: string
target:
  start_url: "{site}/tides.html"
  allowed_domains: ["127.0.0.1"]
plan:
  - id: open
    navigate: "{start_url}"
    needs_approval: true
  - id: read
    needs_approval: true
    extract:
      fields:
        tide:
          css: "h1"
  - id: done
    close:
      summary: read the tide table
"""


@dataclass
class Finished:
    code: int
    stdout: str
    stderr: str
    run_dir: Path


@pytest.fixture
def tide_page() -> Iterator[OnePageSite]:
    with OnePageSite("/tides.html", PAGE) as site:
        yield site


@given("a loopback page and a recipe whose steps open and read both need approval", target_fixture="recipe_args")
def _recipe(tmp_path: Path, tide_page: OnePageSite) -> list[str]:
    recipe = tmp_path / "approval-twice.yaml"
    recipe.write_text(RECIPE, encoding="utf-8")
    return ["run", str(recipe), "-i", f"site=http://127.0.0.1:{tide_page.port}", "--out", str(tmp_path / "run")]


def _verdict(run_dir: Path) -> dict:
    return json.loads((run_dir / "verdict.json").read_text(encoding="utf-8"))


def _events(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


# --- no terminal ------------------------------------------------------------------------------------


@when('I run "verity run" on it with no terminal and no answer', target_fixture="finished")
def _no_terminal(recipe_args: list[str], tmp_path: Path) -> Finished:
    done = subprocess.run(
        [*VERITY, *recipe_args], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=DEADLINE_SECONDS, cwd=tmp_path
    )
    return Finished(done.returncode, done.stdout, done.stderr, tmp_path / "run")


@then("it exits with approval_denied's code, its message naming step open and the flags --approve open and --deny open")
def _denied_at_once(finished: Finished) -> None:
    assert finished.code == StopReason.APPROVAL_DENIED.exit_code, (finished.code, finished.stderr)
    message = next(line for line in finished.stderr.splitlines() if "needs approval" in line)
    assert "step open" in message and "no terminal" in message, message
    assert "--approve open" in message and "--deny open" in message, message


@then("the verdict's summary says the same, and the step open never ran")
def _verdict_says(finished: Finished) -> None:
    verdict = _verdict(finished.run_dir)
    assert verdict["stop_reason"] == "approval_denied", verdict
    assert "--approve open" in verdict["summary"], verdict["summary"]
    tools = [e["payload"]["tool"] for e in _events(finished.run_dir) if e["kind"] == "tool_used"]
    assert "open_url" not in tools, tools


# --- a terminal ---------------------------------------------------------------------------------------


@when('I run "verity run" on it with --approve open on a terminal and answer y when it asks', target_fixture="finished")
def _on_terminal(recipe_args: list[str], tmp_path: Path) -> Finished:
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [*VERITY, *recipe_args, "--approve", "open"], stdin=follower, stderr=follower, stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    os.close(follower)
    shown = b""
    deadline = time.monotonic() + DEADLINE_SECONDS
    try:
        # Wait for the question itself (on output, not on time), then answer it as a person would.
        while b"approve? [y/N]" not in shown:
            assert time.monotonic() < deadline and process.poll() is None, f"no question asked: {shown.decode(errors='replace')}"
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                shown += os.read(leader, 4096)
        os.write(leader, b"y\n")
        stdout, _ = process.communicate(timeout=DEADLINE_SECONDS)
        while select.select([leader], [], [], 0)[0]:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            shown += chunk
    finally:
        if process.poll() is None:
            process.kill()
        os.close(leader)
    return Finished(process.returncode, stdout, shown.decode(errors="replace"), tmp_path / "run")


@then("it asked once, about step read with its tool and target, and the run completed")
def _asked_once(finished: Finished) -> None:
    assert finished.code == 0, (finished.code, finished.stderr, finished.stdout)
    assert finished.stderr.count("approval needed:") == 1, finished.stderr
    question = finished.stderr[finished.stderr.index("approval needed:") :]
    assert question.startswith("approval needed: step read (tool browser_extract) on fields tide"), question
    assert _verdict(finished.run_dir)["stop_reason"] == "completed"


@then("every event asking for approval named its step")
def _requests_named(finished: Finished) -> None:
    requests = [e["payload"] for e in _events(finished.run_dir) if e["kind"] == "confirmation_requested"]
    assert [r["state_id"] for r in requests] == ["open", "read"], requests


# --- answers in advance -------------------------------------------------------------------------------

STEPS = ("open", "read", "done")


@given("the answers --approve open --deny all", target_fixture="answers")
def _answers() -> ApprovalAnswers:
    answers, problems = ApprovalAnswers.from_flags(["open"], ["all"], STEPS)
    assert problems == []
    return answers


@then("step open is approved, step read denied, and a step named by neither flag denied")
def _answered(answers: ApprovalAnswers) -> None:
    assert answers.answer_for("open") is True
    assert answers.answer_for("read") is False and answers.answer_for("done") is False
    assert ApprovalAnswers.from_flags(None, ["read"], STEPS)[0].answer_for("open") is None  # left to a person


@then("answers naming a step the plan lacks, or one step in both flags, are refused with the plan's step ids")
def _refused_answers(tmp_path: Path) -> None:
    _, unknown = ApprovalAnswers.from_flags(["opne"], None, STEPS)
    assert [p.path for p in unknown] == ["--approve"] and "'opne'" in unknown[0].message and "done, open, read" in unknown[0].message
    _, both = ApprovalAnswers.from_flags(["read"], ["read"], STEPS)
    assert len(both) == 1 and "both approved and denied" in both[0].message
