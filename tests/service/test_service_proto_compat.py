"""Binds features/service_proto_compat.feature: field numbers are never reused."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from tools.proto_fields import breaking_changes, descriptor_set, read_lock

scenarios("service_proto_compat.feature")

REPO = Path(__file__).resolve().parents[2]
EVENT_TRACE_ID = "  string trace_id = 4;\n"


@pytest.fixture
def protos(tmp_path: Path) -> Path:
    copy = tmp_path / "proto"
    shutil.copytree(REPO / "proto", copy)
    return copy


def _edit_event(protos: Path, old: str, new: str) -> None:
    events = protos / "verity" / "v1" / "events.proto"
    text = events.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in events.proto"
    events.write_text(text.replace(old, new, 1), encoding="utf-8")


@given("a copy of the published protos")
def copy_of_protos(protos: Path) -> None:
    assert (protos / "verity" / "v1" / "events.proto").exists()


@then("the field check passes")
def check_passes(protos: Path) -> None:
    assert breaking_changes(read_lock(), descriptor_set(protos)) == []


@when("the copy drops Event.trace_id without reserving it")
def drop_trace_id(protos: Path) -> None:
    _edit_event(protos, EVENT_TRACE_ID, "")


@when(parsers.parse('the copy reserves the number {number:d} and the name "{name}" in Event'))
def reserve(protos: Path, number: int, name: str) -> None:
    _edit_event(protos, "message Event {\n", f'message Event {{\n  reserved {number};\n  reserved "{name}";\n')


@when(parsers.parse('the copy gives the number {number:d} to a new field "{name}" in Event'))
def reuse(protos: Path, number: int, name: str) -> None:
    _edit_event(protos, f"  reserved {number};\n", f"  string {name} = {number};\n")


@then(parsers.parse('the field check reports "{text}"'))
def check_reports(protos: Path, text: str) -> None:
    problems = breaking_changes(read_lock(), descriptor_set(protos))
    assert any(text in problem for problem in problems), problems


@when("I run the field check on the repository", target_fixture="checked")
def run_check() -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "tools/proto_fields.py", "--check"], cwd=REPO, capture_output=True, text=True, timeout=120)


@then("it reports no breaking changes and a current lock")
def no_breaking_changes(checked: subprocess.CompletedProcess) -> None:
    assert checked.returncode == 0, checked.stderr
    assert "the lock is current" in checked.stdout
