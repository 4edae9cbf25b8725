"""Turning extracted strings into typed field values: patterns first, then the declared type.

Numbers are read the way pages print them: "1,234.50", "$ 1 234.50", "-0.75%" all parse; an
ambiguous or empty value is an error with the raw text as evidence, never a silent zero.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_NUMBER = re.compile(r"[-+−]?\d[\d,\s\u00a0\u202f']*(?:\.\d+)?|[-+−]?\.\d+")
_TRUE = {"true", "yes", "on", "1", "y"}
_FALSE = {"false", "no", "off", "0", "n"}


class FieldValueError(ValueError):
    """The raw text does not give a value of the declared type (or does not match the pattern)."""


@dataclass(frozen=True)
class FieldReading:
    name: str
    raw: str | None
    value: Any
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


def parse_number(text: str) -> float:
    """The first number in `text`, tolerating thousands separators, currency and spaces."""
    match = _NUMBER.search(text.replace("−", "-"))
    if not match:
        raise FieldValueError(f"no number in {text!r}")
    digits = re.sub(r"[,\s\u00a0\u202f']", "", match.group(0))
    try:
        return float(digits)
    except ValueError:
        raise FieldValueError(f"{match.group(0)!r} is not a number") from None


def parse_integer(text: str) -> int:
    number = parse_number(text)
    if not number.is_integer():
        raise FieldValueError(f"{text!r} is not a whole number")
    return int(number)


def parse_boolean(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise FieldValueError(f"{text!r} is not a yes/no value")


def read_field(name: str, raw: str | None, kind: str, pattern: str | None) -> FieldReading:
    """Apply `pattern` (its first group when it has one) and convert to `kind`."""
    if raw is None or not raw.strip():
        return FieldReading(name, raw, None, "not found on the page" if raw is None else "empty on the page")
    text = " ".join(raw.split())
    if pattern:
        match = re.search(pattern, text)
        if not match:
            return FieldReading(name, raw, None, f"{text[:80]!r} does not match {pattern!r}")
        text = match.group(1) if match.groups() else match.group(0)
    try:
        if kind == "number":
            value: Any = parse_number(text)
        elif kind == "integer":
            value = parse_integer(text)
        elif kind == "boolean":
            value = parse_boolean(text)
        else:
            value = text
    except FieldValueError as error:
        return FieldReading(name, raw, None, str(error))
    return FieldReading(name, raw, value)
