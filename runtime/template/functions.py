"""What an expression may compute with: the functions of FUNCTIONS and the operators of OPERATORS,
each pure and bounded (powers, repeated and joined strings, padding and format widths are capped;
`%` formatting of text is refused). expressions.py parses and evaluates with them.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

import simpleeval

MAX_TEXT_CHARS = 100_000
MAX_WIDTH = 1000
MAX_EXPONENT = 1000

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")


class ExpressionError(ValueError):
    """An expression that cannot be parsed, names something unknown, or fails when evaluated."""


def as_text(value: Any) -> str:
    """A value as an expression's text result shows it (True -> "true", 3.0 -> "3")."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _bounded(text: str) -> str:
    if len(text) > MAX_TEXT_CHARS:
        raise ExpressionError(f"the result would be {len(text)} characters long (at most {MAX_TEXT_CHARS})")
    return text


def _number(value: Any) -> float | int:
    """A number from a number or its text ("3", "-2.5", "1,234", "$12.50")."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    cleaned = re.sub(r"[,\s$€£]", "", as_text(value))
    try:
        return int(cleaned)
    except ValueError:
        pass
    try:
        return float(cleaned)
    except ValueError:
        raise ExpressionError(f"{value!r} is not a number") from None


def _int(value: Any) -> int:
    number = _number(value)
    return int(number)


def _pad(value: Any, width: int, fill: str = "0") -> str:
    """`value` as text, filled on the left to `width` characters ("6" -> "06")."""
    if not 0 <= int(width) <= MAX_WIDTH or len(fill) != 1:
        raise ExpressionError(f"pad takes a width of 0 to {MAX_WIDTH} and a single fill character")
    return as_text(value).rjust(int(width), fill)


_FORMAT_SPEC = re.compile(r"^(?:.?[<>=^])?[+\- ]?z?#?0?(?P<width>\d*)[,_]?(?:\.(?P<precision>\d+))?[bcdeEfFgGnosxX%]?$")


def _fmt(value: Any, spec: str) -> str:
    """A number (or text) in a Python format spec: fmt(x, ".2f"), fmt(x, ",") , fmt(d, "02d")."""
    match = _FORMAT_SPEC.match(spec)
    if match is None:
        raise ExpressionError(f"bad format {spec!r}: write a format such as '.2f', '02d' or ','")
    if int(match.group("width") or 0) > MAX_WIDTH or int(match.group("precision") or 0) > 100:
        raise ExpressionError(f"format {spec!r} is too wide (width at most {MAX_WIDTH}, precision at most 100)")
    subject = value if isinstance(value, str) and spec and spec[-1:] in "s<>^" else (_number(value) if spec[-1:] not in ("", "s") else value)
    try:
        return format(subject, spec)
    except (ValueError, TypeError) as error:
        raise ExpressionError(f"cannot format {value!r} with {spec!r}: {error}") from None


def _replace(text: Any, old: str, new: str) -> str:
    source = as_text(text)
    if old and len(new) > len(old) and source.count(old) * (len(new) - len(old)) + len(source) > MAX_TEXT_CHARS:
        raise ExpressionError(f"the result would be longer than {MAX_TEXT_CHARS} characters")
    return source.replace(old, new)


def _join(items: Any, separator: str = "") -> str:
    if not isinstance(items, (list, tuple)):
        raise ExpressionError("join takes a list")
    return _bounded(separator.join(as_text(item) for item in items))


def _split(text: Any, separator: str | None = None) -> list[str]:
    return as_text(text).split(separator) if separator else as_text(text).split()


def _match(text: Any, pattern: str) -> str | None:
    """The first match of a regular expression in `text` (its first group when it has one), or None."""
    found = re.search(pattern, as_text(text))
    if found is None:
        return None
    return found.group(1) if found.groups() else found.group(0)


def _month_number(name: Any) -> int:
    """1 to 12 for a month's name or its first three letters, any case ("Nov" -> 11)."""
    word = as_text(name).strip().lower()
    for index, month in enumerate(MONTHS, 1):
        if len(word) >= 3 and month.lower().startswith(word):
            return index
    raise ExpressionError(f"{name!r} is not a month's name")


def _month_name(number: Any) -> str:
    index = _int(number)
    if not 1 <= index <= 12:
        raise ExpressionError(f"{number!r} is not a month number (1 to 12)")
    return MONTHS[index - 1]


def _get(mapping: Any, key: Any, default: Any = None) -> Any:
    if isinstance(mapping, Mapping):
        return mapping.get(key, default)
    if isinstance(mapping, (list, tuple)) and isinstance(key, int) and -len(mapping) <= key < len(mapping):
        return mapping[key]
    return default


def _min_max(pick: Callable[..., Any]) -> Callable[..., Any]:
    def chosen(*items: Any) -> Any:
        values = list(items[0]) if len(items) == 1 and isinstance(items[0], (list, tuple)) else list(items)
        if not values:
            raise ExpressionError("min and max need at least one value")
        return pick(_number(value) for value in values)

    return chosen


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "lower": lambda text: as_text(text).lower(),
    "upper": lambda text: as_text(text).upper(),
    "title": lambda text: as_text(text).title(),
    "trim": lambda text: as_text(text).strip(),
    "len": lambda value: len(value) if isinstance(value, (list, tuple, dict)) else len(as_text(value)),
    "str": as_text,
    "int": _int,
    "number": _number,
    "round": lambda value, digits=0: round(_number(value), int(digits)) if digits else int(round(_number(value))),
    "floor": lambda value: math.floor(_number(value)),
    "ceil": lambda value: math.ceil(_number(value)),
    "abs": lambda value: abs(_number(value)),
    "min": _min_max(min),
    "max": _min_max(max),
    "pad": _pad,
    "fmt": _fmt,
    "replace": _replace,
    "split": _split,
    "join": _join,
    "match": _match,
    "escape": lambda text: re.escape(as_text(text)),
    "month_number": _month_number,
    "month_name": _month_name,
    "get": _get,
}


def _power(base: Any, exponent: Any) -> Any:
    if abs(exponent) > MAX_EXPONENT or (abs(base) > 1 and abs(exponent) * math.log2(abs(base)) > 4096):
        raise ExpressionError(f"{base} ** {exponent} is too large")
    return base**exponent


def _add(left: Any, right: Any) -> Any:
    if isinstance(left, str) or isinstance(right, str):
        # Text joins with text: "day " + 6 reads as "day 6".
        return _bounded(as_text(left) + as_text(right))
    return left + right


def _modulo(left: Any, right: Any) -> Any:
    if isinstance(left, str):
        raise ExpressionError("`%` formatting of text is not available; use fmt(value, spec)")
    return left % right


def _multiply(left: Any, right: Any) -> Any:
    try:
        return simpleeval.safe_mult(left, right)
    except simpleeval.IterableTooLong:
        raise ExpressionError(f"the result would be longer than {simpleeval.MAX_STRING_LENGTH} items") from None


OPERATORS: dict[type, Callable[..., Any]] = {
    **simpleeval.DEFAULT_OPERATORS,
    ast.Add: _add,
    ast.Mult: _multiply,
    ast.Pow: _power,
    ast.Mod: _modulo,
}
for _shift in (ast.LShift, ast.RShift):
    OPERATORS.pop(_shift, None)
