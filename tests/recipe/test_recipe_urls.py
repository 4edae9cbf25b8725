"""Binds features/recipe_urls.feature: the URLs a recipe names are judged before the run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

scenarios("recipe_urls.feature")

REPO = Path(__file__).resolve().parents[2]

NON_WEB_URLS = """\
name: non-web
goal: 用浏览器 read
target:
  start_url: "data:text/html,<h1>hi</h1>"
plan:
  - navigate: "https://127.0.0.1/"
  - navigate: "javascript:alert(1)"
  - close:
fallback:
  search_url: "file:///etc/passwd?q={query}"
"""

TEMPLATED_URLS = """\
name: templated
goal: 用浏览器 read
inputs:
  site: {description: where the pages are}
target:
  start_url: "%s"
plan:
  - navigate: "{start_url}"
  - set: {page: "http://127.0.0.1/next"}
  - navigate: "{vars.page}"
  - close:
"""


@pytest.fixture
def case() -> dict:
    return {}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "runtime.cli.main", *args], capture_output=True, text=True, timeout=120, cwd=REPO)


@given("a recipe whose search page is a file: URL, whose second navigate is a javascript: URL and whose start page is a data: URL")
def non_web(case: dict, tmp_path: Path) -> None:
    case["path"] = tmp_path / "non-web.yaml"
    case["path"].write_text(NON_WEB_URLS)


@given(parsers.parse('a recipe whose start page is "{start}"'))
def templated(case: dict, tmp_path: Path, start: str) -> None:
    case["path"] = tmp_path / "templated.yaml"
    case["path"].write_text(TEMPLATED_URLS % start)


@when("I validate it with the CLI")
def validate(case: dict) -> None:
    case["result"] = _cli("recipe", "validate", str(case["path"]))


@when(parsers.parse('I run it with the CLI and the input site "{site}"'))
def run(case: dict, tmp_path: Path, site: str) -> None:
    case["out"] = tmp_path / "run"
    case["result"] = _cli("run", str(case["path"]), "-i", f"site={site}", "--out", str(case["out"]))


@then(parsers.parse("the CLI exits with status {code:d}"))
def exit_status(case: dict, code: int) -> None:
    assert case["result"].returncode == code, case["result"].stdout + case["result"].stderr


@then(parsers.parse('it reports "{field}" as scheme_not_allowed naming "{scheme}"'))
def reports(case: dict, field: str, scheme: str) -> None:
    lines = (case["result"].stdout + case["result"].stderr).splitlines()
    mine = [line for line in lines if f": {field}: " in line and line.endswith("[scheme_not_allowed]")]
    assert len(mine) == 1, lines
    assert f"{scheme} is not allowed" in mine[0] and "http" in mine[0], mine[0]
    source = mine[0].split(f": {field}: ")[0]
    if source.startswith(str(case["path"])):  # validation: the field's file:line:col
        line, col = source.removeprefix(str(case["path"]) + ":").split(":")
        written = case["path"].read_text().splitlines()[int(line) - 1]
        assert scheme in written[int(col) - 1 :], (written, col)
    else:  # run start: the inputs filled the URL in
        assert source == "--input", mine[0]


@then("it says nothing was run")
def nothing_run(case: dict) -> None:
    assert "nothing was run" in case["result"].stderr
    assert not case["out"].exists()
