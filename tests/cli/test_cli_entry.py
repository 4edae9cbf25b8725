"""The `verity` entry point: help and version work without loading any area's heavy stack."""

from __future__ import annotations

import subprocess
import sys

import pytest

from runtime.cli.main import COMMANDS, build_parser

PROBE = """
import sys
from runtime.cli.main import main
try:
    main({argv!r})
except SystemExit:
    pass
heavy = sorted(m for m in ("google.genai", "pyppeteer", "grpc", "pydantic") if m in sys.modules)
print("loaded:", ",".join(heavy))
"""


@pytest.mark.parametrize("argv", [["--version"], ["--help"]])
def test_help_and_version_load_no_area(argv: list[str]) -> None:
    result = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("loaded:"), result.stdout


def test_every_command_is_listed_and_defined_by_its_area() -> None:
    for name, (module, _summary) in COMMANDS.items():
        parser = build_parser([name])
        commands = next(a for a in parser._actions if a.dest == "command")
        # The chosen command's parser comes from its area (it has options), not a placeholder.
        assert commands.choices[name]._actions[1:], f"{name} is not defined by {module}"
        assert set(commands.choices) == set(COMMANDS)


def test_unknown_command_is_a_usage_error() -> None:
    result = subprocess.run([sys.executable, "-m", "runtime.cli.main", "nonsense"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "invalid choice: 'nonsense'" in result.stderr
    assert "Traceback" not in result.stderr
