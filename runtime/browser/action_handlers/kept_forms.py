"""Does a field hold what was typed into it? The one judge of a `type` act's effect.

A control keeps some texts in a form of its own: `<input type=time>` keeps "06:09" whether "6:09 AM"
or the key presses "0609A" went in, a date field keeps "2024-03-15" for "03/15/2024" or "03152024"
(en-US segment order: month, day, year), a number field "12.50" for "12.5" means the same number.
Such fields are compared in that form, and the message says so. Any other field must hold the
typed text as it was typed: a page script that reformats it ("5551234567" -> "(555) 123-4567") or
a maxlength that cuts it is a field that does not hold it. A password's value never appears in a
message, only its length.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

_TIME_WRITTEN = re.compile(r"^(\d{1,2})(?::(\d{2}))(?::(\d{2})(?:\.\d+)?)?\s*(?:([ap])\.?\s*m?\.?)?$", re.IGNORECASE)
_TIME_KEYED = re.compile(r"^(\d{2})(\d{2})(\d{2})?\s*(?:([ap])m?)?$", re.IGNORECASE)
_TIME_KEPT = re.compile(r"^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$")
_DATE_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_DATE_US = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$")
_DATE_KEYED = re.compile(r"^(\d{2})(\d{2})(\d{4})$")


@dataclass(frozen=True)
class TypedJudgement:
    """Whether the field holds the typed text, and the evidence in words."""

    holds: bool
    message: str
    # The form the control keeps ("time HH:MM"), when it is not the text as typed.
    kept_form: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"holds": self.holds, "message": self.message, "kept_form": self.kept_form}


def _time_of(text: str, *, kept: bool) -> tuple[int, int, int] | None:
    text = text.strip()
    if kept:
        found = _TIME_KEPT.match(text)
        return (int(found[1]), int(found[2]), int(found[3] or 0)) if found else None
    found = _TIME_WRITTEN.match(text) or _TIME_KEYED.match(text)
    if not found:
        return None
    hour, minute, second, half = int(found[1]), int(found[2]), int(found[3] or 0), (found[4] or "").lower()
    if half:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "p" else 0)
    if hour > 23 or minute > 59 or second > 59:
        return None
    return hour, minute, second


def _date_of(text: str, *, kept: bool) -> tuple[int, int, int] | None:
    text = text.strip()
    found = _DATE_ISO.match(text)
    if found:
        return int(found[1]), int(found[2]), int(found[3])
    if kept:
        return None
    found = _DATE_US.match(text) or _DATE_KEYED.match(text)
    if not found:
        return None
    month, day, year = int(found[1]), int(found[2]), int(found[3])
    return (year, month, day) if 1 <= month <= 12 and 1 <= day <= 31 else None


def _number_of(text: str) -> float | None:
    try:
        number = float(text.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _show_time(parts: tuple[int, int, int]) -> str:
    hour, minute, second = parts
    return f"{hour:02d}:{minute:02d}" + (f":{second:02d}" if second else "")


def _show_date(parts: tuple[int, int, int]) -> str:
    return f"{parts[0]:04d}-{parts[1]:02d}-{parts[2]:02d}"


_NORMALISED: dict[str, tuple[str, Any, Any]] = {
    # input type -> (the form it keeps, in words; reader; how a read value is shown)
    "time": ("a time as HH:MM", _time_of, _show_time),
    "date": ("a date as YYYY-MM-DD", _date_of, _show_date),
}


def judge_typed(field: dict[str, Any], typed: str, *, cleared: bool) -> TypedJudgement:
    """Does `field` (what effects.py reads of the target: tag, type, contenteditable, value, text)
    hold `typed`? `cleared` is False when the text was added to what the field already held."""
    kind = str(field.get("type") or "").lower() if field.get("tag") == "input" else ""
    if field.get("contenteditable"):
        held = " ".join(str(field.get("text") or "").split())
        wanted = " ".join(typed.split())
        holds = wanted in held
        return TypedJudgement(holds, f"the editable element's text {'holds' if holds else 'does not hold'} the typed {typed!r} (it shows {held[:120]!r})")
    held = str(field.get("value") or "")
    if kind == "password":
        holds = held == typed if cleared else held.endswith(typed)
        if holds:
            return TypedJudgement(True, "the password field's value changed and holds the text typed (a secret: not shown)")
        return TypedJudgement(False, "the password field does not hold what was typed (a secret: neither is shown)")
    if kind in _NORMALISED:
        form, read, show = _NORMALISED[kind]
        wanted_parts = read(typed, kept=False)
        held_parts = read(held, kept=True)
        if wanted_parts is None:
            return TypedJudgement(False, f"the {kind} field holds {held!r}; the typed {typed!r} is no {kind} it keeps ({form})", form)
        wanted = show(wanted_parts)
        holds = held_parts == wanted_parts
        verb = "holds" if holds else "does not hold"
        return TypedJudgement(holds, f"the {kind} field {verb} {wanted!r}, its form ({form}) of the typed {typed!r}: it holds {held!r}", form)
    if kind == "number":
        wanted_number, held_number = _number_of(typed), _number_of(held)
        holds = wanted_number is not None and held_number == wanted_number
        return TypedJudgement(holds, f"the number field {'holds' if holds else 'does not hold'} the number typed as {typed!r}: it holds {held!r}", "a number")
    # Text fields: an <input> drops line breaks, a textarea keeps \n for \r\n, email and url fields
    # trim surrounding spaces; nothing else changes what a field holds.
    wanted = typed.replace("\r\n", "\n")
    if field.get("tag") == "input":
        wanted = wanted.replace("\n", "").replace("\r", "")
        if kind in ("email", "url"):
            wanted = wanted.strip()
    holds = held == wanted if cleared else held.endswith(wanted)
    if holds and wanted != typed:
        return TypedJudgement(True, f"the field holds {held!r}, the typed {typed!r} as the field keeps it (no line breaks, no surrounding spaces)", "text as the field keeps it")
    if holds:
        return TypedJudgement(True, f"the field holds the typed {typed!r}")
    return TypedJudgement(False, f"the field holds {held!r}, not the typed {typed!r}")
