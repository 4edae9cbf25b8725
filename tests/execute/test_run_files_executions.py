"""Plain tests: executions.json, rewritten from each record's cached text, is exactly what one
json.dumps of the (redacted) records writes, also after a secret is learned midway."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from runtime.execute.record.run_files import ExecutionRecord, RunFiles
from runtime.secrets import Secrets


def _expected(records: list[ExecutionRecord], secrets: Secrets) -> str:
    return json.dumps(secrets.redact([asdict(r) for r in records]), indent=2, ensure_ascii=False) + "\n"


def test_executions_file_matches_one_dump_as_records_change_and_secrets_are_learned(tmp_path: Path) -> None:
    secrets = Secrets()
    files = RunFiles(tmp_path / "run", secrets)
    first = ExecutionRecord(index=1, state_id="open", kind="navigate", tool="open_url", started_at=1.0)
    files.record_execution(first)
    files.flush()
    assert (tmp_path / "run" / "executions.json").read_text(encoding="utf-8") == _expected([first], secrets)

    first.outcome, first.ok = "ok", True
    first.evidence = {"typed": "hunter2-ünïcode", "lines": "a\nb", "nested": [{"k": []}, {}]}
    files.record_execution(first)
    second = ExecutionRecord(index=2, state_id="login", kind="act", tool="browser_type", started_at=2.0, observation_summary="typed hunter2-ünïcode")
    files.record_execution(second)
    files.flush()
    written = (tmp_path / "run" / "executions.json").read_text(encoding="utf-8")
    assert written == _expected([first, second], secrets)
    assert "hunter2" in written  # not a secret yet

    secrets.add("password", "hunter2-ünïcode")
    files.close()
    written = (tmp_path / "run" / "executions.json").read_text(encoding="utf-8")
    assert written == _expected([first, second], secrets)
    assert "hunter2" not in written and "password" in written


def test_a_run_without_records_writes_an_empty_list(tmp_path: Path) -> None:
    secrets = Secrets()
    secrets.add("token", "s3cr3t-value")
    files = RunFiles(tmp_path / "run", secrets)
    files.close()
    assert (tmp_path / "run" / "executions.json").read_text(encoding="utf-8") == "[]\n"
