"""YAML scalars turned into plain values, within the bounds every later stage can carry.

A recipe becomes JSON (the plan, events, the run directory) and UTF-8 text (files, gRPC, the
browser), so a value that JSON or UTF-8 cannot hold is refused here, at its position, rather than
crashing compile or a run: integers beyond 64 bits (Python will not even print one past 4,300
digits), .inf and .nan, lone surrogates (from escapes such as "\\ud800"), and NUL characters
(which no file path, C string or HTTP header can hold).
"""

from __future__ import annotations

import math
import re
from typing import Any

CORE = "tag:yaml.org,2002:"
SCALAR_TAGS = {CORE + t for t in ("str", "int", "float", "bool", "null", "timestamp", "binary")}

MAX_INTEGER = 2**63 - 1
_MAX_INTEGER_DIGITS = 64  # longer digit strings are refused before int() is asked to read them

_UNENCODABLE = re.compile("[\x00\ud800-\udfff]")


class ScalarRefused(ValueError):
    """A scalar no recipe value may hold; the message says why, in the author's terms, and `code`
    is the problem code: `bad_character` for text, `out_of_range` for numbers."""

    def __init__(self, message: str, code: str = "out_of_range") -> None:
        super().__init__(message)
        self.code = code


def scalar_value(tag: str, text: str) -> Any:
    """The plain value of a scalar with a core tag. Raises ScalarRefused past the bounds."""
    kind = tag[len(CORE):]
    if kind == "null":
        return None
    if kind == "bool":
        return text.lower() in ("true", "yes", "on")
    if kind == "int":
        return _integer(text)
    if kind == "float":
        return _float(text)
    # str, and timestamps/binary kept as the text the author wrote: recipes have no date fields.
    refuse_unencodable(text, "text")
    return text


def refuse_unencodable(text: str, what: str) -> None:
    """Raise ScalarRefused when `text` holds a NUL or a lone surrogate. `what` is "text" or "a key"."""
    found = _UNENCODABLE.search(text)
    if found is None:
        return
    char = found.group()
    if char == "\x00":
        raise ScalarRefused(f"{what} holds a NUL character (\\0); no recipe value may contain one", "bad_character")
    raise ScalarRefused(
        f"{what} holds a lone surrogate \\u{ord(char):04x}, which is not a character and cannot be written as UTF-8; "
        "write the character itself, or a \\U escape such as \\U0001F600",
        "bad_character",
    )


def _integer(text: str) -> int | str:
    cleaned = text.replace("_", "")
    digits = cleaned.lstrip("+-")
    if len(digits) > _MAX_INTEGER_DIGITS:
        raise ScalarRefused(f"an integer of {len(digits)} digits is out of range (at most {MAX_INTEGER} either way)")
    try:
        value = int(cleaned, 0) if digits.lower().startswith(("0x", "0o", "0b")) else int(cleaned)
    except ValueError:
        return text  # not a number after all: the model reports the wrong type
    if abs(value) > MAX_INTEGER:
        raise ScalarRefused(f"integer {text} is out of range (at most {MAX_INTEGER} either way)")
    return value


def _float(text: str) -> float | str:
    lowered = text.lower().replace("_", "")
    if lowered.lstrip("+-") in (".inf", ".nan"):
        raise ScalarRefused(f"{text} is not allowed: recipes hold finite numbers only, as JSON does")
    try:
        value = float(lowered)
    except ValueError:
        return text
    if not math.isfinite(value):
        raise ScalarRefused(f"number {_short(text)} is too large to hold (at most about 1.8e308)")
    return value


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."
