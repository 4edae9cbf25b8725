"""The JUnit XML and Cucumber JSON reports the gate asks pytest and pytest-bdd to write for CI.

pytest writes JUnit XML (`--junitxml`) and pytest-bdd writes Cucumber JSON (`--cucumberjson`); the
gate only picks where: beside the traceability matrix, unless the pytest arguments after `--`
name a path of their own, which then wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from runtime.gate.problems import display_path

JUNIT_XML_NAME = "junit.xml"
CUCUMBER_JSON_NAME = "cucumber.json"
_JUNIT_OPTIONS = ("--junitxml", "--junit-xml")
_CUCUMBER_OPTIONS = ("--cucumberjson", "--cucumber-json")


@dataclass(frozen=True)
class CiReports:
    junit_xml: Path  # absolute
    cucumber_json: Path

    def written(self, root: Path) -> list[str]:
        """The reports that exist after the run, as users should see their paths."""
        return [display_path(path, root) for path in (self.junit_xml, self.cucumber_json) if path.is_file()]

    def to_json(self, root: Path) -> dict[str, str | None]:
        return {
            "junit_xml": display_path(self.junit_xml, root) if self.junit_xml.is_file() else None,
            "cucumber_json": display_path(self.cucumber_json, root) if self.cucumber_json.is_file() else None,
        }


def ci_report_args(root: Path, out_dir: Path, pytest_args: Sequence[str]) -> tuple[list[str], CiReports]:
    """The pytest arguments to add, and where the two reports will be.

    A default report left by an earlier run is removed first, so a run that dies before writing
    cannot pass off the old file as its own.
    """
    extra: list[str] = []
    paths = []
    for options, name in ((_JUNIT_OPTIONS, JUNIT_XML_NAME), (_CUCUMBER_OPTIONS, CUCUMBER_JSON_NAME)):
        chosen = _given_path(pytest_args, options)
        if chosen is not None:
            paths.append((root / chosen).resolve())  # pytest runs in the project root
            continue
        path = (out_dir / name).resolve()
        path.unlink(missing_ok=True)
        extra.append(f"{options[0]}={path}")
        paths.append(path)
    return extra, CiReports(junit_xml=paths[0], cucumber_json=paths[1])


def _given_path(pytest_args: Sequence[str], options: tuple[str, ...]) -> str | None:
    """The last path given with one of `options` (`--opt=PATH` or `--opt PATH`), as pytest reads it."""
    given = None
    for index, argument in enumerate(pytest_args):
        name, equals, value = argument.partition("=")
        if name not in options:
            continue
        if equals:
            given = value
        elif index + 1 < len(pytest_args):
            given = pytest_args[index + 1]
    return given
