"""The recipe examples of the documentation, found by one rule and validated like any recipe file.

The rule (docs/contributing/index.md says it to writers): every fenced ```yaml block in a page is a
recipe example, validated by `verity recipe validate`, unless its first line is a comment starting
with `# fragment`. A fragment must still parse as YAML. So a block that is only part of a recipe
is excluded because the page says so where the reader sees it, never because it failed.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

# An opening fence may be indented (inside a list item); its block closes at a fence of the same indent.
_OPENING = re.compile(r"^(?P<indent>[ \t]*)```\s*(?:yaml|yml)\s*$")
FRAGMENT_MARK = "# fragment"


@dataclass(frozen=True)
class Block:
    page: Path
    first_line: int  # the page's line number of the block's first line (1-based)
    indent: int
    text: str

    @property
    def is_fragment(self) -> bool:
        first = self.text.lstrip("\n").split("\n", 1)[0].strip()
        return first.startswith(FRAGMENT_MARK)


@dataclass(frozen=True)
class Problem:
    page: Path
    line: int
    col: int
    message: str
    code: str

    def where(self, root: Path) -> str:
        page = self.page.relative_to(root) if self.page.is_relative_to(root) else self.page
        return f"{page}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Findings:
    examples: list[Block]
    fragments: list[Block]
    problems: list[Problem]


def yaml_blocks(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").split("\n")
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _OPENING.match(lines[index])
        index += 1
        if opening is None:
            continue
        indent = opening.group("indent")
        start = index
        while index < len(lines) and lines[index].rstrip() != f"{indent}```":
            index += 1
        if index == len(lines):
            raise ValueError(f"{page}:{start}: a ```yaml block that never closes")
        body = "\n".join(line[len(indent):] if line.startswith(indent) else line for line in lines[start:index])
        blocks.append(Block(page=page, first_line=start + 1, indent=len(indent), text=body + "\n"))
        index += 1
    return blocks


def documentation_pages(root: Path) -> list[Path]:
    """README.md and every page under docs/, in a stable order."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def check_examples(pages: list[Path], verity: Path) -> Findings:
    """Validate every recipe example of `pages` with one `verity recipe validate --json` call."""
    blocks = [block for page in pages for block in yaml_blocks(page)]
    examples = [block for block in blocks if not block.is_fragment]
    fragments = [block for block in blocks if block.is_fragment]
    problems = [problem for block in fragments if (problem := _fragment_problem(block)) is not None]
    if examples:
        problems.extend(_validate(examples, verity))
    return Findings(examples=examples, fragments=fragments, problems=problems)


def _fragment_problem(block: Block) -> Problem | None:
    try:
        YAML(typ="safe", pure=True).load(io.StringIO(block.text))
    except YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = block.first_line + (mark.line if mark is not None else 0)
        return Problem(block.page, line, 1, f"a fragment that is not YAML: {error}", "fragment_not_yaml")
    return None


def _validate(examples: list[Block], verity: Path) -> list[Problem]:
    with tempfile.TemporaryDirectory(prefix="verity-doc-examples-") as scratch:
        files = {}
        for number, block in enumerate(examples):
            path = Path(scratch) / f"example-{number}.yaml"
            path.write_text(block.text, encoding="utf-8")
            files[path.name] = block
        done = subprocess.run(
            [str(verity), "recipe", "validate", "--json", *files],
            cwd=scratch,
            capture_output=True,
            text=True,
            timeout=120,
        )
    if done.returncode not in (0, 3):
        raise RuntimeError(f"verity recipe validate failed ({done.returncode}): {done.stderr[-2000:]}")
    report = json.loads(done.stdout)
    problems = []
    for checked in report["files"]:
        block = files[Path(checked["file"]).name]
        for problem in checked["problems"]:
            # The validator counts lines from 1 in the block; the page's line adds the block's start.
            line = block.first_line + max(problem["line"], 1) - 1
            col = max(problem["col"], 1) + block.indent
            message = f"{problem['path']}: {problem['message']}" if problem["path"] else problem["message"]
            problems.append(Problem(block.page, line, col, message, problem["code"]))
    return problems


def verity_command() -> Path:
    """The `verity` console script of the environment running the tests: what a reader types."""
    return Path(sys.executable).with_name("verity")
