"""Binds features/execute_cli.feature: `verity run` / `verity demo` as real subprocesses."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pytest_bdd import parsers, scenarios, then, when

from runtime.demo import DEMO_RECIPE, DemoSite
from tests.execute.conftest import RECIPES, span_tree
from tests.fixtures.one_page_site import OnePageSite
from tests.fixtures.site_server import FixtureSite

scenarios("execute_cli.feature")

VERITY = [sys.executable, "-m", "runtime.cli.main"]


@dataclass
class Command:
    code: int
    stdout: str
    stderr: str
    seconds: float
    run_dir: Path


def verity(args: list[str], run_dir: Path, timeout: float = 60, env: dict[str, str] | None = None) -> Command:
    started = time.monotonic()
    done = subprocess.run([*VERITY, *args], capture_output=True, text=True, timeout=timeout, cwd=run_dir.parent, env=env)
    return Command(done.returncode, done.stdout, done.stderr, time.monotonic() - started, run_dir)


@when('I run "verity run" on the demo recipe with --json', target_fixture="command")
def run_demo_json(demo_site: DemoSite, tmp_path: Path) -> Command:
    out = tmp_path / "run"
    return verity(["run", str(DEMO_RECIPE), "--input", f"site={demo_site.quote_base}", "-i", f"search_site={demo_site.search_base}", "--out", str(out), "--json"], out)


@when(
    parsers.parse('I run "verity run" on the demo recipe with its site given as @env:{variable} and the label {label}'), target_fixture="command"
)
def run_demo_with_secret_site(demo_site: DemoSite, tmp_path: Path, variable: str, label: str) -> Command:
    out = tmp_path / "run"
    args = ["run", str(DEMO_RECIPE), "--input", f"site=@env:{variable}", "-i", f"search_site={demo_site.search_base}", "--label", label, "--out", str(out)]
    return verity(args, out, env={**os.environ, variable: demo_site.quote_base})


@then("order.json holds the run's id and directory, the label and the plan plans.json holds")
def order_kept(command: Command) -> None:
    order = json.loads((command.run_dir / "order.json").read_text(encoding="utf-8"))
    verdict = json.loads((command.run_dir / "verdict.json").read_text(encoding="utf-8"))
    plans = json.loads((command.run_dir / "plans.json").read_text(encoding="utf-8"))
    assert order["run_id"] == verdict["run_id"] and order["run_dir"] == str(command.run_dir), order
    assert order["labels"] == {"team": "quotes"}, order["labels"]
    assert order["plan"] == plans["plan"] and order["plan"]["recipe"]["name"] == "demo-quote"
    assert order["session"] == {"storage_state": None, "save_storage_state": None}, order["session"]


@then("order.json shows site as its marker, names it secret and holds its value nowhere")
def order_secret(command: Command, demo_site: DemoSite) -> None:
    text = (command.run_dir / "order.json").read_text(encoding="utf-8")
    order = json.loads(text)
    assert order["inputs"] == {"metal": "gold", "site": "«secret:site»", "search_site": demo_site.search_base}, order["inputs"]
    assert order["secret_inputs"] == ["site"], order["secret_inputs"]
    assert demo_site.quote_base not in text


@when(parsers.parse('I run "verity run" on "{name}" against the quote site'), target_fixture="command")
def run_recipe(demo_site: DemoSite, tmp_path: Path, name: str) -> Command:
    out = tmp_path / "run"
    return verity(["run", str(RECIPES / f"{name}.yaml"), "--input", f"site={demo_site.quote_base}", "--out", str(out)], out)


@when('I run "verity run" on the broken recipe', target_fixture="command")
def run_broken(tmp_path: Path) -> Command:
    out = tmp_path / "run"
    return verity(["run", str(RECIPES / "broken.yaml"), "--out", str(out)], out)


@when(parsers.parse('I run "verity run" on "{name}" and press Ctrl-C while the page loads'), target_fixture="command")
def run_and_interrupt(fixture_site: FixtureSite, tmp_path: Path, name: str) -> Command:
    out = tmp_path / "run"
    started = time.monotonic()
    hangs_before = fixture_site.hanging.count
    process = subprocess.Popen(
        [*VERITY, "run", str(RECIPES / f"{name}.yaml"), "-i", f"site={fixture_site.base_url}", "--out", str(out), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
    )
    assert process.stdout is not None
    for line in process.stdout:  # wait until the page load is under way
        event = json.loads(line)
        if event["kind"] == "tool_used" and event["payload"]["tool"] == "open_url":
            break
    # The navigation reached the hanging server: Ctrl-C comes while the page loads.
    assert fixture_site.hanging.wait_beyond(hangs_before, timeout=30)
    process.send_signal(signal.SIGINT)
    rest, stderr = process.communicate(timeout=30)
    return Command(process.returncode, rest, stderr, time.monotonic() - started, out)


@when('I run "verity demo"', target_fixture="command")
def run_demo_command(tmp_path: Path) -> Command:
    out = tmp_path / "demo"
    return verity(["demo", "--out", str(out)], out)


@then(parsers.parse("the command exits {code:d}"))
def exits(command: Command, code: int) -> None:
    assert command.code == code, (command.stdout[-2000:], command.stderr[-2000:])
    assert "Traceback" not in command.stderr


@then(parsers.parse('every output line is a JSON event and the last one is the final verdict "{status}"'))
def json_lines(command: Command, status: str) -> None:
    events = [json.loads(line) for line in command.stdout.splitlines()]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["kind"] == "final_verdict" and events[-1]["payload"]["status"] == status
    assert {"step_finished", "replan", "structured_output", "artifact"} <= {e["kind"] for e in events}


@then("the run directory holds every telemetry file")
def telemetry_files(command: Command) -> None:
    for name in ("events.jsonl", "plans.json", "executions.json", "output.json", "verdict.json"):
        assert (command.run_dir / name).is_file(), name
    assert list((command.run_dir / "artifacts" / "screenshot").glob("*.png"))
    lines = (command.run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines == command.stdout.splitlines()


@then(parsers.parse('the progress shows the "{state_id}" step "{outcome}"'))
def progress_line(command: Command, state_id: str, outcome: str) -> None:
    line = next(line for line in command.stdout.splitlines() if line[3:].startswith(state_id + " "))
    assert line.split()[2] == outcome, line
    assert "verdict: error (verification_failed, exit 10)" in command.stdout


@then(parsers.parse('the errors name "{first}" and "{second}"'))
def errors_named(command: Command, first: str, second: str) -> None:
    lines = command.stderr.splitlines()
    assert any(first in line and "did you mean 'timeout_ms'" in line for line in lines), command.stderr
    assert any(second in line for line in lines), command.stderr


@then("nothing was run")
def nothing_run(command: Command) -> None:
    assert not command.run_dir.exists()


@then("the run directory records a manual_stop verdict")
def manual_stop_recorded(command: Command) -> None:
    verdict = json.loads((command.run_dir / "verdict.json").read_text(encoding="utf-8"))
    assert verdict["stop_reason"] == "manual_stop" and verdict["status"] == "stopped"
    last = json.loads((command.run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert last["kind"] == "final_verdict"


@then("it printed the completed verdict, the output and the run directory")
def demo_printed(command: Command) -> None:
    assert "verdict: completed (completed, exit 0)" in command.stdout
    assert '"price": 2345.6' in command.stdout
    assert f"run dir: {command.run_dir}" in command.stdout
    assert "page_not_found" in command.stdout and "followed" in command.stdout


@then("its trace.jsonl is one tree of spans rooted at the run's invoke_agent span, one child per executed state")
def demo_trace(command: Command) -> None:
    assert f"trace:   {command.run_dir / 'trace.jsonl'}" in command.stdout
    spans = span_tree(command.run_dir)
    root = spans[-1]
    assert root.name == "invoke_agent demo-quote" and root.attributes["verity.stop_reason"] == "completed"
    states = [s for s in spans if s.parent_span_id == root.span_id]
    executed = json.loads((command.run_dir / "verdict.json").read_text(encoding="utf-8"))["executed_states"]
    assert len(states) == executed and all(s.name.startswith("verity.state ") for s in states)
    assert {s.attributes["verity.state.kind"] for s in states} >= {"navigate", "replan.search", "extract", "verify"}


LONG_TEXT_RECIPE = """\
name: long-text
version: "1"
goal: read the long text
inputs:
  site: {type: string}
target:
  start_url: "{site}/long.html"
  allowed_domains: ["127.0.0.1"]
plan:
  - id: open
    navigate: "{start_url}"
  - id: read
    extract:
      fields:
        text: {css: "#long"}
  - id: check
    verify:
      - field_present: text
  - id: done
    close: {summary: read the long text}
"""


LONG_PAGE = '<!doctype html><title>Long</title><p id="long">{}</p>'


@pytest.fixture
def long_page() -> Iterator[OnePageSite]:
    with OnePageSite("/long.html") as site:
        yield site


@when(parsers.parse('I run "verity run" on a recipe that extracts a {size:d} character text from a loopback page'), target_fixture="command")
def run_long_text(tmp_path: Path, long_page: OnePageSite, size: int) -> Command:
    words = " ".join(f"w{n:06d}" for n in range(size // 8))
    long_page.html = LONG_PAGE.format(words + "x" * (size - len(words)))
    (tmp_path / "long-text.yaml").write_text(LONG_TEXT_RECIPE, encoding="utf-8")
    out = tmp_path / "run"
    return verity(["run", str(tmp_path / "long-text.yaml"), "-i", f"site=http://127.0.0.1:{long_page.port}", "--out", str(out)], out, timeout=180)


def _printed(stdout: str, label: str) -> str:
    """What the closing line `label` printed, its continuation lines unindented."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(label))
    block = [lines[start][len(label):]]
    for line in lines[start + 1:]:
        if not line.startswith(" " * len(label)):
            break
        block.append(line[len(label):])
    return "\n".join(block)


@then("the summary and the output lines each print 2000 characters of it, then how many were left out and the file that holds the whole")
def long_values_folded(command: Command) -> None:
    summary = json.loads((command.run_dir / "verdict.json").read_text(encoding="utf-8"))["summary"]
    output = (command.run_dir / "output.json").read_text(encoding="utf-8").strip()
    assert len(summary) > 20_000 and len(output) > 20_000
    for label, whole, holder in (("summary: ", summary, "verdict.json"), ("output:  ", output, "output.json")):
        notice = f"… {len(whole) - 2000:,} more characters not printed; the whole is in {command.run_dir / holder}"
        assert _printed(command.stdout, label).endswith(whole[:2000] + "\n" + notice), command.stdout[-3000:]
    assert len(command.stdout) < 8_000, len(command.stdout)


@then("output.json holds the whole text")
def output_whole(command: Command, long_page: OnePageSite) -> None:
    data = json.loads((command.run_dir / "output.json").read_text(encoding="utf-8"))["data"]
    assert LONG_PAGE.format(data["text"]) == long_page.html
