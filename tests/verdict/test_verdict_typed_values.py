"""Binds features/verdict_typed_values.feature: number fields read only text that is a number."""

from __future__ import annotations

import pytest
from pytest_bdd import parsers, scenarios, then, when

from runtime.execute.values.field_values import FieldReading, read_field

scenarios("verdict_typed_values.feature")


@pytest.fixture
def reading() -> dict[str, FieldReading]:
    return {}


@when(parsers.re(r'the (?P<kind>number|integer) field "(?P<name>[^"]+)" reads "(?P<text>.*)"$'))
def read_plain(reading: dict[str, FieldReading], kind: str, name: str, text: str) -> None:
    reading["field"] = read_field(name, text, kind, None)


@when(parsers.re(r'the (?P<kind>number|integer) field "(?P<name>[^"]+)" with pattern "(?P<pattern>[^"]+)" reads "(?P<text>.*)"$'))
def read_with_pattern(reading: dict[str, FieldReading], kind: str, name: str, pattern: str, text: str) -> None:
    reading["field"] = read_field(name, text, kind, pattern)


@then(parsers.parse("the field's value is {value:g}"))
def value_is(reading: dict[str, FieldReading], value: float) -> None:
    field = reading["field"]
    assert field.ok, field.error
    assert field.value == pytest.approx(value, abs=1e-9)


@then(parsers.parse('the field fails and its error quotes "{text}"'))
def fails_quoting(reading: dict[str, FieldReading], text: str) -> None:
    field = reading["field"]
    assert not field.ok and field.value is None
    assert repr(text) in field.error, field.error
