"""Binds features/execute_expressions_and_waits.feature: expressions, waits for what goes away, key-by-key
typing, a templated press, hover and person-written dates, in real Chromium on a loopback page
(tests/fixtures/site/language2.html); and the loader's verdict on bad expressions."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_bdd import parsers, scenarios, then

from runtime.template.expressions import ExpressionError, evaluate
from tests.execute.conftest import ExecRunner
from tests.execute.language_run_steps import *  # noqa: F403 - the run-and-read steps
from tests.execute.language_run_steps import records
from tests.execute.recipe_problem_steps import *  # noqa: F403 - the recipe-problem steps

scenarios("execute_expressions_and_waits.feature")

RECIPES = Path(__file__).resolve().parents[1] / "fixtures" / "recipes"


@then(parsers.parse('the close summary says "{text}"'))
def close_says(runner: ExecRunner, text: str) -> None:
    assert runner.last.verdict.summary.startswith(text), runner.last.verdict.summary


@then(parsers.parse('the variable "{first}" is {first_value:d} and "{second}" is true'))
def variables(runner: ExecRunner, first: str, first_value: int, second: str) -> None:
    [record] = records(runner, "compute")
    values = record["evidence"]["values"]
    # Typed: the sum is a number, not the text "12"; the comparison a boolean.
    assert values[first] == first_value and isinstance(values[first], int)
    assert values[second] is True


@then(parsers.parse('the state "{state_id}" was skipped saying "{why}"'))
def skipped_saying(runner: ExecRunner, state_id: str, why: str) -> None:
    [record] = records(runner, state_id)
    assert record["outcome"] == "skipped", record
    assert why in record["evidence"]["skipped_because"], record["evidence"]["skipped_because"]


@then(parsers.parse('the states "{state_ids}" were each met'))
def waits_met(runner: ExecRunner, state_ids: str) -> None:
    for state_id in state_ids.split(", "):
        [record] = records(runner, state_id)
        assert record["outcome"] == "ok" and record["ok"], record


@then(parsers.parse('the wait "{state_id}" held on "{written}" after polling'))
def until_polled(runner: ExecRunner, state_id: str, written: str) -> None:
    [record] = records(runner, state_id)
    assert record["evidence"]["condition"]["written"] == written
    assert record["evidence"]["condition"]["passed"] is True
    assert record["evidence"]["polls"] >= 1 and "held after" in record["observation_summary"]


# The longest poll interval of these recipes: a polled wait gives up when its next poll would
# come after its step timeout, so it has waited at least this much less than the timeout. (How much
# longer it may take is the machine's speed, which no check here depends on.)
LONGEST_POLL_MS = 250


@then(parsers.parse('the state "{state_id}" timed out after its {timeout_ms:d} ms saying "{text}"'))
def timed_out(runner: ExecRunner, state_id: str, timeout_ms: int, text: str) -> None:
    [record] = records(runner, state_id)
    assert record["outcome"] == "timeout" and not record["ok"], record
    assert text in record["observation_summary"], record["observation_summary"]
    assert record["evidence"]["waited_ms"] >= timeout_ms - LONGEST_POLL_MS, record["evidence"]



@then("expressions whose cost would be unbounded are refused when evaluated")
def unbounded_refused() -> None:
    for expression in ("9 ** 999999", "'a' * 10 ** 7", "'%999999999s' % 1", "fmt(1, '999999999d')", "pad(1, 10 ** 6)", "join(['ab'] * 90000, 'cd')"):
        with pytest.raises(ExpressionError):
            evaluate(expression, {})
    # The same operations within bounds are fine.
    assert evaluate("fmt(2 ** 10, ',') + pad(6, 2)", {}) == "1,02406"
