"""Load a recipe: YAML -> positions -> pydantic model -> whole-recipe checks, all problems at once."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from runtime.recipe.checks import check_recipe, registry_dir
from runtime.recipe.problems import did_you_mean
from runtime.recipe.model import Recipe
from runtime.recipe.problems import Problem, RecipeInvalid, format_path
from runtime.recipe.schema import recipe_json_schema
from runtime.recipe.source import MAX_RECIPE_BYTES, YamlDocument, read_yaml, text_position
from runtime.recipe.tool_registry import ToolRegistry, load_tool_registry

_SCALAR_MEMBERS = {"str", "int", "float", "bool", "none"}


def load_recipe_file(path: str | Path) -> Recipe:
    """Load and validate a recipe file. Raises RecipeInvalid with every problem found."""
    file = Path(path)
    return load_recipe_text(read_recipe_source(file), str(file), recipe_path=file)


def read_recipe_source(file: Path) -> str:
    """A recipe file's text. Raises RecipeInvalid (with the position where it applies) when the file
    cannot be read, is larger than a recipe may be, or is not UTF-8."""
    try:
        size = file.stat().st_size
        with file.open("rb") as stream:
            raw = stream.read(MAX_RECIPE_BYTES + 1)
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise RecipeInvalid([Problem(str(file), 0, 0, "", f"cannot read the recipe: {reason}", "unreadable")]) from None
    if len(raw) > MAX_RECIPE_BYTES:
        line, col = text_position(*_decoded_prefix(raw, MAX_RECIPE_BYTES))
        message = f"file is {max(size, len(raw))} bytes; recipes may be at most {MAX_RECIPE_BYTES} bytes (the limit is passed here)"
        raise RecipeInvalid([Problem(str(file), line, col, "", message, "file_too_large")])
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line, col = text_position(*_decoded_prefix(raw, error.start))
        message = f"not UTF-8 text: byte 0x{raw[error.start]:02x} here cannot be decoded; save the file as UTF-8"
        raise RecipeInvalid([Problem(str(file), line, col, "", message, "not_utf8")]) from None


def _decoded_prefix(raw: bytes, end: int) -> tuple[str, int]:
    """The text before byte `end`, and the index `end` falls at in it."""
    text = raw[:end].decode("utf-8", errors="replace")
    return text, len(text)


def load_recipe_text(text: str, source: str = "<recipe>", *, recipe_path: Path | None = None) -> Recipe:
    """Validate recipe text. `recipe_path` anchors a relative tool registry directory."""
    recipe, _registry = load_recipe_with_registry(text, source, recipe_path=recipe_path)
    return recipe


def load_recipe_with_registry(text: str, source: str, *, recipe_path: Path | None = None) -> tuple[Recipe, ToolRegistry]:
    doc, problems = read_yaml(text, source)
    return load_recipe_document(doc, problems, source, recipe_path=recipe_path)


def load_recipe_document(
    doc: YamlDocument, problems: list[Problem], source: str, *, recipe_path: Path | None = None
) -> tuple[Recipe, ToolRegistry]:
    """`load_recipe_with_registry` of a document already read with `read_yaml` (and its problems):
    for a caller that must look into the document before anything else is read, without parsing
    the text twice (the service, for a recipe a client sent)."""
    problems = list(problems)
    if doc.data is None and problems:
        raise RecipeInvalid(problems)
    if not isinstance(doc.data, dict):
        raise RecipeInvalid(problems + [Problem(source, 1, 1, "", "a recipe is a YAML mapping of keys such as name, goal, target and plan", "not_a_mapping")])
    try:
        recipe = Recipe.model_validate(doc.data)
    except ValidationError as error:
        # A value the reader refused (a tag, a NUL, a huge number) was never meant as plain data:
        # the reader's problem is enough.
        rejected = [format_path(path) for path in doc.rejected]
        found = [p for p in _pydantic_problems(error, doc, source) if not any(_within(p.path, r) for r in rejected)]
        raise RecipeInvalid(problems + found) from None
    if recipe_path is not None:
        # Before the checks: relative paths (the files a run may upload) resolve there.
        recipe._directory = Path(os.path.abspath(recipe_path.parent))  # abspath: no file system access
    registry = load_tool_registry(None)
    if ("tools", "registry") not in doc.rejected:
        try:
            registry = load_tool_registry(registry_dir(recipe, recipe_path))
        except RecipeInvalid as error:
            line, col = doc.position(("tools", "registry"))
            problems += [p if p.line else Problem(source, line, col, p.path, p.message, p.code) for p in error.problems]
    for path, message, code in check_recipe(recipe, registry):
        if any(path[: len(rejected)] == rejected for rejected in doc.rejected):
            continue
        # An empty value (`- close:`) has no position of its own: its key is where it is written.
        line, col = doc.position(path, prefer_key=_is_empty(doc.data, path))
        problems.append(Problem(source, line, col, format_path(path), message, code))
    if problems:
        raise RecipeInvalid(problems)
    return recipe, registry


def _is_empty(data: Any, path: tuple) -> bool:
    for part in path:
        if isinstance(data, dict) and part in data or isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            return False
    return data is None


def _within(path: str, ancestor: str) -> bool:
    return path == ancestor or path.startswith((ancestor + ".", ancestor + "[")) or not ancestor


def _pydantic_problems(error: ValidationError, doc: YamlDocument, source: str) -> list[Problem]:
    problems: list[Problem] = []
    union_groups: dict[tuple, list[tuple[str, dict[str, Any]]]] = {}
    for item in error.errors(include_url=False):
        data_path, union_at, member = _data_path(item["loc"], doc.data)
        if union_at is not None:
            union_groups.setdefault(union_at, []).append((member, item | {"data_path": data_path}))
            continue
        problems.append(_problem_for(item, data_path, doc, source))
    for union_path, members in union_groups.items():
        value = _value_at(doc.data, union_path)
        structured = isinstance(value, (dict, list))
        if structured:
            chosen = [item for member, item in members if member not in _SCALAR_MEMBERS] or [item for _, item in members]
            problems.extend(_problem_for(item, item["data_path"], doc, source) for item in chosen)
        else:
            expected = sorted({_expected_phrase(item) for _, item in members})
            line, col = doc.position(union_path)
            problems.append(
                Problem(source, line, col, format_path(union_path), f"expected {' or '.join(expected)}, got {_shown(value)}", "wrong_type")
            )
    return problems


def _data_path(loc: tuple, data: Any) -> tuple[tuple, tuple | None, str]:
    """Walk pydantic's loc through the data, dropping union member tags and noting where one was."""
    path: list[Any] = []
    current = data
    union_at: tuple | None = None
    member = ""
    for part in loc:
        if isinstance(current, dict) and part in current:
            path.append(part)
            current = current[part]
        elif isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current):
            path.append(part)
            current = current[part]
        elif part == "[key]":
            continue
        elif isinstance(part, str) and (part in _SCALAR_MEMBERS or part[:1].isupper() or part.startswith(("list[", "dict[", "function-"))):
            if union_at is None:
                union_at, member = tuple(path), part.split("[")[0].lower() if part.startswith(("list[", "dict[")) else part
            continue
        else:
            path.append(part)  # a missing key: the path names it, the position falls back to its parent
            current = None
    return tuple(path), union_at, member


def _value_at(data: Any, path: tuple) -> Any:
    for part in path:
        data = data[part]
    return data


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _expected_phrase(item: dict[str, Any]) -> str:
    kind = item["type"]
    return {
        "string_type": "text",
        "int_type": "an integer",
        "int_parsing": "an integer",
        "float_type": "a number",
        "float_parsing": "a number",
        "bool_type": "true or false",
        "bool_parsing": "true or false",
        "model_type": "a mapping",
        "model_attributes_type": "a mapping",
        "dict_type": "a mapping",
        "list_type": "a list",
    }.get(kind, item["msg"].removeprefix("Input should be ").lower())


def _schema_candidates(schema: dict[str, Any], node: dict[str, Any]) -> list[dict[str, Any]]:
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    found = [node]
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in node.get(key, []):
            found.extend(_schema_candidates(schema, sub))
    return found


def allowed_keys(path: tuple) -> set[str]:
    """The keys the recipe language accepts in the mapping at `path` (from the JSON Schema)."""
    schema = recipe_json_schema()
    nodes = [schema]
    for part in path:
        following = []
        for node in nodes:
            for candidate in _schema_candidates(schema, node):
                if isinstance(part, int) and isinstance(candidate.get("items"), dict):
                    following.append(candidate["items"])
                elif isinstance(part, str) and part in candidate.get("properties", {}):
                    following.append(candidate["properties"][part])
                elif isinstance(part, str) and isinstance(candidate.get("additionalProperties"), dict):
                    following.append(candidate["additionalProperties"])
        nodes = following
    keys: set[str] = set()
    for node in nodes:
        for candidate in _schema_candidates(schema, node):
            keys |= set(candidate.get("properties", {}))
    return keys


def _problem_for(item: dict[str, Any], path: tuple, doc: YamlDocument, source: str) -> Problem:
    kind = item["type"]
    message = item["msg"]
    if kind == "extra_forbidden":
        key = str(path[-1])
        line, col = doc.position(path, prefer_key=True)
        return Problem(source, line, col, format_path(path), f"unknown key {key!r}{did_you_mean(key, allowed_keys(path[:-1]))}", "unknown_key")
    if kind == "missing":
        line, col = doc.position(path[:-1], prefer_key=True)
        return Problem(source, line, col, format_path(path), f"missing required key {path[-1]!r}", "missing_key")
    line, col = doc.position(path)
    if kind == "value_error":
        return Problem(source, line, col, format_path(path), message.removeprefix("Value error, "), "invalid_value")
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than", "too_short", "too_long"):
        return Problem(source, line, col, format_path(path), f"{message} (got {_shown(item.get('input'))})", "out_of_range")
    if kind in ("literal_error", "enum"):
        return Problem(source, line, col, format_path(path), f"{message} (got {_shown(item.get('input'))})", "invalid_choice")
    if kind == "string_pattern_mismatch":
        return Problem(source, line, col, format_path(path), f"{_shown(item.get('input'))} is not allowed here: {message}", "invalid_value")
    return Problem(source, line, col, format_path(path), f"expected {_expected_phrase(item)}, got {_shown(item.get('input'))}", "wrong_type")
