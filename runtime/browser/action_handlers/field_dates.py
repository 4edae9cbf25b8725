"""Dates and times as a person writes them, as the value a date/time field holds.

A person types "6:09 AM", "24 Nov 2026" or "11/24/2026" into a time or date field and expects it
to land. The field's own segments take key presses in its locale's order (month-day-year in one
locale, day-month-year in another, an AM/PM segment or none), so the same keys land differently
per machine. `field_value` turns the written form into the field's one locale-free value
("06:09", "2026-11-24"); the act sets it as the browser does after a person's edit (input and
change events), which is exactly what the page's listeners read.

Accepted forms (case-insensitive; month names in English, full or three letters):
- time: 6:09, 06:09, 18:09, 6:09 AM, 6:09pm, 6:09:30 PM, 6 PM
- date: 2026-11-24, 11/24/2026 (month first, as in the US; day first when the first number is
  above 12: 24/11/2026), 24 Nov 2026, Nov 24 2026, November 24, 2026
- datetime-local: a date and a time separated by a space, a comma or `T`
- month: 2026-11, Nov 2026, 11/2026
Anything else returns None, and the text is typed key by key as before (e.g. "0609A").
"""

from __future__ import annotations

import re
from datetime import date

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_TIME = re.compile(r"^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([ap])\.?\s*m?\.?$|^(\d{1,2}):(\d{2})(?::(\d{2}))?$", re.IGNORECASE)


def _month(word: str) -> int | None:
    word = word.lower().rstrip(".")
    if len(word) >= 3:
        for index, name in enumerate(_MONTHS, 1):
            if word.startswith(name) or (word == name[: len(word)]):
                return index
    return None


def parse_time(text: str) -> str | None:
    """"6:09 AM" -> "06:09"; seconds kept when given ("06:09:30")."""
    match = _TIME.match(text.strip())
    if match is None:
        return None
    if match.group(4):
        hour, minute, second, half = int(match.group(1)), int(match.group(2) or 0), match.group(3), match.group(4).lower()
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "p" else 0)
    else:
        hour, minute, second = int(match.group(5)), int(match.group(6)), match.group(7)
    if hour > 23 or minute > 59 or (second is not None and int(second) > 59):
        return None
    return f"{hour:02d}:{minute:02d}" + (f":{int(second):02d}" if second is not None else "")


def parse_date(text: str) -> str | None:
    """"24 Nov 2026", "11/24/2026", "2026-11-24" -> "2026-11-24"."""
    words = [w for w in re.split(r"[\s,]+", text.strip()) if w]
    year = month = day = None
    if len(words) == 1:
        iso = re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", words[0])
        slashed = re.fullmatch(r"(\d{1,2})[/.](\d{1,2})[/.](\d{4})", words[0])
        if iso:
            year, month, day = int(iso.group(1)), int(iso.group(2)), int(iso.group(3))
        elif slashed:
            first, second, year = int(slashed.group(1)), int(slashed.group(2)), int(slashed.group(3))
            month, day = (second, first) if first > 12 else (first, second)
    elif len(words) == 3:
        if words[0].isdigit() and _month(words[1]) and words[2].isdigit():
            day, month, year = int(words[0]), _month(words[1]), int(words[2])
        elif _month(words[0]) and words[1].rstrip("stndrh").isdigit() and words[2].isdigit():
            month, day, year = _month(words[0]), int(re.sub(r"\D", "", words[1])), int(words[2])
    if year is None or month is None or day is None:
        return None
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def parse_month(text: str) -> str | None:
    words = [w for w in re.split(r"[\s,/-]+", text.strip()) if w]
    if len(words) != 2:
        return None
    if words[0].isdigit() and len(words[0]) == 4 and words[1].isdigit():
        year, month = int(words[0]), int(words[1])
    elif words[1].isdigit() and len(words[1]) == 4:
        year, month = int(words[1]), (int(words[0]) if words[0].isdigit() else (_month(words[0]) or 0))
    else:
        return None
    return f"{year:04d}-{month:02d}" if 1 <= month <= 12 else None


def parse_datetime(text: str) -> str | None:
    stripped = text.strip()
    iso = re.fullmatch(r"(\d{4}-\d{1,2}-\d{1,2})[T\s](\S+(?:\s*[ap]\.?m?\.?)?)", stripped, re.IGNORECASE)
    candidates = [(iso.group(1), iso.group(2))] if iso else []
    # Otherwise: the date is the words before the time (the time starts at the first h:mm).
    split = re.search(r"\d{1,2}:\d{2}", stripped)
    if split:
        candidates.append((stripped[: split.start()].strip(" ,T"), stripped[split.start() :]))
    for date_text, time_text in candidates:
        day, clock = parse_date(date_text), parse_time(time_text)
        if day and clock:
            return f"{day}T{clock}"
    return None


def field_value(input_type: str, text: str) -> str | None:
    """The value a date/time field of `input_type` takes for `text` as a person wrote it, or None."""
    parse = {"time": parse_time, "date": parse_date, "datetime-local": parse_datetime, "month": parse_month}.get(input_type)
    return parse(text) if parse is not None else None
