"""`{name}` placeholders in recipe text. `{{` and `}}` stand for literal braces.

A placeholder names an input or a built-in. The built-ins are filled in BUILTIN_ORDER, each from
the values before it: `start_url` from the inputs, then `goal` from the inputs and `start_url`. So
`start_url` may not use `{goal}` or itself, and `goal` may not use itself; the checks refuse both.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

from runtime.template.expressions import fill_expressions, names_used, split_text
from runtime.template.references import is_reference, parse_reference

BUILTIN_ORDER = ("start_url", "goal")
BUILTIN_PLACEHOLDERS = ("goal", "start_url")
SEARCH_QUERY = "query"  # only in fallback.search_url, filled with each query of the ladder

_FORMATTER = string.Formatter()


def placeholder_names(text: str) -> list[str]:
    """The placeholder names used in `text` (input names, built-ins and references such as
    `steps.read.price`), those its `{= expressions}` read included. Raises ValueError on
    unbalanced braces or a malformed name, ExpressionError (a ValueError) on a bad expression."""
    names: list[str] = []
    for literal, expression in split_text(text):
        names += _literal_names(literal)
        if expression is not None:
            names += names_used(expression)
    return names


def expression_names(pattern: str) -> list[str]:
    """The names the `{= expressions}` of a regular expression read (its own braces are quantifiers)."""
    return [name for _literal, expression in split_text(pattern) if expression is not None for name in names_used(expression)]


def _literal_names(text: str) -> list[str]:
    names = []
    for _literal, name, spec, conversion in _FORMATTER.parse(text):
        if name is None:
            continue
        if is_reference(name) and not spec and not conversion:
            parse_reference(name)
            names.append(name)
            continue
        if not name.isidentifier() or spec or conversion:
            raise ValueError(f"bad placeholder {{{name}{'!' + conversion if conversion else ''}{':' + spec if spec else ''}}}: use {{name}}")
        names.append(name)
    return names


def fill(text: str, values: Mapping[str, Any]) -> str:
    """Replace each `{name}` with its value, looked up by its whole name (`steps.read.price` too).
    Names must be known (validation guarantees it); None fills as nothing. Each `{= expression}`
    is replaced by its value (expressions.py)."""
    return fill_expressions(text, values, lambda literal: _fill_literal(literal, values))


def fill_pattern(pattern: str, values: Mapping[str, Any]) -> str:
    """A regular expression with its `{= expressions}` filled and nothing else touched."""
    return fill_expressions(pattern, values)


def _fill_literal(text: str, values: Mapping[str, Any]) -> str:
    parts: list[str] = []
    for literal, name, _spec, _conversion in _FORMATTER.parse(text):
        parts.append(literal)
        if name is not None:
            value = values[name]
            parts.append("" if value is None else str(value))
    return "".join(parts)


def placeholder_values(inputs: Mapping[str, Any], *, start_url: str, goal: str) -> dict[str, Any]:
    """What `{placeholders}` are filled with at run time: the inputs, then the built-ins in order."""
    values = dict(inputs)
    values["start_url"] = fill(start_url, values)
    values["goal"] = fill(goal, values)
    return values
