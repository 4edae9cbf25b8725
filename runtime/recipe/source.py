"""Read YAML (recipes, tool descriptors, server config) into plain Python data plus the position
of every key and value.

We compose the YAML into ruamel.yaml's node graph and build Python values ourselves, so that:
- no YAML tag ever constructs an object (`!!python/object` is rejected, never instantiated);
- duplicate keys are all reported, each with the line of the first occurrence;
- every value keeps its line and column for error messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from runtime.recipe.problems import Problem, format_path

MAX_RECIPE_BYTES = 256 * 1024
MAX_NODES = 20_000  # bounds alias expansion ("billion laughs") as well as plain size

_CORE = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_CORE + t for t in ("str", "int", "float", "bool", "null", "timestamp", "binary")}

Path = tuple[str | int, ...]


@dataclass
class YamlDocument:
    data: Any
    value_positions: dict[Path, tuple[int, int]] = field(default_factory=dict)
    key_positions: dict[Path, tuple[int, int]] = field(default_factory=dict)

    def position(self, path: Path, *, prefer_key: bool = False) -> tuple[int, int]:
        """The best known 1-based (line, col) for a path, falling back to its nearest ancestor."""
        for depth in range(len(path), -1, -1):
            prefix = path[:depth]
            first, second = (self.key_positions, self.value_positions) if prefer_key else (self.value_positions, self.key_positions)
            if prefix in first:
                return first[prefix]
            if prefix in second:
                return second[prefix]
        return (1, 1)


class _Builder:
    def __init__(self, source: str, what: str) -> None:
        self.source = source
        self.what = what
        self.problems: list[Problem] = []
        self.doc = YamlDocument(data=None)
        self.nodes_seen = 0

    def problem(self, node: Node, path: Path, message: str, code: str) -> None:
        mark = node.start_mark
        self.problems.append(Problem(self.source, mark.line + 1, mark.column + 1, format_path(path), message, code))

    def unknown_tag(self, node: Node, path: Path, tag: str) -> None:
        self.problem(node, path, f"unknown YAML tag {_shown(tag)}: {self.what}s use plain YAML only, no tags", "unknown_tag")

    def build(self, node: Node, path: Path) -> Any:
        self.nodes_seen += 1
        if self.nodes_seen > MAX_NODES:
            raise _TooLarge(node)
        self.doc.value_positions[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
        tag = getattr(node.tag, "value", node.tag) or ""
        if isinstance(node, MappingNode):
            if tag != _CORE + "map":
                self.unknown_tag(node, path, tag)
            return self.build_mapping(node, path)
        if isinstance(node, SequenceNode):
            if tag != _CORE + "seq":
                self.unknown_tag(node, path, tag)
            return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
        assert isinstance(node, ScalarNode)
        if tag not in _SCALAR_TAGS:
            self.unknown_tag(node, path, tag)
            return node.value
        return _scalar(tag, node.value)

    def build_mapping(self, node: MappingNode, path: Path) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        first_seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key_tag = getattr(key_node.tag, "value", key_node.tag)
            if key_tag == _CORE + "merge":
                self.problem(key_node, path, f"merge keys (<<) are not supported in {self.what}s: write the keys out", "merge_key")
                continue
            if not isinstance(key_node, ScalarNode):
                self.problem(key_node, path, "mapping keys must be plain text", "bad_key")
                continue
            key = _scalar(key_tag, key_node.value) if key_tag in _SCALAR_TAGS else key_node.value
            if not isinstance(key, str):
                key = str(key_node.value)
            line = key_node.start_mark.line + 1
            if key in first_seen:
                self.problem(
                    key_node, path + (key,), f"duplicate key {key!r} (first defined on line {first_seen[key]})", "duplicate_key"
                )
                continue
            first_seen[key] = line
            self.doc.key_positions[path + (key,)] = (line, key_node.start_mark.column + 1)
            result[key] = self.build(value_node, path + (key,))
        return result


class _TooLarge(Exception):
    def __init__(self, node: Node) -> None:
        self.node = node


def _shown(tag: str) -> str:
    return "!!" + tag[len(_CORE):] if tag.startswith(_CORE) else tag


def _scalar(tag: str, text: str) -> Any:
    kind = tag[len(_CORE):]
    if kind == "null":
        return None
    if kind == "bool":
        return text.lower() in ("true", "yes", "on")
    if kind == "int":
        cleaned = text.replace("_", "")
        try:
            return int(cleaned, 0) if cleaned.lower().startswith(("0x", "0o", "0b")) else int(cleaned)
        except ValueError:
            return text
    if kind == "float":
        lowered = text.lower().replace("_", "")
        if lowered in (".inf", "+.inf"):
            return float("inf")
        if lowered == "-.inf":
            return float("-inf")
        if lowered == ".nan":
            return float("nan")
        try:
            return float(lowered)
        except ValueError:
            return text
    # str, and timestamps/binary kept as the text the author wrote: recipes have no date fields.
    return text


def read_yaml(text: str, source: str, *, what: str = "recipe") -> tuple[YamlDocument, list[Problem]]:
    """Parse one YAML document. Returns the document and every structural problem found.

    `what` names the kind of file in messages ("recipe", "server config", ...)."""
    if len(text.encode("utf-8", errors="replace")) > MAX_RECIPE_BYTES:
        size = len(text.encode("utf-8", errors="replace"))
        return YamlDocument(data=None), [
            Problem(source, 0, 0, "", f"file is {size} bytes; {what}s may be at most {MAX_RECIPE_BYTES} bytes", "file_too_large")
        ]
    yaml = YAML(typ="rt", pure=True)
    try:
        nodes = list(yaml.compose_all(text))
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        message = " ".join(part for part in (error.context, error.problem) if part) or "invalid YAML"
        return YamlDocument(data=None), [Problem(source, line, col, "", f"YAML syntax error: {message}", "yaml_syntax")]
    except YAMLError as error:
        return YamlDocument(data=None), [Problem(source, 0, 0, "", f"YAML error: {error}", "yaml_syntax")]
    nodes = [n for n in nodes if n is not None]
    if not nodes:
        return YamlDocument(data=None), [Problem(source, 1, 1, "", f"the file is empty: a {what} is a YAML mapping", "empty")]
    if len(nodes) > 1:
        extra = nodes[1].start_mark
        return YamlDocument(data=None), [
            Problem(source, extra.line + 1, extra.column + 1, "", f"a {what} file holds one YAML document; found another here", "multiple_documents")
        ]
    builder = _Builder(source, what)
    try:
        builder.doc.data = builder.build(nodes[0], ())
    except _TooLarge as too_large:
        builder.problem(too_large.node, (), f"the document expands to more than {MAX_NODES} values (aliases included)", "too_many_nodes")
        builder.doc.data = None
    return builder.doc, builder.problems
