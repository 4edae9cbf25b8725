"""Turning extracted strings into typed field values: patterns first, then the declared type.

A `number` (or `integer`) field takes a number only when the whole text IS one: after removing
whitespace, currency signs and codes ($, €, ¥, USD, EUR, RMB, 元, 円 ...), units (%, ‰, kg, g, oz,
t, bbl, 克, 吨, 盎司 ..., alone or as `/oz`, `per oz`, `元/克`), a sign and grouping, nothing may be
left. "AU2606 suspended", "Flight CA981", "SKU 12345-B" and "ISO 9001" are not numbers. With a
`pattern`, the pattern must match and its first group (the whole match when it has none) must be a
number by the same rule. Anything else is an error carrying the text; never a silent zero and never
a number picked out of the middle of a word.

Locale rules (the README repeats them):

- Text is NFKC-normalised first, so full-width digits and signs (１２３，４５６．７８, ＄, ％) read as
  their ASCII forms and NBSP, narrow NBSP and thin spaces become spaces; digits of other scripts
  (Arabic-Indic, Devanagari ...) are read as digits. Superscripts and vulgar fractions are not
  normalised ("10²" is not 102), so they are refused.
- Grouping characters: ',', '.', space (any width), apostrophe (' or ’). Groups are three digits,
  after a first group of one to three (not starting with 0); with ',' the Indian lakh grouping
  (12,34,567) is accepted too. One number uses one grouping character.
- The decimal separator is '.' or ','. When both appear, the last one is the decimal separator and
  must appear once ("1.234,56" and "1,234.56" are both 1234.56). A space or apostrophe grouping
  makes the single ',' or '.' after it the decimal separator ("1 234,56" is 1234.56).
- Ambiguous, decided: a lone ',' followed by exactly three digits after a valid first group is
  grouping ("1,234" is 1234; "1,23" and "1234,567" are decimal commas); a lone '.' is always a
  decimal point ("1.234" is 1.234, never 1234); a separator repeated is grouping ("1.234.567").
- Refused: groups of the wrong size ("1,23,4", "12 34"), two grouping characters in one number
  ("1,234 567"), a repeated decimal separator ("1.234,5,6"), a separator at either end ("12.",
  "1,"), leading zeros ("007", "02134": identifiers), magnitude words (1.2k, 3M, 1.5万, 2亿, bn),
  exponents (1e5), approximations (~12, ≈12, <12), ranges (1-3), fractions (1/2, ½), two numbers.
- Signs: '+', '-', U+2212 '−' and full-width '－' before the number (before or after a currency
  prefix); accounting parentheses "(1,234.56)" and a trailing minus "1.234,56-" are negative.
- Units never scale the value: "-0.75%" is -0.75 and "2.5 kg" is 2.5.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

_TRUE = {"true", "yes", "on", "1", "y"}
_FALSE = {"false", "no", "off", "0", "n"}

# Currency codes are upper case only (so "eur" in running text is not one); `US$`, `HK$` ... too.
_CURRENCY_CODES = (
    "USD EUR GBP JPY CNY CNH RMB HKD TWD KRW INR AUD CAD CHF SEK NOK DKK PLN CZK HUF RUB BRL MXN ZAR SGD "
    "NZD TRY THB IDR MYR PHP VND AED SAR ILS"
).split()
_CURRENCY_WORDS = ("人民币", "美元", "欧元", "英镑", "日元", "港元", "港币", "韩元", "元", "圆", "块", "円", "ドル", "ユーロ", "원")
# Units of two or more letters match in any case. Single letters are case-sensitive and few, because
# k, K, M, B, T, bn are magnitudes ("$3M"), which would change the value and are refused; "m" (metre)
# is accepted only after "/" or "per", where it cannot mean million.
_WORD_UNITS = (
    "percent",
    "per cent",
    "pct",
    "bps",
    "bp",
    "troy ounces",
    "troy ounce",
    "troy oz",
    "ounces",
    "ounce",
    "ozt",
    "oz",
    "grams",
    "gram",
    "kg",
    "mg",
    "tonnes",
    "tonne",
    "tons",
    "ton",
    "lbs",
    "lb",
    "bbl",
    "barrels",
    "barrel",
    "mmbtu",
    "kwh",
    "mwh",
    "km",
    "cm",
    "ml",
    "gal",
    "pcs",
    "dollars",
    "dollar",
    "euros",
    "euro",
    "yuan",
    "yen",
)
_LETTER_UNITS = ("g", "t", "l", "L")
_CJK_UNITS = (
    "千克",
    "公斤",
    "毫克",
    "克",
    "吨",
    "盎司",
    "斤",
    "毫升",
    "升",
    "公里",
    "千米",
    "厘米",
    "毫米",
    "米",
    "グラム",
    "キロ",
    "トン",
)
_SYMBOL_UNITS = ("%", "‰", "‱", "°C", "°F", "°", "m²", "m³")


def _alternatives(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True))


_CURRENCY_SIGN = "[" + re.escape("".join(chr(c) for c in range(0x20, 0x20C1) if unicodedata.category(chr(c)) == "Sc")) + "]"
_CODE = rf"(?<![A-Za-z])(?:{'|'.join(_CURRENCY_CODES)}|[A-Z]{{1,3}}\$)(?![A-Za-z])"
_CURRENCY = rf"(?:{_CODE}|{_CURRENCY_SIGN}|{_alternatives(_CURRENCY_WORDS)})"
_UNIT = (
    rf"(?:(?<![A-Za-z])(?i:{_alternatives(_WORD_UNITS)})(?![A-Za-z])"
    rf"|(?<![A-Za-z])(?:{_alternatives(_LETTER_UNITS)})(?![A-Za-z])|{_alternatives(_CJK_UNITS + _SYMBOL_UNITS)})"
)
_PER_UNIT = rf"(?:/|(?<![A-Za-z])(?i:per)\s+|每)\s*(?:{_UNIT}|(?<![A-Za-z])m(?![A-Za-z]))"
# Before the number only currency may stand; after it, currency and units.
_LEADING_AFFIX = re.compile(rf"^{_CURRENCY}\s*")
_TRAILING_AFFIX = re.compile(rf"\s*(?:{_PER_UNIT}|{_CURRENCY}|{_UNIT})$")
_MINUS = ("-", "\u2212")
_CORE = re.compile(r"[0-9][0-9.,' ]*|[.,][0-9]+")
_GROUPED = re.compile(r"[1-9][0-9]{0,2}(?:G[0-9]{3})+")
_LAKH = re.compile(r"[1-9][0-9]?(?:,[0-9]{2})+,[0-9]{3}")


class FieldValueError(ValueError):
    """The raw text does not give a value of the declared type (or does not match the pattern)."""


@dataclass(frozen=True)
class FieldReading:
    """One extracted field: the raw text, the typed value (None when it failed) and why it failed.

    `parsed_from` is the text the value was read from: the whole text, or the pattern's group."""

    name: str
    raw: str | None
    value: Any
    error: str = ""
    parsed_from: str | None = None

    @property
    def ok(self) -> bool:
        return not self.error


def _normalise(text: str) -> str:
    """NFKC, except superscripts, subscripts and fractions (NFKC would turn "10²" into "102")."""
    kept = []
    for char in text:
        decomposition = unicodedata.decomposition(char)
        if decomposition.startswith(("<super>", "<sub>", "<fraction>")):
            kept.append(char)
            continue
        char = unicodedata.normalize("NFKC", char)
        if len(char) == 1 and char.isdecimal() and not char.isascii():
            char = str(unicodedata.decimal(char))
        kept.append(char)
    return "".join(kept).replace("’", "'").replace("\u02bc", "'")


def _strip_affixes(text: str) -> tuple[str, bool]:
    """Peel currency, units and one sign off both ends. Returns the core and whether it is negative."""
    negative = signed = False
    core = text
    if core.startswith("(") and core.endswith(")"):  # accounting notation
        core, negative, signed = core[1:-1].strip(), True, True
    while True:
        before = core
        if match := _LEADING_AFFIX.match(core):
            core = core[match.end() :]
        elif core[:1] in (*_MINUS, "+") and not signed:
            negative, signed = core[0] in _MINUS, True
            core = core[1:].lstrip()
        if match := _TRAILING_AFFIX.search(core):
            core = core[: match.start()]
        elif core.endswith(_MINUS) and core[-2:-1].isdigit() and not signed:  # "1.234,56-"
            negative, signed = True, True
            core = core[:-1]
        if core == before:
            return core.strip(), negative


def _grouped_digits(part: str, separator: str) -> str:
    """The digits of an integer part grouped by `separator`, or an error naming the bad grouping."""
    marked = part.replace(separator, "G")
    if _GROUPED.fullmatch(marked) or (separator == "," and _LAKH.fullmatch(part)):
        return part.replace(separator, "")
    raise FieldValueError(f"{part!r} is not grouped in threes by {separator!r}")


def _core_value(core: str) -> float:
    if not _CORE.fullmatch(core) or not core[-1].isdigit():
        raise FieldValueError(f"{core!r} is left besides currency and units; a pattern whose group is the number can pick it out")
    spacers = {c for c in core if c in " '"}
    if len(spacers) > 1:
        raise FieldValueError("it mixes space and apostrophe grouping")
    marks = [c for c in core if c in ".,"]
    decimal: str | None = None
    grouping = next(iter(spacers), None)
    if "." in marks and "," in marks:
        decimal = core[max(core.rfind("."), core.rfind(","))]
        if grouping is not None:
            raise FieldValueError("it uses two grouping characters")
        grouping = "," if decimal == "." else "."
    elif marks:
        mark = marks[0]
        if len(marks) > 1:
            if grouping is not None:
                raise FieldValueError("it uses two grouping characters")
            grouping = mark
        elif grouping is not None or mark == ".":
            decimal = mark
        else:
            head, tail = core.split(",")
            decimal = None if len(tail) == 3 and re.fullmatch(r"[1-9][0-9]{0,2}", head) else ","
            grouping = "," if decimal is None else None
    if decimal is not None and core.count(decimal) != 1:
        raise FieldValueError(f"the decimal separator {decimal!r} appears more than once")
    whole, _, fraction = core.partition(decimal) if decimal else (core, "", "")
    if decimal and not fraction.isdigit():
        raise FieldValueError(f"nothing but digits may follow the decimal separator {decimal!r}")
    if grouping is not None and grouping in whole:
        digits = _grouped_digits(whole, grouping)
    elif whole and not whole.isdigit():
        raise FieldValueError(f"{whole!r} is not a whole number part")
    else:
        digits = whole
    if len(digits) > 1 and digits.startswith("0"):
        raise FieldValueError("it has a leading zero, like an identifier")
    return float(f"{digits or '0'}.{fraction or '0'}")


def parse_number(text: str) -> float:
    """`text` as a number when, less currency, units, sign and grouping, it is one (see module doc)."""
    normalised = " ".join(_normalise(text).split())
    if not normalised:
        raise FieldValueError("the text is empty")
    core, negative = _strip_affixes(normalised)
    if not core:
        raise FieldValueError(f"{text!r} has no digits")
    try:
        value = _core_value(core)
    except FieldValueError as error:
        raise FieldValueError(f"{text!r} is not a number: {error}") from None
    return -value if negative else value


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


def read_field(name: str, raw: str | None, kind: str, pattern: str | None, *, trim: bool = True) -> FieldReading:
    """Apply `pattern` (its first group when it has one) and convert to `kind`. The text is
    trimmed and its whitespace collapsed first unless `trim` is false (a typed trailing space, a
    poem's line breaks are then kept as read)."""
    if raw is None or not (raw.strip() if trim else raw):
        return FieldReading(name, raw, None, "not found on the page" if raw is None else "empty on the page")
    text = " ".join(raw.split()) if trim else raw
    if pattern:
        match = re.search(pattern, text)
        if not match:
            return FieldReading(name, raw, None, f"{text[:80]!r} does not match {pattern!r}")
        text = match.group(1) if match.groups() else match.group(0)
        if text is None:
            return FieldReading(name, raw, None, f"the first group of {pattern!r} took no part in the match")
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
        return FieldReading(name, raw, None, str(error), parsed_from=text)
    return FieldReading(name, raw, value, parsed_from=text)
