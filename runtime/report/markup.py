"""Escaped HTML fragments. Everything a run recorded may come from a hostile page (titles, text,
URLs, model output), so every value goes through `text()` or `attr()` and nothing is ever
inserted raw; the page's Content-Security-Policy forbids scripts as a second line of defence."""

from __future__ import annotations

import html
import json
from typing import Any

VALUE_CHARS = 600  # one evidence value in a table cell
BLOCK_CHARS = 20_000  # one JSON block (the output, a whole evidence object)
INLINE_JSON_CHARS = 160  # a nested value longer than this as JSON is folded away


def text(value: Any) -> str:
    """`value` as HTML text: escaped, None as empty."""
    return "" if value is None else html.escape(str(value), quote=True)


def attr(value: Any) -> str:
    """`value` for a double-quoted attribute."""
    return html.escape("" if value is None else str(value), quote=True)


def clipped(value: str, limit: int) -> str:
    if len(value) <= limit:
        return value
    return value[:limit] + f"… ({len(value) - limit} more characters in the run files)"


def as_json(value: Any, *, indent: int | None = None) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=indent is not None, default=str)


def scalar(value: Any) -> str:
    """A JSON value as short escaped text: strings as they are, the rest as compact JSON."""
    shown = value if isinstance(value, str) else as_json(value)
    return text(clipped(shown, VALUE_CHARS))


def json_block(value: Any, css_class: str = "json") -> str:
    return f'<pre class="{attr(css_class)}">{text(clipped(as_json(value, indent=2), BLOCK_CHARS))}</pre>'


def key_values(data: dict[str, Any], css_class: str = "kv") -> str:
    """A dict as a definition list: one row per key; a long nested value folds into a JSON block."""
    if not data:
        return ""
    rows = "".join(f"<dt>{text(key)}</dt><dd>{_value(value)}</dd>" for key, value in data.items())
    return f'<dl class="{attr(css_class)}">{rows}</dl>'


def _value(value: Any) -> str:
    if isinstance(value, (dict, list)) and len(as_json(value)) > INLINE_JSON_CHARS:
        what = f"{len(value)} {'keys' if isinstance(value, dict) else 'items'}"
        return details(what, json_block(value))
    return scalar(value)


def badge(label: str, kind: str) -> str:
    return f'<span class="badge {attr(kind)}">{text(label)}</span>'


def details(summary: str, body: str) -> str:
    """A collapsed block; `summary` is plain text, `body` already escaped HTML."""
    return f"<details><summary>{text(summary)}</summary>{body}</details>" if body else ""
