"""Escaped HTML fragments. Everything a run recorded may come from a hostile page (titles, text,
URLs, model output), so every value goes through `text()` or `attr()` and nothing is ever
inserted raw; the page's Content-Security-Policy forbids scripts as a second line of defence.

Values are shown the way a person reads them: a text keeps its real line breaks (never `\\n`
escapes), a long one shows its start with the whole text one click away (`<details>`), and JSON
is indented, its long or multi-line strings shown as such texts.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

FOLD_CHARS = 300  # a text longer than this shows its start; the whole text is one click away
PREVIEW_CHARS = 100  # how much of a folded text shows
MAX_TEXT_CHARS = 500_000  # one text in the page; beyond it the run files hold the rest
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


# One encoder for the compact form: a report calls it for every key and scalar it shows, and
# json.dumps with options builds a new encoder at each call.
_COMPACT = json.JSONEncoder(ensure_ascii=False, default=str)


def as_json(value: Any, *, indent: int | None = None) -> str:
    if indent is None:
        return _COMPACT.encode(value)
    return json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=True, default=str)


# `\n`, `\t` and `\\` as a repr() or JSON dump leaves them in a summary ("{'log': 'a\nb'}").
_ESCAPE = re.compile(r"\\([nt\\])")
_UNESCAPED = {"n": "\n", "t": "\t", "\\": "\\"}


def unescaped(value: str) -> str:
    """A prose text with the escapes a repr() or JSON dump left in it rendered (real line breaks)."""
    return _ESCAPE.sub(lambda m: _UNESCAPED[m.group(1)], value) if "\\" in value else value


def long_text(value: Any, *, fold: int = FOLD_CHARS, json_comma: str | None = None) -> str:
    """A text with its line breaks; longer than `fold`, its start with the whole text behind a click.

    A prose text's `\\n` escapes (left by a repr() in a summary) become line breaks. With
    `json_comma` the text is a JSON string's value: kept exactly, shown in quotes, followed by the
    comma ("," or "") that comes after it in its object or list."""
    whole = "" if value is None else str(value)
    if json_comma is None:
        whole = unescaped(whole)
    quote, after = ('"', text(json_comma)) if json_comma is not None else ("", "")
    if len(whole) <= fold:
        return f'{quote}<span class="text">{text(whole)}</span>{quote}{after}'
    preview = " ".join(whole[: PREVIEW_CHARS * 4].split())[:PREVIEW_CHARS]
    lines = whole.count("\n") + 1
    size = f"{len(whole):,} characters" + (f", {lines:,} lines" if lines > 1 else "")
    return (
        f'<details class="long"><summary><span class="preview">{quote}{text(preview)}…{quote}{after}</span> '
        f'<span class="size">show all ({size})</span></summary>'
        f'<div class="text full">{text(clipped(whole, MAX_TEXT_CHARS))}</div></details>'
    )


def scalar(value: Any) -> str:
    """A JSON value as short escaped text: strings as they are, the rest as compact JSON."""
    return long_text(value if isinstance(value, str) else as_json(value))


def json_block(value: Any, css_class: str = "json") -> str:
    """`value` as indented JSON; a long or multi-line string in it shows as a (folded) text."""
    return f'<div class="{attr(css_class)}">{_json(value, 0)}</div>'


def _json(value: Any, depth: int, comma: str = "") -> str:
    """`value` at `depth`, followed by `comma` (a folded string carries it on its preview line)."""
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, dict) and value:
        last = len(value) - 1
        items = [f'{inner}<span class="key">{text(as_json(str(k)))}</span>: {_json(v, depth + 1, "," if i < last else "")}' for i, (k, v) in enumerate(value.items())]
        return "{\n" + "\n".join(items) + f"\n{pad}}}{comma}"
    if isinstance(value, list) and value:
        last = len(value) - 1
        return "[\n" + "\n".join(inner + _json(v, depth + 1, "," if i < last else "") for i, v in enumerate(value)) + f"\n{pad}]{comma}"
    if isinstance(value, str) and (len(value) > FOLD_CHARS or "\n" in value):
        return long_text(value, json_comma=comma)
    return text(as_json(value)) + comma


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


def split_json_tail(value: str) -> tuple[str, Any] | None:
    """`"found it: {...}"` as its prose and the JSON value it ends with (a completed run's verdict
    summary carries its output that way); None when it ends with no JSON object or list."""
    start = 0
    while (start := value.find(": ", start)) >= 0:
        tail = value[start + 2 :]
        if tail[:1] in ("{", "["):
            try:
                return value[:start], json.loads(tail)
            except ValueError:
                pass
        start += 2
    return None
