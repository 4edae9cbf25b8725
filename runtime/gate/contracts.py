"""Load and validate `contracts/*.yaml`.

The files are checked on ruamel.yaml's node graph rather than on loaded Python values, so every
problem keeps the line and column of the node that caused it, and explicit tags the schema does not
know (`!python/object`, `!custom`) are rejected instead of being constructed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from runtime.gate.problems import Problem, display_path

CONTRACT_ID_PATTERN = re.compile(r"[A-Z][A-Z0-9]*-\d{3}")

_YAML_CORE = "tag:yaml.org,2002:"
_KNOWN_TAGS = frozenset(
    _YAML_CORE + name
    for name in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp", "binary", "omap", "pairs", "set")
)
_STRING_TAG = _YAML_CORE + "str"
_WRITTEN_ID = re.compile(r"^[ \t-]*id:[ \t]*[\"']?(?P<id>[A-Z][A-Z0-9]*-\d{3})\b", re.MULTILINE)

_TOP_LEVEL_KEYS = ("contracts",)
_CONTRACT_KEYS = ("id", "owner", "statement", "source")
_SOURCE_KEYS = ("seed", "section")


@dataclass(frozen=True)
class ContractSource:
    seed: str
    section: str


@dataclass(frozen=True)
class Contract:
    """One behaviour the project promises; proven by the scenarios tagged `@<id>`."""

    id: str
    owner: str
    statement: str
    source: ContractSource
    path: str
    line: int
    column: int


@dataclass
class ContractCatalog:
    contracts: list[Contract] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # Ids written in the files, valid entries or not, so a broken entry's tags are not also "unknown".
    declared_ids: set[str] = field(default_factory=set)

    def by_id(self) -> dict[str, Contract]:
        return {contract.id: contract for contract in self.contracts}


def contract_files(root: Path) -> list[Path]:
    directory = root / "contracts"
    return sorted([*directory.glob("*.yaml"), *directory.glob("*.yml")])


def load_contracts(root: Path) -> ContractCatalog:
    """Load every contract file under `<root>/contracts`, collecting all problems instead of stopping."""
    catalog = ContractCatalog()
    directory = root / "contracts"
    if not directory.is_dir():
        catalog.problems.append(
            Problem(
                kind="missing_contracts_directory",
                path=display_path(directory, root),
                line=0,
                column=0,
                message="the project has no contracts/ directory; create contracts/<area>.yaml",
            )
        )
        return catalog
    # Duplicates are judged on every written id, so a broken entry still claims its id.
    first_seen: dict[str, str] = {}
    for path in contract_files(root):
        reader = _ContractFileReader(path, display_path(path, root))
        contracts = reader.read()
        duplicates: set[tuple[int, int]] = set()
        for contract_id, line, column in reader.declared_ids:
            earlier = first_seen.get(contract_id)
            if earlier is None:
                first_seen[contract_id] = f"{reader.shown_path}:{line}:{column}"
                continue
            duplicates.add((line, column))
            reader.problems.append(
                Problem(
                    kind="duplicate_contract_id",
                    path=reader.shown_path,
                    line=line,
                    column=column,
                    message=f"contract id {contract_id} is already defined; ids must be unique across contracts/",
                    evidence=f"first defined at {earlier}",
                )
            )
        catalog.contracts += [contract for contract in contracts if (contract.line, contract.column) not in duplicates]
        catalog.problems.extend(reader.problems)
    catalog.declared_ids = set(first_seen)
    return catalog


class _ContractFileReader:
    """Reads one contract file; every schema violation becomes a Problem at the offending node."""

    def __init__(self, path: Path, shown_path: str) -> None:
        self.path = path
        self.shown_path = shown_path
        self.problems: list[Problem] = []
        self.declared_ids: list[tuple[str, int, int]] = []  # (id, line, column) of every string id written

    def read(self) -> list[Contract]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            self._problem("unreadable_contract_file", 0, 0, f"cannot read the file: {error}")
            return []
        try:
            document = YAML(typ="rt").compose(text)
        except MarkedYAMLError as error:
            mark = error.problem_mark or error.context_mark
            line, column = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
            reason = error.problem or error.context or "invalid YAML"
            self._problem("yaml_syntax_error", line, column, f"invalid YAML: {reason}")
            self._recover_ids(text)
            return []
        if document is None:
            self._problem("empty_contract_file", 1, 1, "the file is empty; expected a top-level `contracts:` list")
            return []
        self._reject_unknown_tags(document)
        if not self._expect(document, MappingNode, "the file must be a mapping with a `contracts:` list"):
            return []
        entries = self._fields(document, _TOP_LEVEL_KEYS, "")
        contracts_node = entries.get("contracts")
        if contracts_node is None:
            self._missing(document, "contracts", "")
            return []
        if not self._expect(contracts_node, SequenceNode, "`contracts` must be a list of contracts"):
            return []
        contracts = []
        for index, entry in enumerate(contracts_node.value):
            contract = self._contract(entry, f"contracts[{index}]")
            if contract is not None:
                contracts.append(contract)
        return contracts

    def _recover_ids(self, text: str) -> None:
        # Best effort for a file that does not parse: its ids still exist for the author, so tags
        # naming them should not also be reported as unknown.
        for match in _WRITTEN_ID.finditer(text):
            line = text.count("\n", 0, match.start("id")) + 1
            column = match.start("id") - (text.rfind("\n", 0, match.start("id")) + 1) + 1
            self.declared_ids.append((match.group("id"), line, column))

    def _contract(self, node: Node, field_path: str) -> Contract | None:
        if not self._expect(node, MappingNode, f"{field_path} must be a mapping with {', '.join(_CONTRACT_KEYS)}"):
            return None
        entries = self._fields(node, _CONTRACT_KEYS, field_path)
        contract_id, owner, statement = (self._string(node, entries, key, field_path) for key in _CONTRACT_KEYS[:3])
        source = self._source(node, entries.get("source"), f"{field_path}.source")
        if contract_id is None:
            return None
        line, column = _position(entries["id"])
        self.declared_ids.append((contract_id, line, column))
        if not CONTRACT_ID_PATTERN.fullmatch(contract_id):
            self._problem(
                "malformed_contract_id",
                line,
                column,
                f"{field_path}.id {contract_id!r} must look like AREA-NNN (e.g. GATE-001)",
            )
            return None
        if owner is None or statement is None or source is None:
            return None
        return Contract(
            id=contract_id,
            owner=owner,
            statement=statement,
            source=source,
            path=self.shown_path,
            line=line,
            column=column,
        )

    def _source(self, contract_node: Node, node: Node | None, field_path: str) -> ContractSource | None:
        if node is None:
            self._missing(contract_node, "source", field_path.rsplit(".", 1)[0])
            return None
        if not self._expect(node, MappingNode, f"{field_path} must be a mapping with seed and section"):
            return None
        entries = self._fields(node, _SOURCE_KEYS, field_path)
        seed = self._string(node, entries, "seed", field_path)
        section = self._string(node, entries, "section", field_path)
        if seed is None or section is None:
            return None
        return ContractSource(seed=seed, section=section)

    def _fields(self, node: MappingNode, allowed: tuple[str, ...], field_path: str) -> dict[str, Node]:
        """The mapping's values by key; unknown and duplicate keys are reported, not kept."""
        found: dict[str, Node] = {}
        prefix = f"{field_path}." if field_path else ""
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, ScalarNode) else None
            if key not in allowed:
                shown = key if isinstance(key, str) else "<non-string key>"
                self._problem(
                    "unknown_field",
                    *_position(key_node),
                    f"unknown field {prefix}{shown}; allowed: {', '.join(allowed)}",
                )
                continue
            if key in found:
                self._problem("duplicate_field", *_position(key_node), f"field {prefix}{key} is given twice")
                continue
            found[key] = value_node
        return found

    def _string(self, parent: Node, entries: dict[str, Node], key: str, field_path: str) -> str | None:
        prefix = f"{field_path}." if field_path else ""
        node = entries.get(key)
        if node is None:
            self._missing(parent, key, field_path)
            return None
        if str(node.tag) not in _KNOWN_TAGS:
            return None  # already reported as unknown_yaml_tag
        if not isinstance(node, ScalarNode) or node.tag != _STRING_TAG:
            self._problem("wrong_type", *_position(node), f"{prefix}{key} must be a string")
            return None
        if not node.value.strip():
            self._problem("empty_field", *_position(node), f"{prefix}{key} must not be empty")
            return None
        return str(node.value)

    def _missing(self, parent: Node, key: str, field_path: str) -> None:
        prefix = f"{field_path}." if field_path else ""
        self._problem("missing_field", *_position(parent), f"missing required field {prefix}{key}")

    def _expect(self, node: Node, kind: type[Node], message: str) -> bool:
        if isinstance(node, kind):
            return True
        if str(node.tag) not in _KNOWN_TAGS:
            return False  # already reported as unknown_yaml_tag
        self._problem("wrong_type", *_position(node), message)
        return False

    def _reject_unknown_tags(self, node: Node) -> None:
        pending = [node]
        seen: set[int] = set()
        while pending:
            current = pending.pop()
            if id(current) in seen:  # aliases point back at nodes already checked
                continue
            seen.add(id(current))
            tag = str(current.tag)
            if tag not in _KNOWN_TAGS:
                self._problem("unknown_yaml_tag", *_position(current), f"unknown YAML tag {tag}; contracts use plain YAML")
            if isinstance(current, MappingNode):
                for key_node, value_node in current.value:
                    pending.extend((key_node, value_node))
            elif isinstance(current, SequenceNode):
                pending.extend(current.value)

    def _problem(self, kind: str, line: int, column: int, message: str) -> None:
        self.problems.append(Problem(kind=kind, path=self.shown_path, line=line, column=column, message=message))


def _position(node: Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1
