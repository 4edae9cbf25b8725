"""Binds features/execute_agent_trace.feature: `verity run` of an agent recipe against the demo
site, with the scripted Gemini server on loopback as its model: the trace.jsonl it writes, and the
API key in none of its events, files or output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from pytest_bdd import parsers, scenarios, then, when

from runtime.demo import DemoSite
from tests.execute.agent_run_steps import *  # noqa: F403 - the scripted model and the run steps
from tests.execute.conftest import RECIPES, span_tree
from tests.fixtures.gemini_fixtures import FIXTURE_API_KEY
from tests.fixtures.gemini_server import GeminiServer

scenarios("execute_agent_trace.feature")


@when(parsers.parse('I run "verity run" on "{name}" against the demo site with the key in its environment'), target_fixture="command")
def run_cli(demo_site: DemoSite, gemini: GeminiServer, tmp_path: Path, name: str) -> dict[str, Any]:
    out = tmp_path / "run"
    args = ["run", str(RECIPES / f"{name}.yaml"), "-i", f"site={demo_site.quote_base}", "-i", f"search_site={demo_site.search_base}", "--out", str(out)]
    done = subprocess.run([sys.executable, "-m", "runtime.cli.main", *args], capture_output=True, text=True, timeout=60, cwd=tmp_path, env=dict(os.environ))
    assert not gemini.script_failures, gemini.script_failures
    return {"code": done.returncode, "stdout": done.stdout, "stderr": done.stderr, "run_dir": out}


@then("the command exits 0 and names its trace file")
def cli_ok(command: dict[str, Any]) -> None:
    assert command["code"] == 0, (command["stdout"][-2000:], command["stderr"][-2000:])
    assert f"trace:   {command['run_dir'] / 'trace.jsonl'}" in command["stdout"]


@then(parsers.parse('the trace is one tree of spans rooted at "{root}" with the trace id of the events'))
def trace_tree(command: dict[str, Any], root: str) -> None:
    spans = span_tree(command["run_dir"])
    assert spans[-1].name == root and spans[-1].status == "OK"
    executed = json.loads((command["run_dir"] / "verdict.json").read_text(encoding="utf-8"))["executed_states"]
    assert len([s for s in spans if s.name.startswith("verity.state ")]) == executed


@then(parsers.parse('the trace has {count:d} "{name}" spans under the span of state "{state_id}"'))
def turn_spans(command: dict[str, Any], count: int, name: str, state_id: str) -> None:
    spans = span_tree(command["run_dir"])
    [state] = [s for s in spans if s.attributes.get("verity.state.id") == state_id and s.name.startswith("verity.state ")]
    turns = sorted((s for s in spans if s.name == name), key=lambda s: s.attributes["verity.agent.turn"])
    assert len(turns) == count and all(t.parent_span_id == state.span_id for t in turns)
    assert [t.attributes["verity.agent.tool"] for t in turns] == ["browser_snapshot", "browser_click", "close"]
    # Each turn holds its model call and the tool call the model made.
    for turn in turns:
        inside = [s for s in spans if s.parent_span_id == turn.span_id]
        assert [s.name for s in inside] == ["chat gemini-fixture-flash", f"execute_tool {turn.attributes['verity.agent.tool']}"], inside


@then("the API key appears in no event, run file, trace or command output")
def key_nowhere(command: dict[str, Any], gemini: GeminiServer) -> None:
    key = FIXTURE_API_KEY.encode()
    assert gemini.requests and all(r.headers["x-goog-api-key"] == FIXTURE_API_KEY for r in gemini.requests)
    files = [p for p in command["run_dir"].rglob("*") if p.is_file()]
    assert {"events.jsonl", "trace.jsonl", "executions.json", "verdict.json", "plans.json", "output.json"} <= {p.name for p in files}
    for path in files:
        assert key not in path.read_bytes(), f"the API key leaked into {path}"
    assert FIXTURE_API_KEY not in command["stdout"] + command["stderr"]
