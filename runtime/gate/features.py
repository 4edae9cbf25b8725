"""Parse `features/**/*.feature` with the official Gherkin parser, keeping every position."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gherkin.errors import CompositeParserException, ParserException
from gherkin.parser import Parser

from runtime.gate.contracts import CONTRACT_ID_PATTERN
from runtime.gate.problems import Problem, display_path

_ERROR_POSITION_PREFIX = re.compile(r"^\(\d+:\d+\): ")
# A tag written like a contract id, whatever its case, digit count or separator: `@guard-010`,
# `@GUARD-10`, `@GUARD_010`. A tag of this shape is read as a contract id and must be well formed.
_CONTRACT_ID_ATTEMPT = re.compile(r"(?P<area>[A-Za-z][A-Za-z0-9]*)[-_](?P<number>\d+)")


@dataclass(frozen=True)
class Tag:
    name: str  # without the leading "@"
    line: int
    column: int

    @property
    def looks_like_contract_id(self) -> bool:
        return CONTRACT_ID_PATTERN.fullmatch(self.name) is not None

    @property
    def is_mistyped_contract_id(self) -> bool:
        return not self.looks_like_contract_id and _CONTRACT_ID_ATTEMPT.fullmatch(self.name) is not None

    @property
    def corrected_contract_id(self) -> str:
        """The well-formed id a mistyped tag most likely meant: upper case, `-`, three digits."""
        match = _CONTRACT_ID_ATTEMPT.fullmatch(self.name)
        if match is None:
            return self.name
        return f"{match.group('area').upper()}-{int(match.group('number')):03d}"


@dataclass(frozen=True)
class FeatureStep:
    keyword: str
    text: str
    line: int
    column: int


@dataclass(frozen=True)
class FeatureScenario:
    """A Scenario or Scenario Outline, with the tags it carries or inherits from its Feature and Rule."""

    feature_path: str  # as shown to users (relative to the root)
    feature_file: str  # resolved absolute path, the key tests are matched on
    name: str
    line: int
    column: int
    tags: tuple[Tag, ...]
    steps: tuple[FeatureStep, ...]

    @property
    def location(self) -> str:
        return f"{self.feature_path}:{self.line}:{self.column}"

    @property
    def contract_ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(tag.name for tag in self.tags if tag.looks_like_contract_id))


@dataclass(frozen=True)
class TagUse:
    """One written tag, wherever it sits (Feature, Rule, Scenario or Examples)."""

    tag: Tag
    feature_path: str


@dataclass
class FeatureCatalog:
    scenarios: list[FeatureScenario] = field(default_factory=list)
    tag_uses: list[TagUse] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def feature_files(root: Path) -> list[Path]:
    return sorted((root / "features").rglob("*.feature"))


def load_features(root: Path) -> FeatureCatalog:
    """Parse every feature file under `<root>/features`; syntax errors become problems, not exceptions."""
    catalog = FeatureCatalog()
    directory = root / "features"
    if not directory.is_dir():
        catalog.problems.append(
            Problem(
                kind="missing_features_directory",
                path=display_path(directory, root),
                line=0,
                column=0,
                message="the project has no features/ directory; create features/<area>_<topic>.feature",
            )
        )
        return catalog
    for path in feature_files(root):
        _read_feature_file(path, display_path(path, root), catalog)
    return catalog


def _read_feature_file(path: Path, shown_path: str, catalog: FeatureCatalog) -> None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        catalog.problems.append(Problem("unreadable_feature_file", shown_path, 0, 0, f"cannot read the file: {error}"))
        return
    try:
        document = Parser().parse(text)
    except CompositeParserException as composite:
        for error in composite.errors:
            catalog.problems.append(_syntax_problem(error, shown_path))
        return
    except ParserException as error:
        catalog.problems.append(_syntax_problem(error, shown_path))
        return
    feature = document.get("feature")
    if not feature:
        return  # an empty file or one holding only comments declares nothing
    feature_file = str(path.resolve())
    feature_tags = _tags(feature.get("tags", []))
    _record_tags(catalog, shown_path, feature_tags)
    names_seen: dict[str, int] = {}
    for scenario in _scenarios(feature.get("children", []), feature_tags, shown_path, feature_file, catalog):
        earlier_line = names_seen.get(scenario.name)
        if earlier_line is not None:
            # pytest-bdd keys scenarios by name, so the earlier one could never be bound by a test.
            catalog.problems.append(
                Problem(
                    kind="duplicate_scenario_name",
                    path=shown_path,
                    line=scenario.line,
                    column=scenario.column,
                    message=f"scenario name {scenario.name!r} is already used in this feature; pytest-bdd binds "
                    "only the last scenario of a name, so rename one",
                    evidence=f"first used at {shown_path}:{earlier_line}",
                )
            )
        names_seen.setdefault(scenario.name, scenario.line)
        catalog.scenarios.append(scenario)


def _scenarios(
    children: Iterable[Mapping[str, Any]],
    inherited_tags: tuple[Tag, ...],
    shown_path: str,
    feature_file: str,
    catalog: FeatureCatalog,
) -> Iterable[FeatureScenario]:
    background_steps: tuple[FeatureStep, ...] = ()
    for child in children:
        if "background" in child:
            background_steps = _steps(child["background"].get("steps", []))
        elif "rule" in child:
            rule = child["rule"]
            rule_tags = _tags(rule.get("tags", []))
            _record_tags(catalog, shown_path, rule_tags)
            for scenario in _scenarios(
                rule.get("children", []), inherited_tags + rule_tags, shown_path, feature_file, catalog
            ):
                yield FeatureScenario(
                    feature_path=scenario.feature_path,
                    feature_file=scenario.feature_file,
                    name=scenario.name,
                    line=scenario.line,
                    column=scenario.column,
                    tags=scenario.tags,
                    steps=background_steps + scenario.steps,
                )
        elif "scenario" in child:
            scenario = child["scenario"]
            own_tags = _tags(scenario.get("tags", []))
            _record_tags(catalog, shown_path, own_tags)
            for examples in scenario.get("examples", []):
                _record_tags(catalog, shown_path, _tags(examples.get("tags", [])))
            yield FeatureScenario(
                feature_path=shown_path,
                feature_file=feature_file,
                name=scenario["name"],
                line=scenario["location"]["line"],
                column=scenario["location"]["column"],
                tags=inherited_tags + own_tags,
                steps=background_steps + _steps(scenario.get("steps", [])),
            )


def _tags(raw_tags: Iterable[Mapping[str, Any]]) -> tuple[Tag, ...]:
    return tuple(
        Tag(name=raw["name"].removeprefix("@"), line=raw["location"]["line"], column=raw["location"]["column"])
        for raw in raw_tags
    )


def _steps(raw_steps: Iterable[Mapping[str, Any]]) -> tuple[FeatureStep, ...]:
    return tuple(
        FeatureStep(
            keyword=raw["keyword"].strip(),
            text=raw["text"],
            line=raw["location"]["line"],
            column=raw["location"]["column"],
        )
        for raw in raw_steps
    )


def _record_tags(catalog: FeatureCatalog, shown_path: str, tags: Iterable[Tag]) -> None:
    catalog.tag_uses.extend(TagUse(tag=tag, feature_path=shown_path) for tag in tags)


def _syntax_problem(error: ParserException, shown_path: str) -> Problem:
    location = error.location or {}
    return Problem(
        kind="feature_syntax_error",
        path=shown_path,
        line=int(location.get("line") or 0),
        column=int(location.get("column") or 0),
        message="invalid Gherkin: " + _ERROR_POSITION_PREFIX.sub("", str(error.args[0])),
    )
