"""Hypothesis strategies that mutate valid recipes, for the loader's fuzz test.

Every mutation starts from a recipe the suite ships (recipes/, the demo, tests/fixtures/recipes/)
and changes it in its values only (characters and placeholders inside strings, numbers past their
bounds: mostly still valid, so compile and fill are reached), at the text level (characters and
lines anywhere), or at the structure level (values, keys, types, shared subtrees that become
anchors and aliases), or both. The pools below hold the
classes of input that once crashed or misled the loader, so each run reaches them often.
"""

from __future__ import annotations

import copy
import functools
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from ruamel.yaml import YAML

from runtime.recipe.schema import recipe_json_schema
from runtime.recipe.source import read_yaml

REPO = Path(__file__).resolve().parents[2]
_FIXTURE_RECIPES = REPO / "tests" / "fixtures" / "recipes"
SEED_FILES = sorted(
    [
        REPO / "runtime" / "demo" / "demo-quote.yaml",
        *(REPO / "recipes").glob("*.yaml"),
        *(path for path in _FIXTURE_RECIPES.rglob("*.yaml") if "registries" not in path.relative_to(_FIXTURE_RECIPES).parts),
    ]
)
SEEDS = {path: path.read_text(encoding="utf-8") for path in SEED_FILES}


@functools.cache
def _seed_data(seed: Path) -> Any:
    """A seed's parsed YAML, parsed once when a case first needs it and copied per case: parsing
    every seed when the module is imported cost each pytest process that collects the suite
    (every xdist worker, `verity bdd validate`) about 1 s of CPU."""
    return read_yaml(SEEDS[seed], str(seed))[0].data


_HUGE_DIGITS = "9" * 5000

# Text fragments: characters YAML forbids, lone surrogates (raw and escaped), NULs, YAML syntax,
# tags, anchors, placeholders (cyclic, unknown, unbalanced), numbers past every bound, non-ASCII.
TOKENS = [
    "\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\x1b", "\x7f", "\x85", "\x9f", "\ud800", "\udfff", "\ufeff", "\ufffe",
    "\uffff", "\u2028", "\t", "\r", "\r\n", "\n", " ", "{", "}", "{{", "}}", "[", "]", ":", ": ", "- ", ",", "&a ", "*a", "&a [*a] ",
    "!!python/object/apply:os.system ", "!tag ", "!!str ", "!!int ", "!!map ", "<<: ", "? ", "|", ">-", "#", "'", '"', "\\", "%",
    "@", "`", "---\n", "...\n", '"\\ud800"', '"\\udc00x"', '"\\0"', '"\\x00"', '"\\U0010ffff"', "{goal}", "{start_url}", "{query}",
    "{nope}", "{0}", "{a.b}", "{x!r}", "{x:>5}", _HUGE_DIGITS, "0x" + "f" * 4000, "-" + _HUGE_DIGITS, "1e999", "-1e999", ".nan",
    ".inf", "1_000", "0o17", "0b101", "~", "null", "true", "ü", "用浏览器", "😀", "\u202e", "\u0301",
]
# Inside a string: placeholders of every sort, escapes that become odd characters, plain oddities.
TEXT_TOKENS = [
    "{goal}", "{start_url}", "{query}", "{metal}", "{site}", "{nope}", "{{", "}}", "{{x}}", "{", "}", "{}", "{0}", "{a.b}", "{x!r}",
    ":70000", ":65536", ":0", ":8080", "*.", "\n", "\r\n", "\u3000", "\t", "{goal:>3}", "\ud800", "\udc00", "\x00", "\x01", "\x1b", "\x7f", "\u2028", "\ufffe", "用浏览器", "😀", "\t", "\n", " ", "",
]


def _key_words() -> st.SearchStrategy[str]:
    # Deferred: the recipe's JSON Schema is built when a case first draws a key, not at collection.
    return st.sampled_from(sorted({key for definition in recipe_json_schema()["$defs"].values() for key in definition.get("properties", {})}))


KEYS = st.one_of(
    st.deferred(_key_words),
    st.text(max_size=8),
    st.sampled_from(["", " ", "\ud800", "\x00", "<<", "用浏览器", "1", "true", "~", "{goal}"]),
)


@dataclass(frozen=True)
class MutatedRecipe:
    seed: Path
    text: str
    how: tuple[str, ...]

    def __repr__(self) -> str:  # what Hypothesis prints for a failing example
        return f"MutatedRecipe(seed={self.seed.name!r}, how={self.how!r}, text={self.text[:3000]!r})"


def _nested(depth: int, flow: bool) -> str:
    if flow:
        return "[" * depth + "]" * depth
    return "".join("\n" + "  " * level + "k:" for level in range(depth)) + " v"


_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_PLAIN_VALUE = re.compile(r"^(\s*(?:- )?[A-Za-z_][\w-]*: )([^\s\"'{\[&*!|>#%@`][^#\n]*?)\s*$", re.MULTILINE)
_NUMBER_VALUE = re.compile(r"^(\s*(?:- )?[A-Za-z_][\w-]*: )(-?\d+)\s*$", re.MULTILINE)
NUMBER_TOKENS = [_HUGE_DIGITS, "0x" + "f" * 4000, "9" * 20, "0x" + "f" * 40, "-" + "9" * 30, "1e999", "-1e999", ".inf", "-.inf", ".nan", "1_0", "0o17", "1.5"]
# YAML written as is into a dumped structure, where a dumper could not write it (a number past
# JSON's reach, nesting deeper than the limit, a self-holding alias).
RAW_TOKENS = [*NUMBER_TOKENS, "[" * 70 + "]" * 70, "[" * 2000 + "]" * 2000, "&self [*self]"]
_RAW_SENTINEL = re.compile(r"""["']?__raw(\d+)__["']?""")


def _raw(index: int) -> str:
    return f"__raw{index}__"


def _with_raw_tokens(text: str) -> str:
    return _RAW_SENTINEL.sub(lambda found: RAW_TOKENS[int(found.group(1))], text)


@st.composite
def _value_edit(draw: st.DrawFn, text: str) -> tuple[str, str] | None:
    """Change a scalar value in place, so that the recipe mostly stays valid YAML and a valid
    recipe: a character or placeholder inside a string (written as a JSON escape in double
    quotes), or a number past its bounds."""
    kind = draw(st.sampled_from(["in_quotes", "in_quotes", "requote", "requote", "number", "nest_value", "anchor"]))
    pattern = {"in_quotes": _QUOTED, "number": _NUMBER_VALUE}.get(kind, _PLAIN_VALUE)
    found = list(pattern.finditer(text))
    if not found:
        return None
    match = draw(st.sampled_from(found))
    if kind == "nest_value":
        depth = draw(st.sampled_from([63, 64, 65, 2000]))
        return text[: match.start(2)] + _nested(depth, flow=True) + text[match.end(2):], f"nest value {depth}@{match.start(2)}"
    if kind == "anchor":  # the same anchor name on two values: the second is a reused anchor
        first, second = sorted((match.start(2), draw(st.sampled_from(found)).start(2)))
        text = text[:second] + "&twice " + text[second:]
        return (text[:first] + "&twice " + text[first:] if first != second else text), f"anchor &twice@{first},{second}"
    if kind == "number":
        token = draw(st.sampled_from(NUMBER_TOKENS))
        return text[: match.start(2)] + token + text[match.end(2):], f"number {token[:12]}@{match.start(2)}"
    token = draw(st.sampled_from(TEXT_TOKENS))
    escaped = json.dumps(token)[1:-1]  # JSON escapes are YAML double-quoted escapes too
    if kind == "in_quotes":
        at = draw(st.integers(match.start() + 1, match.end() - 1))
        return text[:at] + escaped + text[at:], f"in quotes {token!r}@{at}"
    value = match.group(2)
    at = draw(st.integers(0, len(value)))
    quoted = json.dumps(value[:at] + token + value[at:])
    return text[: match.start(2)] + quoted + text[match.end(2):], f"requote {token!r}@{match.start(2)}"


@st.composite
def _text_edit(draw: st.DrawFn, text: str) -> tuple[str, str]:
    if draw(st.booleans()):
        edited = draw(_value_edit(text))
        if edited is not None:
            return edited
    at = draw(st.integers(0, len(text)))
    kind = draw(st.sampled_from(["insert", "delete", "replace", "duplicate_line", "drop_line", "nest", "indent"]))
    if kind == "insert":
        token = draw(st.one_of(st.sampled_from(TOKENS), st.text(max_size=4)))
        return text[:at] + token + text[at:], f"insert {token[:12]!r}@{at}"
    if kind == "delete":
        length = draw(st.integers(1, 40))
        return text[:at] + text[at + length:], f"delete {length}@{at}"
    if kind == "replace":
        token = draw(st.sampled_from(TOKENS))
        return text[:at] + token + text[at + 1:], f"replace {token[:12]!r}@{at}"
    lines = text.splitlines(keepends=True) or [""]
    index = draw(st.integers(0, len(lines) - 1))
    if kind == "duplicate_line":  # duplicate keys, duplicate anchors, repeated steps
        return "".join(lines[: index + 1] + [lines[index]] + lines[index + 1:]), f"duplicate line {index}"
    if kind == "drop_line":
        return "".join(lines[:index] + lines[index + 1:]), f"drop line {index}"
    if kind == "indent":
        return "".join(lines[:index] + [" " * draw(st.integers(1, 6)) + lines[index]] + lines[index + 1:]), f"indent line {index}"
    flow = draw(st.booleans())
    depth = draw(st.sampled_from([3, 63, 64, 65, 200, 2000] if flow else [3, 63, 64, 65, 120]))
    return text[:at] + _nested(depth, flow) + text[at:], f"nest {depth} {'flow' if flow else 'block'}@{at}"


def _leaf_values() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.sampled_from([2**63, -(2**63) - 1, 10**30, 0, -1, 100, 600_001]),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=12),
        st.sampled_from(TOKENS),
        st.integers(0, len(RAW_TOKENS) - 1).map(_raw),
    )


@st.composite
def _step_snippet(draw: st.DrawFn) -> dict[str, Any]:
    """A plan step that holds an odd string or a raw token where one is allowed."""
    text = draw(st.sampled_from(TEXT_TOKENS))
    raw = _raw(draw(st.integers(0, len(RAW_TOKENS) - 1)))
    return draw(
        st.sampled_from(
            [
                {"act": {"click": {"css": "#go"}, "expect": {"element": {"css": "#q", "value": text}}}},
                {"verify": [{"element": {"css": "#q", "value": text}}]},
                {"verify": [{"text_includes": text}, {"title_includes": text}]},
                {"wait": {"text": text}},
                {"wait": {"url": text}},
                {"observe": {"max_elements": raw}},
                {"extract": {"fields": {"f": {"css": text}}}},
                {"close": {"summary": text}},
                {"agent": {"task": text, "done_when": [{"title_includes": text}]}},
            ]
        )
    )


def _values() -> st.SearchStrategy[Any]:
    return st.recursive(_leaf_values(), lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)), max_leaves=8)


def _paths(data: Any, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, path + (key,))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, path + (index,))
    return found


def _at(data: Any, path: tuple) -> Any:
    for part in path:
        data = data[part]
    return data


@st.composite
def _splice(draw: st.DrawFn, data: Any) -> tuple[Any, str]:
    """Put a step or an output schema that holds odd values where the language allows them."""
    if not isinstance(data, dict):
        return data, "nothing to splice into"
    if draw(st.booleans()) and isinstance(data.get("plan"), list):
        data["plan"].insert(draw(st.integers(0, max(len(data["plan"]) - 1, 0))), draw(_step_snippet()))
        return data, "splice a step"
    number = _raw(draw(st.integers(0, len(NUMBER_TOKENS) - 1)))
    keyword = draw(st.sampled_from(["maximum", "minimum", "multipleOf", "maxLength", "const", "default"]))
    data["output"] = {"schema": {"type": "object", "properties": {"x": {"type": "number", keyword: number}}}}
    return data, f"splice an output schema with {keyword}"


@st.composite
def _structure_edit(draw: st.DrawFn, data: Any) -> tuple[Any, str]:
    """Change one place in the data tree (in place; the root may be replaced)."""
    paths = _paths(data)
    path = draw(st.sampled_from(paths))
    kinds = ["edit_text"] * 4 + ["splice"] * 3 + ["raw", "replace", "delete", "add_key", "wrap", "unwrap", "stringify", "share", "nest"]
    kind = draw(st.sampled_from(kinds))
    target = _at(data, path)
    if kind == "splice":
        return draw(_splice(data))
    if kind == "raw":
        value = _raw(draw(st.integers(0, len(RAW_TOKENS) - 1)))
    elif kind == "edit_text":  # inside a string: mostly still a valid recipe, now with odd text in it
        strings = [p for p in paths if isinstance(_at(data, p), str)]
        if not strings:
            return data, "no text to edit"
        domains = [p for p in strings if "allowed_domains" in p]  # where a stray newline once passed
        path = draw(st.sampled_from(domains if domains and draw(st.booleans()) else strings))
        text = _at(data, path)
        at = draw(st.integers(0, len(text)))
        value = text[:at] + draw(st.sampled_from(TEXT_TOKENS)) + text[at:]
        kind = "edit text"
    elif kind == "replace":
        value = draw(_values())
    elif kind == "wrap":
        value = [target]
    elif kind == "unwrap":
        value = target[0] if isinstance(target, list) and target else next(iter(target.values()), None) if isinstance(target, dict) else target
    elif kind == "stringify":
        value = json.dumps(target, default=str)
    elif kind == "share":  # the same object in two places: the dump writes an anchor and an alias
        value = _at(data, draw(st.sampled_from([p for p in paths if p != path[: len(p)]] or [path])))
    elif kind == "nest":
        value = target
        for _ in range(draw(st.sampled_from([10, 63, 64, 70]))):
            value = [value]
    elif kind == "add_key" and isinstance(target, dict):
        target[draw(KEYS)] = draw(_values())
        return data, f"add key at {path}"
    elif kind == "delete" and path:
        parent = _at(data, path[:-1])
        del parent[path[-1]]
        return data, f"delete {path}"
    else:
        return data, f"nothing at {path}"
    if not path:
        return value, f"{kind} root"
    _at(data, path[:-1])[path[-1]] = value
    return data, f"{kind} {path}"


def _dump(data: Any, block: bool, ascii_only: bool) -> str:
    """Block YAML through ruamel when it can write the data, else JSON (which is YAML too)."""
    if block:
        try:
            stream = io.StringIO()
            yaml = YAML(typ="safe", pure=True)
            yaml.default_flow_style = False
            yaml.dump(data, stream)
            return stream.getvalue()
        except Exception:  # noqa: BLE001 - a dumper refusing odd data just means: use JSON instead
            pass
    return json.dumps(data, ensure_ascii=ascii_only, indent=2)


@st.composite
def mutated_recipes(draw: st.DrawFn) -> MutatedRecipe:
    seed = draw(st.sampled_from(SEED_FILES))
    text = SEEDS[seed]
    how: list[str] = []
    mode = draw(st.sampled_from(["values", "values", "splice", "text", "structure", "both"]))
    if mode == "splice":  # one splice and nothing else, so the odd value meets compile
        data, step = draw(_splice(copy.deepcopy(_seed_data(seed)) if _seed_data(seed) is not None else {}))
        text = _with_raw_tokens(_dump(data, block=draw(st.booleans()), ascii_only=draw(st.booleans())))
        how.append(step)
    if mode in ("structure", "both"):
        if _seed_data(seed) is not None:
            data = copy.deepcopy(_seed_data(seed))
            for _ in range(draw(st.integers(1, 2))):
                data, step = draw(_structure_edit(data))
                how.append(step)
            text = _with_raw_tokens(_dump(data, block=draw(st.booleans()), ascii_only=draw(st.booleans())))
    if mode in ("text", "both"):
        for _ in range(draw(st.integers(1, 3))):
            text, step = draw(_text_edit(text))
            how.append(step)
    if mode == "values":  # mostly still a valid recipe: reaches compile and fill
        for _ in range(draw(st.integers(1, 3))):
            edited = draw(_value_edit(text))
            if edited is not None:
                text, step = edited
                how.append(step)
    return MutatedRecipe(seed, text, tuple(how))
