"""Telemetry fixtures: loopback OTLP receivers, the demo site, and `verity` as a subprocess whose
environment carries the OTEL_* variables a test chooses (and none of the caller's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers

from runtime.demo import DemoSite
from runtime.trace_export import CAPTURE_CONTENT_VARIABLE
from tests.fixtures.otlp_receiver import OtlpGrpcReceiver, OtlpHttpReceiver

VERITY = [sys.executable, "-m", "runtime.cli.main"]


@dataclass
class Command:
    code: int
    stdout: str
    stderr: str
    run_dir: Path

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in (self.run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()]

    def file(self, name: str) -> Any:
        return json.loads((self.run_dir / name).read_text(encoding="utf-8"))


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without any OTEL_* or Gemini setting, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "VERITY_GEMINI", "GEMINI_", "GOOGLE_"))}
    env.update(extra)
    return env


def run_verity(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*VERITY, *args], capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)


@dataclass
class TelemetryEnv:
    """What a scenario adds to the subprocess's environment."""

    variables: dict[str, str] = field(default_factory=dict)


@pytest.fixture
def telemetry_env() -> TelemetryEnv:
    return TelemetryEnv()


@pytest.fixture
def receivers() -> Iterator[ExitStack]:
    with ExitStack() as stack:
        yield stack


@pytest.fixture(scope="session")
def demo_site() -> Iterator[DemoSite]:
    with DemoSite() as served:
        yield served


@given(parsers.parse("a loopback OTLP receiver speaking {protocol}"), target_fixture="receiver")
def receiver(receivers: ExitStack, telemetry_env: TelemetryEnv, protocol: str) -> OtlpGrpcReceiver | OtlpHttpReceiver:
    kinds = {"grpc": OtlpGrpcReceiver, "http/protobuf": OtlpHttpReceiver}
    started = receivers.enter_context(kinds[protocol]())
    telemetry_env.variables.update(started.env())
    return started


@given("content capture is switched on")
def capture_on(telemetry_env: TelemetryEnv) -> None:
    telemetry_env.variables[CAPTURE_CONTENT_VARIABLE] = "true"
