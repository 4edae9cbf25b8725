"""A problem the gate found: what is wrong, where, and the evidence to fix it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One gap between contracts, features and tests.

    `kind` is a stable, typed reason (`contract_without_scenario`, `undefined_step`, ...).
    `path` is relative to the project root when the file lives under it; `line` and `column`
    are 1-based and 0 when unknown.
    """

    kind: str
    path: str
    line: int
    column: int
    message: str
    evidence: str = ""

    @property
    def location(self) -> str:
        if self.line and self.column:
            return f"{self.path}:{self.line}:{self.column}"
        if self.line:
            return f"{self.path}:{self.line}"
        return self.path

    def render(self) -> str:
        text = f"{self.location}: {self.kind}: {self.message}"
        if self.evidence:
            text += "".join(f"\n    {line}" for line in self.evidence.splitlines())
        return text

    def to_json(self) -> dict[str, object]:
        return asdict(self) | {"location": self.location}


def display_path(path: Path, root: Path) -> str:
    """The path as users should see it: relative to the project root when it lies inside it."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(resolved)


def sort_problems(problems: list[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda problem: (problem.path, problem.line, problem.column, problem.kind))
