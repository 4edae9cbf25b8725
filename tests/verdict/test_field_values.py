"""Typed number fields over labelled texts (tests/verdict/number_cases.py), and how a pattern and
the declared type combine in `read_field`."""

from __future__ import annotations

import pytest

from runtime.execute.values.field_values import FieldValueError, parse_integer, parse_number, read_field
from tests.verdict.number_cases import NUMBER_TEXTS

READS = [(text, value) for text, value in NUMBER_TEXTS if not isinstance(value, tuple)]
REFUSALS = [(text, value[1]) for text, value in NUMBER_TEXTS if isinstance(value, tuple)]


def test_the_table_is_big_enough() -> None:
    assert len(NUMBER_TEXTS) >= 50 and len(READS) >= 25 and len(REFUSALS) >= 20


@pytest.mark.parametrize(("text", "value"), READS, ids=[repr(t) for t, _ in READS])
def test_a_text_that_is_a_number_reads_as_that_number(text: str, value: float) -> None:
    assert parse_number(text) == pytest.approx(value, abs=1e-9)


@pytest.mark.parametrize(("text", "why"), REFUSALS, ids=[f"{t!r}-{w}" for t, w in REFUSALS])
def test_a_text_that_is_not_a_number_is_refused_naming_the_text(text: str, why: str) -> None:
    with pytest.raises(FieldValueError) as refused:
        parse_number(text)
    if text:
        assert repr(text) in str(refused.value)


def test_an_identifier_fails_the_field_with_its_text_as_evidence() -> None:
    reading = read_field("price", "AU2606 suspended", "number", None)
    assert not reading.ok and reading.value is None
    assert reading.raw == "AU2606 suspended" and "'AU2606 suspended'" in reading.error


def test_a_pattern_group_is_the_number() -> None:
    reading = read_field("contract", "Contract AU2606 suspended", "integer", r"\bAU(\d{4})\b")
    assert reading.ok and reading.value == 2606 and reading.parsed_from == "2606"
    assert read_field("order", "Order 1,234 confirmed", "integer", r"Order ([\d,]+)").value == 1234


def test_a_pattern_group_must_itself_be_a_number() -> None:
    reading = read_field("code", "Flight CA981", "number", r"Flight (\w+)")
    assert not reading.ok and "'CA981'" in reading.error and reading.parsed_from == "CA981"


def test_a_pattern_that_does_not_match_is_an_error_quoting_the_text() -> None:
    reading = read_field("price", "sold out", "number", r"(\d+)")
    assert not reading.ok and "'sold out' does not match" in reading.error


def test_integers_refuse_fractions_and_accept_grouped_whole_numbers() -> None:
    assert parse_integer("1.234.567") == 1234567
    with pytest.raises(FieldValueError):
        parse_integer("12.5")


def test_missing_and_empty_fields_say_which() -> None:
    assert read_field("x", None, "number", None).error == "not found on the page"
    assert read_field("x", " \n", "number", None).error == "empty on the page"


def test_strings_and_booleans_are_unchanged() -> None:
    assert read_field("name", "  Gold   spot ", "string", None).value == "Gold spot"
    assert read_field("open", "Yes", "boolean", None).value is True
    assert not read_field("open", "maybe", "boolean", None).ok
