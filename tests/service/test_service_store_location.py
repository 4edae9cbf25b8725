"""Bindings of features/service_store_location.feature: `verity serve` with a store it cannot use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from pytest_bdd import given, parsers, scenarios, then, when

scenarios("service_store_location.feature")


@given("an empty working directory", target_fixture="workdir")
def _workdir(tmp_path: Path) -> Path:
    workdir = tmp_path / "work"
    workdir.mkdir()
    return workdir


@when(parsers.parse('I start "verity serve" there with the store given as {store} {how}'), target_fixture="served")
def _serve_with_store(workdir: Path, store: str, how: str) -> dict[str, Any]:
    arguments = ["serve", "--port", "0"]
    if how == "in the config file":
        (workdir / "serve.yaml").write_text(f'store: "{store}"\n', encoding="utf-8")
        arguments += ["--config", "serve.yaml"]
    else:
        if how == "as an existing folder":
            (workdir / store).mkdir()
        arguments += ["--store", store]
    before = sorted(path.name for path in workdir.iterdir())
    env = {k: v for k, v in os.environ.items() if k != "VERITY_TOKEN"}
    # A server that did start would run until killed: the timeout ends it and fails the Then step.
    try:
        done = subprocess.run(
            [sys.executable, "-m", "runtime.cli.main", *arguments],
            cwd=workdir, capture_output=True, text=True, timeout=60, env=env,
        )
        code, stderr = done.returncode, done.stderr
    except subprocess.TimeoutExpired as expired:
        code, stderr = None, (expired.stderr or b"").decode(errors="replace")
    return {"code": code, "stderr": stderr, "before": before}


@then(parsers.parse('it exits with code 2 and a message naming {store} and "{phrase}"'))
def _refused(served: dict[str, Any], store: str, phrase: str) -> None:
    assert served["code"] == 2, served
    assert store in served["stderr"] and phrase in served["stderr"], served["stderr"]
    assert "Traceback" not in served["stderr"], served["stderr"]


@then("the working directory holds nothing the server created")
def _nothing_created(workdir: Path, served: dict[str, Any]) -> None:
    after = sorted(path.name for path in workdir.iterdir())
    assert after == served["before"], after
