"""Bindings of features/service_bounds.feature: large values through a real server and channels."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import escape
from pathlib import Path
from typing import Any

import pytest

from google.protobuf.json_format import MessageToDict
from pytest_bdd import given, parsers, scenarios, then, when
from tests.fixtures.one_page_site import OnePageSite
from tests.service.service_harness import ServedServer, running

from runtime.events import AgentState, FinalVerdict, GuardrailTripped, StatusChanged, StepFinished, StructuredOutput, ToolUsed
from runtime.outcomes import BlockerKind, StopReason, TaskState
from runtime.client import VerityClient
from runtime.service.gen.verity.v1 import events_pb2 as events_pb

# The 5 MB page takes Chromium seconds to lay out: a ceiling of its own, above the recipe's step budget.
pytestmark = pytest.mark.timeout(600)

scenarios("service_bounds.feature")

TEXT_MARKER = re.compile(r"… \[cut: (\d+) bytes; full value: (artifacts/event_field/[0-9a-f]{16}\.txt)\]$")
STRUCT_MARKER_KEYS = {"bytes", "artifact", "sha256"}


def large_text(size: int, label: str) -> str:
    """`size` bytes of UTF-8 with multi-byte characters throughout, so cuts meet code points."""
    unit = f"{label} 价格 " + "x" * 90 + "\n"
    text = unit * (size // len(unit.encode("utf-8")) + 1)
    return text.encode("utf-8")[:size].decode("utf-8", errors="ignore")


@when(
    parsers.parse(
        "the run emits {size:d} byte values as an observation summary, agent notes, a tool result, page text in its "
        "output, evidence and its verdict summary, and a mapping of 100 values of {size2:d} / 100 bytes"
    )
)
def _emit_large(server: ServedServer, context: dict[str, Any], size: int) -> None:
    live = context["run"]
    run_dir = server.config.runs_dir / live.run_id
    values = {name: large_text(size, name) for name in ("summary", "thinking", "tool", "page", "evidence", "verdict")}
    medium = {f"value-{i}": large_text(size // 100, f"medium {i}") for i in range(100)}
    context["values"] = values
    context["medium"] = medium
    context["emitted"] = server.emit(
        live,
        [
            StepFinished(
                state_id="read", step_kind="extract", outcome="extracted", ok=True, verified=True, duration_ms=3.0,
                observation_summary=values["summary"], agent_state=AgentState(thinking=values["thinking"], next_goal="verify"),
            ),
            ToolUsed(tool="browser_extract", action_id="a1", phase="success", summary=values["tool"]),
            StructuredOutput(data={"page_text": values["page"], "price": 2412.5}, valid=True),
            GuardrailTripped(
                guard="data.validate-target", blocker_kind=BlockerKind.KEYWORDS_MISSING, detail="many values",
                evidence={"html": values["evidence"], "screenshot": str(run_dir / "artifacts" / "screenshot" / "ab.png")},
            ),
            GuardrailTripped(guard="data.validate-target", blocker_kind=None, detail="medium values", evidence=medium),
            StatusChanged(status=TaskState.COMPLETED),
            FinalVerdict(status=TaskState.COMPLETED, stop_reason=StopReason.COMPLETED, verified=True, summary=values["verdict"]),
        ],
    )
    server.call(live.ended.wait())


@then("the watcher receives the whole run, every event within the message limit")
def _whole_run(server: ServedServer, context: dict[str, Any]) -> None:
    watcher = context["watcher"]
    watcher.join()
    assert watcher.error is None, watcher.error
    assert watcher.seqs == list(range(1, 9))
    limit = server.config.max_message_bytes
    assert all(event.ByteSize() < limit // 2 for event in watcher.events), [e.ByteSize() for e in watcher.events]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _struct_markers(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        if set(value) == {"cut"} and isinstance(value["cut"], dict) and set(value["cut"]) == STRUCT_MARKER_KEYS:
            return [value["cut"]]
        return [m for item in value.values() for m in _struct_markers(item)]
    if isinstance(value, list):
        return [m for item in value for m in _struct_markers(item)]
    return []


@then("every value that was cut ends with a marker naming an artifact of the run that holds the whole value")
def _markers(server: ServedServer, context: dict[str, Any]) -> None:
    run_dir: Path = server.config.runs_dir / context["run"].run_id
    events = [MessageToDict(e, preserving_proto_field_name=True) for e in context["watcher"].events]
    whole_values = set(context["values"].values())
    cut_texts, referenced = 0, set()
    for event in events:
        for text in _strings(event):
            marker = TEXT_MARKER.search(text)
            if marker is None:
                continue
            cut_texts += 1
            whole = (run_dir / marker.group(2)).read_text(encoding="utf-8")
            assert len(whole.encode("utf-8")) == int(marker.group(1))
            assert whole.startswith(text[: marker.start()])  # the head is the value's own beginning
            referenced.add(marker.group(2))
            if len(whole.encode("utf-8")) > 60_000:
                assert whole in whole_values
        for cut in _struct_markers(event):
            whole_bytes = (run_dir / cut["artifact"]).read_bytes()
            assert len(whole_bytes) == int(cut["bytes"])
            assert json.loads(whole_bytes) == context["medium"]
            referenced.add(cut["artifact"])
    # The six large values were cut, and the mapping of medium values moved out whole.
    assert cut_texts >= 6 and any(a.endswith(".json") for a in referenced), (cut_texts, referenced)
    evidence = next(e for e in events if e.get("guardrail_tripped", {}).get("detail") == "many values")
    assert evidence["guardrail_tripped"]["evidence"]["screenshot"] == "artifacts/screenshot/ab.png"
    context["referenced"] = referenced


@then("GetRun lists those artifacts with paths relative to the run, within the message limit")
def _get_run(server: ServedServer, context: dict[str, Any]) -> None:
    response = server.client().get_run(context["run"].run_id)
    assert response.ByteSize() < server.config.max_message_bytes
    paths = {a.path for a in response.artifacts}
    assert context["referenced"] <= paths
    assert not any(p.startswith("/") for p in paths) and response.artifacts_omitted == 0


@then("ListRuns lists the run with a summary of at most 4096 bytes, within the message limit")
def _list_runs(server: ServedServer, context: dict[str, Any]) -> None:
    response = server.client().list_runs()
    assert response.ByteSize() < server.config.max_message_bytes
    (run,) = [r for r in response.runs if r.run_id == context["run"].run_id]
    assert len(run.summary.encode("utf-8")) <= 4096
    assert run.summary.startswith(context["values"]["verdict"][:100])


@then("streaming the run again from the store returns the same events")
def _replay(server: ServedServer, context: dict[str, Any]) -> None:
    assert list(server.client().stream_run(context["run"].run_id)) == context["watcher"].events


# --- run records ---------------------------------------------------------------------------------


@given(parsers.parse("{count:d} ended runs, each with a {input_size:d} byte input and a {label_size:d} byte label"))
def _runs_with_long_values(server: ServedServer, context: dict[str, Any], count: int, input_size: int, label_size: int) -> None:
    runs = []
    for index in range(count):
        live = server.open_run(
            recipe_name="long-values", inputs={"page": large_text(input_size, f"input {index}")}, labels={"note": large_text(label_size, "label")}
        )
        server.emit(live, [running()])
        server.finish(live)
        runs.append(live.run_id)
    context["runs"] = runs
    context["input_size"] = input_size


@then("GetRun of each run fits the message limit and shows its long values cut with their size")
def _records_bounded(server: ServedServer, context: dict[str, Any]) -> None:
    client = server.client()
    for run_id in context["runs"]:
        response = client.get_run(run_id)
        assert response.ByteSize() < server.config.max_message_bytes // 2
        shown = response.run.inputs["page"]
        assert shown.endswith(f"… [cut: {context['input_size']} bytes]") and len(shown.encode()) <= 4096


@then("paging through ListRuns 50 at a time returns every run once, each page within the limit")
def _paged_by_size(server: ServedServer, context: dict[str, Any]) -> None:
    client = server.client()
    listed, token, pages = [], "", 0
    while True:
        page = client.list_runs(page_size=50, page_token=token)
        assert page.ByteSize() < server.config.max_message_bytes
        listed += [r.run_id for r in page.runs]
        pages += 1
        token = page.next_page_token
        if not token:
            break
    assert listed == list(reversed(context["runs"]))
    assert pages > 1  # 12 records of several KiB do not fit one 64 KiB reply


# --- a real run ------------------------------------------------------------------------------------

DEFAULT_MESSAGE_LIMIT = 4 * 1024 * 1024
BIG_FIELD_RECIPE = """\
name: big-field
version: "1"
goal: 用浏览器 read the long text
inputs:
  site:
    type: string
target:
  start_url: "{site}/big.html"
  allowed_domains: ["127.0.0.1"]
guards:
  # Chromium lays out a 5 MB line in about 5 s idle and three times that on a
  # loaded machine; the scenario is about message limits, not speed.
  timeouts: {step_ms: 180000, run_ms: 600000}
plan:
  - id: open
    navigate: "{start_url}"
  - id: read
    extract:
      fields:
        text:
          css: "#big"
  - id: check
    verify:
      - field_present: text
  - id: done
    close:
      summary: read the long text
"""


@pytest.fixture
def big_page() -> Iterator[OnePageSite]:
    with OnePageSite("/big.html") as site:
        yield site


@given(
    parsers.parse("a verity serve process with the default message limit, and a loopback page holding a {size:d} byte text"),
    target_fixture="target",
)
def _served_big_page(serve_processes: Any, tmp_path: Path, big_page: OnePageSite, context: dict[str, Any], size: int) -> str:
    context["text"] = text = large_text(size, "page").replace("\n", " ")
    big_page.html = f'<!doctype html><html><head><meta charset="utf-8"><title>Long text</title></head><body><h1>Long text</h1><pre id="big">{escape(text)}</pre></body></html>'
    process = serve_processes(
        "--store", str(tmp_path / "proc" / "verity.db"), "--runs-dir", str(tmp_path / "proc" / "runs"), "--recipes-dir", str(tmp_path),
        "--allow-private-network",
    )
    context["runs_dir"] = tmp_path / "proc" / "runs"
    return process.target


@when("a client runs a recipe that extracts that text with Run")
def _run_big(target: str, big_page: OnePageSite, context: dict[str, Any]) -> None:
    with VerityClient(target) as client:
        context["events"] = list(client.run(recipe_yaml=BIG_FIELD_RECIPE, inputs={"site": f"http://127.0.0.1:{big_page.port}"}))


@then("the run completes, every event within the message limit")
def _big_run_completes(context: dict[str, Any]) -> None:
    events = context["events"]
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[-1].final_verdict.stop_reason == events_pb.STOP_REASON_COMPLETED, events[-1]
    assert all(e.ByteSize() < DEFAULT_MESSAGE_LIMIT // 2 for e in events)


@then("the extracted value ends with a marker naming an artifact of the run that holds the whole text")
def _big_value_cut(context: dict[str, Any]) -> None:
    output = next(e for e in context["events"] if e.HasField("structured_output"))
    value = MessageToDict(output.structured_output, preserving_proto_field_name=True)["data"]["text"]
    marker = TEXT_MARKER.search(value)
    assert marker is not None, value[-200:]
    run_dir = context["runs_dir"] / output.run_id
    whole = (run_dir / marker.group(2)).read_text(encoding="utf-8")
    assert whole.strip() == context["text"].strip() and len(whole.encode("utf-8")) == int(marker.group(1))
    context["run_id"] = output.run_id


@then("GetRun and ListRuns answer within the message limit")
def _big_run_records(target: str, context: dict[str, Any]) -> None:
    with VerityClient(target) as client:
        got = client.get_run(context["run_id"])
        assert got.ByteSize() < DEFAULT_MESSAGE_LIMIT and got.run.stop_reason == events_pb.STOP_REASON_COMPLETED
        assert any(a.artifact_kind == "event_field" for a in got.artifacts)
        listed = client.list_runs()
        assert listed.ByteSize() < DEFAULT_MESSAGE_LIMIT and [r.run_id for r in listed.runs] == [context["run_id"]]
