"""`{name}` placeholders in recipe strings. `{{` and `}}` stand for literal braces."""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

BUILTIN_PLACEHOLDERS = ("goal", "start_url")

_FORMATTER = string.Formatter()


def placeholder_names(text: str) -> list[str]:
    """The placeholder names used in `text`. Raises ValueError on unbalanced braces."""
    names = []
    for _literal, name, spec, conversion in _FORMATTER.parse(text):
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise ValueError(f"bad placeholder {{{name}{'!' + conversion if conversion else ''}{':' + spec if spec else ''}}}: use {{name}}")
        names.append(name)
    return names


def fill(text: str, values: Mapping[str, Any]) -> str:
    """Replace each `{name}` with its value. Names must be known (validation guarantees it)."""
    return _FORMATTER.vformat(text, (), {k: "" if v is None else v for k, v in values.items()})
