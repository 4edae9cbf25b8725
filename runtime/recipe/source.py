"""Read YAML (recipes, tool descriptors, server config) into plain Python data plus the position
of every key and value.

We compose the YAML into ruamel.yaml's node graph and build Python values ourselves, so that:
- no YAML tag ever constructs an object (`!!python/object` is rejected, never instantiated);
- duplicate keys and reused anchors are all reported, each with the line of the first occurrence;
- every value keeps its line and column for error messages;
- nothing in the text can make reading crash or run long: characters YAML forbids, nesting deeper
  than MAX_DEPTH (also through aliases), more than MAX_NODES values, and scalars no later stage can
  carry (scalars.py) are problems at their line and column, in our words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer, MaxDepthExceededError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.scanner import RoundTripScanner

from runtime.recipe.problems import Problem, format_path
from runtime.recipe.scalars import CORE, SCALAR_TAGS, ScalarRefused, refuse_unencodable, scalar_value

MAX_RECIPE_BYTES = 256 * 1024
MAX_NODES = 20_000  # bounds alias expansion ("billion laughs") as well as plain size
MAX_DEPTH = 64  # nesting levels; the deepest shipped recipe uses 7, an output schema rarely 20
MAX_CHARACTER_PROBLEMS = 10

# What YAML 1.2 forbids in a stream (section 5.1), the same set ruamel's reader refuses.
# Written as the forbidden ranges rather than the complement of the allowed ones: the same set
# (checked over every code point), compiled in a tenth of the time (about 5 ms of each start).
_FORBIDDEN_CHARACTER = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")

Path = tuple[str | int, ...]

_TOO_MANY_NODES = f"the document expands to more than {MAX_NODES} values (aliases included)"
_TOO_DEEP = f"nesting is deeper than {MAX_DEPTH} levels (aliases included)"


@dataclass
class YamlDocument:
    data: Any
    value_positions: dict[Path, tuple[int, int]] = field(default_factory=dict)
    key_positions: dict[Path, tuple[int, int]] = field(default_factory=dict)
    rejected: set[Path] = field(default_factory=set)
    """Paths whose value the reader refused (a tag, an out-of-range scalar): later checks skip them."""

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


def text_position(text: str, index: int) -> tuple[int, int]:
    """The 1-based (line, col) of `text[index]`, counted as ruamel counts its marks."""
    before = text[:index]
    breaks = list(_LINE_BREAK.finditer(before))
    line_start = breaks[-1].end() if breaks else 0
    return len(breaks) + 1, index - line_start - before.count("\ufeff", line_start) + 1


class _PathComposer(Composer):
    """ruamel's composer, noting the path it is composing so that a depth error can name it.
    Reused anchors are reported by _Builder, in our words, rather than warned about by ruamel."""

    def __init__(self, loader: Any = None) -> None:
        super().__init__(loader)
        self.warn_double_anchors = False
        self.path: list[str | int] = []
        self.nodes = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:  # stop composing early: the builder would refuse this many anyway
            raise _GaveUp(self.parser.peek_event().start_mark, "too_many_nodes")
        part = index.value if isinstance(index, ScalarNode) else index if isinstance(index, int) else None
        if part is None:  # the root, a mapping key, or a value under a complex key
            return super().compose_node(parent, index)
        self.path.append(part)
        node = super().compose_node(parent, index)
        self.path.pop()  # left in place when composing fails, so the error knows where it was
        return node


class _FlowScanner(RoundTripScanner):
    """ruamel's scanner, refusing flow collections nested deeper than MAX_DEPTH as soon as it meets
    them: past that it would look ahead for simple keys, at a cost that grows with the depth."""

    def fetch_flow_collection_start(self, TokenClass: Any, to_push: str) -> None:  # noqa: N803 - ruamel's name
        if len(self.flow_context) >= MAX_DEPTH:
            raise _GaveUp(self.reader.get_mark(), "too_deep")
        super().fetch_flow_collection_start(TokenClass, to_push)


class _GaveUp(Exception):
    """The scanner or composer stops early, at `mark`: `code` is too_deep or too_many_nodes."""

    def __init__(self, mark: Any, code: str) -> None:
        self.mark, self.code = mark, code


class _Stop(Exception):
    """Building cannot go on (too many values, too deep): one problem, then no data."""

    def __init__(self, node: Node, path: Path, message: str, code: str) -> None:
        self.node, self.path, self.message, self.code = node, path, message, code


class _Builder:
    def __init__(self, source: str, what: str, *, track_spans: bool = False) -> None:
        self.source = source
        self.what = what
        self.problems: list[Problem] = []
        self.doc = YamlDocument(data=None)
        self.nodes_seen = 0
        self.anchors: dict[str, Node] = {}
        self.reported_anchors: set[int] = set()  # reused anchors already reported (an alias re-visits them)
        self.spans: list[tuple[int, int, Path]] | None = [] if track_spans else None
        self.spanned: set[int] = set()

    def problem(self, node: Node, path: Path, message: str, code: str) -> None:
        mark = node.start_mark
        self.problems.append(Problem(self.source, mark.line + 1, mark.column + 1, format_path(path), message, code))

    def reject(self, node: Node, path: Path, message: str, code: str) -> None:
        self.problem(node, path, message, code)
        self.doc.rejected.add(path)

    def unknown_tag(self, node: Node, path: Path, tag: str) -> None:
        self.reject(node, path, f"unknown YAML tag {_shown(tag)}: {self.what}s use plain YAML only, no tags", "unknown_tag")

    def note_span(self, node: Node, path: Path) -> None:
        # Scalars only: a collection's span runs on over the comments after it, which belong to no value.
        if self.spans is not None and isinstance(node, ScalarNode) and id(node) not in self.spanned:  # aliases re-visit nodes
            self.spanned.add(id(node))
            self.spans.append((node.start_mark.index, node.end_mark.index if node.end_mark else node.start_mark.index, path))

    def note_anchor(self, node: Node, path: Path) -> None:
        anchor = getattr(node, "anchor", None)
        if not isinstance(anchor, str):
            return
        first = self.anchors.setdefault(anchor, node)
        if first is not node and id(node) not in self.reported_anchors:
            self.reported_anchors.add(id(node))
            self.problem(
                node, path, f"anchor &{anchor} is already defined on line {first.start_mark.line + 1}; give each anchor its own name", "duplicate_anchor"
            )

    def build(self, node: Node, path: Path) -> Any:
        self.nodes_seen += 1
        if self.nodes_seen > MAX_NODES:
            raise _Stop(node, (), _TOO_MANY_NODES, "too_many_nodes")
        if len(path) > MAX_DEPTH:
            raise _Stop(node, path, _TOO_DEEP, "too_deep")
        self.doc.value_positions[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
        self.note_span(node, path)
        self.note_anchor(node, path)
        tag = getattr(node.tag, "value", node.tag) or ""
        if isinstance(node, MappingNode):
            if tag != CORE + "map":
                self.unknown_tag(node, path, tag)
            return self.build_mapping(node, path)
        if isinstance(node, SequenceNode):
            if tag != CORE + "seq":
                self.unknown_tag(node, path, tag)
            return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
        assert isinstance(node, ScalarNode)
        text = _scalar_text(node)
        if tag not in SCALAR_TAGS:
            self.unknown_tag(node, path, tag)
            return _sanitized(text)
        try:
            return scalar_value(tag, text)
        except ScalarRefused as refused:
            self.reject(node, path, str(refused), refused.code)
            return _sanitized(text)

    def build_mapping(self, node: MappingNode, path: Path) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        first_seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key_tag = getattr(key_node.tag, "value", key_node.tag)
            if key_tag == CORE + "merge":
                self.problem(key_node, path + ("<<",), f"merge keys (<<) are not supported in {self.what}s: write the keys out", "merge_key")
                continue
            if not isinstance(key_node, ScalarNode):
                self.problem(key_node, path, "mapping keys must be plain text", "bad_key")
                continue
            key = key_node.value  # the text as written: `1:` and `true:` are the keys "1" and "true"
            self.note_span(key_node, path + (key,))
            if key_tag not in SCALAR_TAGS:
                self.unknown_tag(key_node, path + (key,), key_tag)
                continue
            try:
                refuse_unencodable(key, "a key")
            except ScalarRefused as refused:
                self.problem(key_node, path + (key,), str(refused), refused.code)
                continue
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

    def innermost_path(self, index: int) -> Path:
        """The key or scalar value whose text covers `index`; the root when none does."""
        return next((path for start, end, path in self.spans or () if start <= index < max(end, start + 1)), ())


def _shown(tag: str) -> str:
    return "!!" + tag[len(CORE):] if tag.startswith(CORE) else tag


def _scalar_text(node: ScalarNode) -> str:
    """A scalar's text as YAML means it. ruamel's round-trip scanner marks each fold of a `>`
    (folded) scalar with U+0007 in the node's value, for its own constructor to strip; this builder
    reads nodes itself, so it strips them too (a real U+0007 is refused in YAML text anyway)."""
    return node.value.replace("\a", "") if node.style == ">" and isinstance(node.value, str) else node.value


def _sanitized(text: str) -> str:
    """Refused text, made safe to pass through later checks (which skip its path anyway)."""
    return re.sub("[\x00\ud800-\udfff]", "\ufffd", text)


def _character_problems(text: str, forbidden: list[re.Match[str]], builder: _Builder | None, source: str, what: str) -> list[Problem]:
    problems = []
    for found in forbidden[:MAX_CHARACTER_PROBLEMS]:
        char = found.group()
        code_point = f"U+{ord(char):04X}"
        escape = f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
        if "\ud800" <= char <= "\udfff":
            message = f"lone surrogate {code_point} is not a character and cannot be written as UTF-8; remove it"
        elif char == "\x00":
            message = f"NUL character ({code_point}) is not allowed in a {what}; remove it"
        else:
            message = f"control character {code_point} is not allowed in YAML text; remove it, or write it as \"{escape}\" inside double quotes"
        line, col = text_position(text, found.start())
        path = builder.innermost_path(found.start()) if builder else ()
        problems.append(Problem(source, line, col, format_path(path), message, "bad_character"))
    if len(forbidden) > MAX_CHARACTER_PROBLEMS:
        last = problems[-1]
        more = len(forbidden) - MAX_CHARACTER_PROBLEMS
        problems[-1] = Problem(last.source, last.line, last.col, last.path, f"{last.message} ({more} more such characters not listed)", last.code)
    return problems


def read_yaml(text: str, source: str, *, what: str = "recipe") -> tuple[YamlDocument, list[Problem]]:
    """Parse one YAML document. Returns the document and every structural problem found.

    `what` names the kind of file in messages ("recipe", "server config", ...). When the text holds
    characters YAML forbids, those are the problems reported (each at its key or value) and the
    document carries no data."""
    encoded = text.encode("utf-8", errors="replace")
    if len(encoded) > MAX_RECIPE_BYTES:
        line, col = text_position(text, len(encoded[:MAX_RECIPE_BYTES].decode("utf-8", errors="ignore")))
        message = f"file is {len(encoded)} bytes; {what}s may be at most {MAX_RECIPE_BYTES} bytes (the limit is passed here)"
        return YamlDocument(data=None), [Problem(source, line, col, "", message, "file_too_large")]
    forbidden = list(_FORBIDDEN_CHARACTER.finditer(text))
    if forbidden:
        # Read a copy with each forbidden character replaced by U+FFFD (same length, same positions),
        # only to find the key or value each one sits in.
        text = _FORBIDDEN_CHARACTER.sub("\ufffd", text)
    doc, problems, builder = _compose_and_build(text, source, what, track_spans=bool(forbidden))
    if forbidden:
        # Problems the copy shows elsewhere are real too; those naming a replacement character are not.
        elsewhere = [p for p in problems if "\ufffd" not in p.path + p.message]
        return YamlDocument(data=None), _character_problems(text, forbidden, builder, source, what) + elsewhere
    return doc, problems


def _compose_and_build(text: str, source: str, what: str, *, track_spans: bool) -> tuple[YamlDocument, list[Problem], _Builder | None]:
    yaml = YAML(typ="rt", pure=True)
    yaml.Composer = _PathComposer
    yaml.Scanner = _FlowScanner
    yaml.max_depth = MAX_DEPTH + 1  # ruamel counts the root as depth 1
    try:
        nodes = list(yaml.compose_all(text))
    except (MaxDepthExceededError, _GaveUp) as error:
        mark, code = (error.mark, error.code) if isinstance(error, _GaveUp) else (error.problem_mark, "too_deep")
        # Too deep: the value being composed when the nesting went too deep. Too many: the document.
        path = tuple(yaml.composer.path) if code == "too_deep" else ()
        message = _TOO_DEEP if code == "too_deep" else _TOO_MANY_NODES
        return YamlDocument(data=None), [Problem(source, mark.line + 1, mark.column + 1, format_path(path), message, code)], None
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = " ".join(part for part in (error.context, error.problem) if part) or "invalid YAML"
        return YamlDocument(data=None), [Problem(source, line, col, "", f"YAML syntax error: {message}", "yaml_syntax")], None
    except YAMLError as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else "invalid YAML"
        return YamlDocument(data=None), [Problem(source, 1, 1, "", f"YAML error: {first_line}", "yaml_syntax")], None
    nodes = [n for n in nodes if n is not None]
    if not nodes:
        return YamlDocument(data=None), [Problem(source, 1, 1, "", f"the file is empty: a {what} is a YAML mapping", "empty")], None
    if len(nodes) > 1:
        extra = nodes[1].start_mark
        message = f"a {what} file holds one YAML document; found another here"
        return YamlDocument(data=None), [Problem(source, extra.line + 1, extra.column + 1, "", message, "multiple_documents")], None
    builder = _Builder(source, what, track_spans=track_spans)
    try:
        builder.doc.data = builder.build(nodes[0], ())
    except _Stop as stop:
        builder.problem(stop.node, stop.path, stop.message, stop.code)
        builder.doc.data = None
    return builder.doc, builder.problems, builder
