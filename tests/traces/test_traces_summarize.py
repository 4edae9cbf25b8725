"""Binds features/traces_summarize.feature: `verity trace summarize` as a real subprocess, on the
committed fixture traces (tests/traces/trace_fixtures.py) and on a real demo run's trace.jsonl.

The expected figures are worked out here by hand from the runs the fixture builder describes:

    run  stop reason          verified  replans repairs model-retries blocked tokens(in+out)  label            states (ms)
    r1   completed            yes       1       0       0       0       0               completed        navigate 100, validate 5 (page_not_found), evaluate 2 (page_not_found), replan 300, extract 40, verify 10
    r2   verification_failed  no        0       2       2       3       1000+200        verification_failed  navigate 200, agent 1500, repair 300 (2 attempts), verify 20
    r3   completed            yes       0       0       1       0       500+100         page_not_found   navigate 50, agent 900, verify 30
    r4   replans_exhausted    no        2       0       0       1       0               completed        navigate 120, validate 4 (page_not_found), replan 400, replan 600; last blocker page_not_found
    r5   no_progress          no        0       0       4       0       2000+300        -                navigate 80, act 60, act 70 (served: under a client's and a server's span)
    r6   completed            yes       3       0       0       5       0               completed        navigate 90, validate 6 (access_denied), replan 350, extract 25, verify 15

Nearest rank: P of n sorted values is the value at rank ceil(P/100 * n).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.trace_export import request_from_line
from runtime.trace_analysis import nearest_rank
from tests.traces.trace_fixtures import BROKEN_LINE, FIXTURES, fixture_files

scenarios("traces_summarize.feature")

VERITY = [sys.executable, "-m", "runtime.cli.main"]


@pytest.fixture
def context() -> dict[str, Any]:
    return {}


@dataclass
class Command:
    code: int
    stdout: str
    stderr: str
    run_dir: Path | None = None

    def json(self) -> dict[str, Any]:
        return json.loads(self.stdout)


def verity(*args: str, cwd: Path | None = None, timeout: float = 120) -> Command:
    done = subprocess.run([*VERITY, *args], capture_output=True, text=True, timeout=timeout, cwd=cwd)
    return Command(done.returncode, done.stdout, done.stderr)


# --- the fixture traces ------------------------------------------------------------------------


@given("the fixture traces of six runs: two run directories and a Collector file", target_fixture="fixtures")
def _fixtures() -> Path:
    return FIXTURES


@then("each file is the builder's output, one ExportTraceServiceRequest per line with hex ids")
def _files_are_built(fixtures: Path) -> None:
    built = fixture_files()
    assert sorted(built) == sorted(str(p.relative_to(fixtures)) for p in fixtures.rglob("*.jsonl"))
    for relative, content in built.items():
        assert (fixtures / relative).read_text(encoding="utf-8") == content, f"{relative} drifted: rerun python -m tests.traces.trace_fixtures"
    first_line = (fixtures / "run_dirs/r2/trace.jsonl").read_text(encoding="utf-8").splitlines()[0]
    span = json.loads(first_line)["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert len(span["traceId"]) == 32 and int(span["traceId"], 16) and len(span["spanId"]) == 16
    request = request_from_line(first_line)
    assert request.resource_spans[0].scope_spans[0].scope.name == "verity"
    assert request.resource_spans[0].scope_spans[0].spans[0].trace_id.hex() == span["traceId"]


@when("I summarize the run directories and the Collector file with --json", target_fixture="command")
def _summarize_json(fixtures: Path) -> Command:
    return verity("trace", "summarize", str(fixtures / "run_dirs"), str(fixtures / "collector.jsonl"), "--json")


@when(parsers.parse('I summarize the run directories and the Collector file with --json and the gate "{flags}"'), target_fixture="command")
def _summarize_gate(fixtures: Path, flags: str) -> Command:
    return verity("trace", "summarize", str(fixtures / "run_dirs"), str(fixtures / "collector.jsonl"), "--json", *flags.split())


@then(parsers.parse('the gate missed "{first}", "{second}" and "{third}"'))
def _gate_missed(command: Command, first: str, second: str, third: str) -> None:
    gate = command.json()["gate"]
    assert gate["missed"] == [first, second, third] and gate["passed"] is False, gate
    missed = [line.removeprefix("verity trace: gate missed: ") for line in command.stderr.splitlines() if "gate missed" in line]
    assert missed == [first, second, third], command.stderr


@then("the gate passed")
def _gate_passed(command: Command) -> None:
    gate = command.json()["gate"]
    assert gate == {"thresholds": {"min_done_verified": 0.5, "max_misjudged": 0.4, "max_p95_retries": 3}, "missed": [], "passed": True}
    assert "gate missed" not in command.stderr


@when("I summarize the run directories and the Collector file", target_fixture="command")
def _summarize_table(fixtures: Path) -> Command:
    return verity("trace", "summarize", str(fixtures / "run_dirs"), str(fixtures / "collector.jsonl"))


@then(parsers.parse("the command exits {code:d}"))
def _exits(command: Command, code: int) -> None:
    assert command.code == code, (command.stdout[-2000:], command.stderr[-2000:])
    assert "Traceback" not in command.stderr


@then(parsers.parse("it found {runs:d} runs, {done:d} of them done and verified"))
def _found(command: Command, runs: int, done: int) -> None:
    data = command.json()
    assert data["runs"] == runs and len(data["each_run"]) == runs
    assert data["done_and_verified"] == {"count": done, "of": runs, "rate": round(done / runs, 4)}
    assert sorted(r["run_id"] for r in data["each_run"] if r["stop_reason"] == "completed" and r["verified"]) == ["r1", "r3", "r6"]


@then("of the 5 labelled runs, 1 of 2 expected to fail claimed success, 1 of 3 expected to complete did not, and 3 of 5 agree")
def _labelled(command: Command) -> None:
    labelled = command.json()["labelled"]
    # Expected not to complete: r2, r3; r3 completed and verified anyway -> 1 false success of 2.
    # Expected to complete: r1, r4, r6; r4 ended replans_exhausted -> 1 false failure of 3.
    # Stop reason equal to the label: r1, r2, r6 -> 3 of 5.
    assert labelled == {
        "runs": 5,
        "false_successes": {"count": 1, "of": 2, "rate": 0.5},
        "false_failures": {"count": 1, "of": 3, "rate": 0.3333},
        "agreements": {"count": 3, "of": 5, "rate": 0.6},
        # r3 (a false success) and r4 (a false failure) of the 5 labelled runs.
        "misjudged": {"count": 2, "of": 5, "rate": 0.4},
    }


@then("the per-run figures are the hand-computed nearest-rank ones")
def _per_run(command: Command) -> None:
    data = command.json()
    # replans [1,0,0,2,0,3] sorted [0,0,0,1,2,3]: P50 rank 3 -> 0, P95 rank ceil(5.7)=6 -> 3 (interpolation would say 0.5 and 2.75).
    assert data["replans"] == {"count": 6, "mean": 1.0, "p50": 0, "p95": 3, "max": 3}
    # Action retries, replans + repair attempts: [1,0+2,0,2,0,3] sorted [0,0,1,2,2,3]: mean 8/6, P50 rank 3 -> 1.
    assert data["retries"] == {"count": 6, "mean": 1.33, "p50": 1, "p95": 3, "max": 3}
    # Model HTTP retries, apart: [0,2,1,0,4,0] sorted [0,0,0,1,2,4]: mean 7/6.
    assert data["model_retries"] == {"count": 6, "mean": 1.17, "p50": 0, "p95": 4, "max": 4}
    # tokens [0,1200,600,0,2300,0] sorted [0,0,0,600,1200,2300]: mean 4100/6.
    assert data["llm_tokens"] == {"count": 6, "mean": 683.33, "p50": 0, "p95": 2300, "max": 2300}
    assert (data["llm_input_tokens"], data["llm_output_tokens"]) == (1000 + 500 + 2000, 200 + 100 + 300)
    # blocked [0,3,0,1,0,5] sorted [0,0,0,1,3,5]: mean 9/6.
    assert data["blocked_requests"] == {"count": 6, "mean": 1.5, "p50": 0, "p95": 5, "max": 5}


@then("the stop reasons and blocker kinds are the hand-counted histograms")
def _histograms(command: Command) -> None:
    data = command.json()
    assert list(data["stop_reasons"].items()) == [("completed", 3), ("no_progress", 1), ("replans_exhausted", 1), ("verification_failed", 1)]
    # page_not_found: r1 (in two states) and r4 (a state and the run) count one run each; access_denied: r6.
    assert list(data["blocker_kinds"].items()) == [("page_not_found", 2), ("access_denied", 1)]


@then("the step latencies by kind are the hand-computed nearest-rank ones")
def _latencies(command: Command) -> None:
    latency = command.json()["step_latency_ms"]
    expected = {
        "act": (2, 65.0, 60, 70, 70),  # [60, 70]
        "agent": (2, 1200.0, 900, 1500, 1500),  # [900, 1500]
        "agent.evaluate": (1, 2.0, 2, 2, 2),
        "data.validate-target": (3, 5.0, 5, 6, 6),  # [4, 5, 6]: P50 rank 2, P95 rank 3
        "extract": (2, 32.5, 25, 40, 40),  # [25, 40]
        "navigate": (6, 106.67, 90, 200, 200),  # [50, 80, 90, 100, 120, 200]: P50 rank 3, P95 rank 6
        "replan.search": (4, 412.5, 350, 600, 600),  # [300, 350, 400, 600]: P50 rank 2, P95 rank 4
        "repair": (1, 300.0, 300, 300, 300),
        "verify": (4, 18.75, 15, 30, 30),  # [10, 15, 20, 30]
    }
    assert {kind: (d["count"], d["mean"], d["p50"], d["p95"], d["max"]) for kind, d in latency.items()} == expected


@then(parsers.parse('the table reads "{line}"'))
def _table_line(command: Command, line: str) -> None:
    assert line in command.stdout.splitlines(), command.stdout


@then(parsers.parse('the table has the row "{name}" with mean {mean:d}, P50 {p50:d}, P95 {p95:d} and max {top:d}'))
def _table_per_run_row(command: Command, name: str, mean: int, p50: int, p95: int, top: int) -> None:
    rows = [line.split() for line in command.stdout.splitlines() if line.startswith(name + " ")]
    assert [name, str(mean), str(p50), str(p95), str(top)] in rows, command.stdout


@then(parsers.parse('the table has the row "{kind}" with {states:d} states, P50 {p50:d}, P95 {p95:d} and max {top:d}'))
def _table_latency_row(command: Command, kind: str, states: int, p50: int, p95: int, top: int) -> None:
    rows = [line.split() for line in command.stdout.splitlines() if line.startswith(kind + " ")]
    assert [kind, str(states), str(p50), str(p95), str(top)] in rows, command.stdout


@then(parsers.parse('the problem "{problem}" is on stderr and in the JSON'))
def _problem(command: Command, problem: str) -> None:
    assert any(problem in line for line in command.stderr.splitlines()), command.stderr
    assert [p for p in command.json()["problems"] if problem in p]


@then("run r1, read from its run directory and from the Collector file, counts once")
def _r1_once(command: Command, fixtures: Path) -> None:
    for path in (fixtures / "run_dirs/r1/trace.jsonl", fixtures / "collector.jsonl"):
        assert '"stringValue":"r1"' in path.read_text(encoding="utf-8")
    each = command.json()["each_run"]
    assert [r["run_id"] for r in each].count("r1") == 1
    assert next(r for r in each if r["run_id"] == "r1")["states"] == 6


@then("the span of the run that never ended is outside any run and in no step latency")
def _orphan(command: Command) -> None:
    data = command.json()
    assert data["spans"] == 40 and data["spans_outside_runs"] == 1  # 39, and r2's repair state
    assert data["step_latency_ms"]["navigate"]["max"] == 200  # the orphan navigate took 999 ms


@then("the served run's client and server spans are in no run")
def _served(command: Command) -> None:
    each = command.json()["each_run"]
    served = next(r for r in each if r["run_id"] == "r5")
    assert served["trace_id"] == "ab05" + "0" * 28 and served["states"] == 3
    # 39 spans: 36 in the six runs, the orphan outside, and the client's and server's in neither count.
    assert command.json()["spans_outside_runs"] == 1


@when("I summarize a directory with no trace file and a path that does not exist", target_fixture="command")
def _summarize_nothing(tmp_path: Path) -> Command:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "events.jsonl").write_text("{}\n", encoding="utf-8")
    return verity("trace", "summarize", str(tmp_path / "empty"), str(tmp_path / "missing.jsonl"))


@then("stderr names the missing path and says no run was found")
def _nothing_said(command: Command) -> None:
    assert "missing.jsonl: no such file or directory" in command.stderr
    assert "no run found" in command.stderr
    assert "runs: 0" in command.stdout


# --- nearest rank ------------------------------------------------------------------------------


@then(parsers.parse("the P{percent:d} of {values} is {result}"))
def _nearest_rank(percent: int, values: str, result: str) -> None:
    numbers = [] if values == "none" else [float(v) for v in values.split(",")]
    expected = None if result == "none" else float(result)
    assert nearest_rank(numbers, percent) == expected
    if numbers:  # the definition, independently: the value at rank ceil(p/100 * n)
        assert sorted(numbers)[math.ceil(percent / 100 * len(numbers)) - 1] == expected


# --- receiving over OTLP/gRPC ------------------------------------------------------------------


class Listener:
    """`verity trace summarize --listen 127.0.0.1:0 ...` as a subprocess, and the address it names."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [*VERITY, "trace", "summarize", "--listen", "127.0.0.1:0", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        assert self.process.stderr is not None
        first = self.process.stderr.readline()  # printed once the port is bound
        assert "listening on " in first, first + self.process.stderr.read()
        self.first_line = first
        self.address = first.split("listening on ", 1)[1].split()[0]

    def finish(self, timeout: float = 120) -> Command:
        stdout, stderr = self.process.communicate(timeout=timeout)
        return Command(self.process.returncode, stdout, self.first_line + stderr)


def export_to(address: str, requests: list[ExportTraceServiceRequest]) -> None:
    with grpc.insecure_channel(address) as channel:
        stub = TraceServiceStub(channel)
        for request in requests:
            stub.Export(request, timeout=30)


def fixture_requests(fixtures: Path) -> list[ExportTraceServiceRequest]:
    """Every parseable line of the fixture files (r1 twice: from its run directory and the Collector file)."""
    lines = [line for path in sorted(fixtures.rglob("*.jsonl")) for line in path.read_text(encoding="utf-8").splitlines()]
    return [request_from_line(line) for line in lines if line != BROKEN_LINE]


@when('"verity trace summarize --listen 127.0.0.1:0 --runs 6 --json" receives every fixture request over gRPC', target_fixture="command")
def _listen_and_receive(fixtures: Path) -> Command:
    listener = Listener("--runs", "6", "--seconds", "120", "--json")
    requests = fixture_requests(fixtures)
    assert len(requests) == 2 + 1 + 5  # r1's file, r2's, and the Collector file's lines but the broken one
    export_to(listener.address, requests)
    return listener.finish()


@when('"verity trace summarize --listen 127.0.0.1:0 --seconds 1" receives nothing', target_fixture="command")
def _listen_for_nothing(context: dict[str, Any]) -> Command:
    listener = Listener("--seconds", "1")
    context["address"] = listener.address
    return listener.finish()


@then("stderr names the address it listened on and says no run was found")
def _listened_for_nothing(command: Command, context: dict[str, Any]) -> None:
    address = context["address"]
    assert address.startswith("127.0.0.1:") and int(address.rsplit(":", 1)[1]) > 0
    assert f"listening on {address} for OTLP/gRPC" in command.stderr and "no run found" in command.stderr


# --- a real run --------------------------------------------------------------------------------


@when('I run "verity demo" exporting OTLP to "verity trace summarize --listen" and summarize its trace.jsonl', target_fixture="command")
def _demo_and_summarize(tmp_path: Path, context: dict[str, Any]) -> Command:
    listener = Listener("--runs", "1", "--seconds", "180", "--json")
    env = {**os.environ, "OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://{listener.address}", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
    demo = subprocess.run([*VERITY, "demo", "--out", str(tmp_path / "demo")], capture_output=True, text=True, timeout=180, cwd=tmp_path, env=env)
    assert demo.returncode == 0, (demo.stdout[-2000:], demo.stderr[-2000:])
    context["received"] = listener.finish()
    summarized = verity("trace", "summarize", str(tmp_path), "--json")
    assert summarized.code == 0, summarized.stderr
    summarized.run_dir = tmp_path / "demo"
    return summarized


@then("the summary received over OTLP is the summary of its trace.jsonl")
def _received_same(command: Command, context: dict[str, Any]) -> None:
    received: Command = context["received"]
    assert received.code == 0, received.stderr
    assert received.json() == command.json()


@then("it found 1 run, done and verified, with 1 replan")
def _demo_figures(command: Command) -> None:
    data = command.json()
    assert data["runs"] == 1 and data["done_and_verified"]["count"] == 1
    assert data["stop_reasons"] == {"completed": 1}
    assert data["replans"]["max"] == 1 and data["problems"] == []
    assert data["blocker_kinds"] == {"page_not_found": 1}


@then("there is one step latency per executed state, by state kind")
def _demo_latencies(command: Command) -> None:
    assert command.run_dir is not None
    executions = json.loads((command.run_dir / "executions.json").read_text(encoding="utf-8"))
    kinds: dict[str, int] = {}
    for record in executions:
        kinds[record["kind"]] = kinds.get(record["kind"], 0) + 1
    latency = command.json()["step_latency_ms"]
    assert {kind: d["count"] for kind, d in latency.items()} == kinds
    assert all(d["p50"] > 0 and d["p50"] <= d["p95"] <= d["max"] for d in latency.values())
