"""What a run directory holds, read for the report: the verdict, the output, the plan with its
repairs, and one record per executed state.

A run that was killed may have left some files missing or cut short: each file is read on its own
and a file that cannot be read becomes a note in `problems`, never an exception. Paths the files
name are only followed inside the run directory (a report never reads files the run did not write).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runtime.run_layout import EXECUTIONS_FILE, FINAL_FILES, OUTPUT_FILE, PLANS_FILE, RECORD_FILES, VERDICT_FILE

RUN_FILES = FINAL_FILES + RECORD_FILES


class NotARunDirectory(Exception):
    """The directory holds none of the files a run writes."""


@dataclass
class RunContents:
    run_dir: Path
    verdict: dict[str, Any] = field(default_factory=dict)
    output: dict[str, Any] | None = None
    plan: dict[str, Any] = field(default_factory=dict)
    plan_repairs: list[dict[str, Any]] = field(default_factory=list)
    last_failure_summary: str = ""
    executions: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def recipe(self) -> dict[str, Any]:
        """The plan's recipe identity: name and version."""
        recipe = self.plan.get("recipe")
        return recipe if isinstance(recipe, dict) else {}

    def inside(self, relative: object) -> Path | None:
        """`relative` (a path a run file names) as a file inside the run directory, else None."""
        if not isinstance(relative, str) or not relative:
            return None
        root = self.run_dir.resolve()
        candidate = (root / relative).resolve()
        if candidate != root and root in candidate.parents and candidate.is_file():
            return candidate
        return None


def check_run_directory(run_dir: Path) -> None:
    """Raises NotARunDirectory unless `run_dir` holds at least one of the files a run writes."""
    if not run_dir.is_dir():
        raise NotARunDirectory(f"{run_dir}: not a directory")
    if not any((run_dir / name).is_file() for name in RUN_FILES):
        raise NotARunDirectory(f"{run_dir}: not a run directory (none of {', '.join(RUN_FILES)} is there)")


def read_records(run_dir: Path) -> RunContents:
    """The plan with its repairs and the executed states (plans.json, executions.json): a run's
    report can be drafted from them while the run still finishes."""
    contents = RunContents(run_dir=run_dir)
    plans = _read_json(run_dir / PLANS_FILE, dict, contents.problems)
    if plans is not None:
        plan = plans.get("plan")
        contents.plan = plan if isinstance(plan, dict) else {}
        repairs = plans.get("plan_repairs")
        contents.plan_repairs = [r for r in repairs if isinstance(r, dict)] if isinstance(repairs, list) else []
        contents.last_failure_summary = str(plans.get("last_failure_summary") or "")
    executions = _read_json(run_dir / EXECUTIONS_FILE, list, contents.problems)
    if executions is not None:
        contents.executions = [record for record in executions if isinstance(record, dict)]
    return contents


def read_final(contents: RunContents) -> None:
    """Add the verdict and the output (verdict.json, output.json) to `contents`; their problems
    are listed before those of the records, in the order of RUN_FILES."""
    problems: list[str] = []
    verdict = _read_json(contents.run_dir / VERDICT_FILE, dict, problems)
    if verdict is not None:
        contents.verdict = verdict
    output = _read_json(contents.run_dir / OUTPUT_FILE, dict, problems)
    if output is not None:
        contents.output = output
    contents.problems[:0] = problems


def _read_json(path: Path, shape: type, problems: list[str]) -> Any:
    if not path.exists():
        problems.append(f"{path.name} is missing (the run may have been killed before writing it)")
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        problems.append(f"{path.name} could not be read: {error}")
        return None
    except json.JSONDecodeError as error:
        problems.append(f"{path.name}:{error.lineno}:{error.colno}: not JSON: {error.msg}")
        return None
    if not isinstance(data, shape):
        problems.append(f"{path.name}: expected a JSON {'object' if shape is dict else 'array'}, found {type(data).__name__}")
        return None
    return data
