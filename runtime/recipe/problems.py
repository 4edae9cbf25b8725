"""Problems found in a recipe, each with a place a person can jump to."""

from __future__ import annotations

import difflib

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with a recipe. `line` and `col` are 1-based; 0 means "the whole file"."""

    source: str
    line: int
    col: int
    path: str
    message: str
    code: str

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}:{self.col}" if self.line else self.source
        at = f" {self.path}:" if self.path else ""
        return f"{where}:{at} {self.message} [{self.code}]"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class RecipeInvalid(Exception):
    """A recipe (or its run inputs) could not be accepted. Carries every problem found, sorted."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def format_path(parts: tuple[str | int, ...]) -> str:
    """('plan', 2, 'extract', 'fields', 'price') -> 'plan[2].extract.fields.price'."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            # An empty key, or one with characters a terminal cannot show, appears quoted with escapes.
            shown = part if part and part.isprintable() else repr(part)
            text += f".{shown}" if text else shown
    return text


def did_you_mean(word: str, choices: list[str] | set[str]) -> str:
    """A "; did you mean 'x'?" hint naming the closest choice, or "" when none is close."""
    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
