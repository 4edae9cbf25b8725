"""Conditions on values the run holds, not on the page: `value_equals`, `value_matches` and
`value_in` (their values may be `{steps...}` / `{vars...}` references). conditions.py asks here;
each answer is (passed, expected, observed, message)."""

from __future__ import annotations

import re
from typing import Any

from runtime.execute.values.run_values import RunValues
from runtime.template.expressions import ExpressionError, as_text, names_used

VALUE_CHECKS = ("value_equals", "value_matches", "value_in", "expression")


def judge_value(values: RunValues, check: str, spec: Any) -> tuple[bool, Any, Any, str]:
    if check == "expression":
        return _judge_expression(values, spec)
    observed = values.value(spec["value"])
    shown = as_text(observed)
    if check == "value_equals":
        expected = as_text(values.value(spec["to"]))
        passed = shown == expected
        return passed, expected, observed, f"{shown!r} {'equals' if passed else 'does not equal'} {expected!r}"
    if check == "value_matches":
        pattern = values.pattern(spec["pattern"]) or ""
        passed = re.search(pattern, shown) is not None
        return passed, pattern, observed, f"{shown!r} {'matches' if passed else 'does not match'} {pattern!r}"
    items = values.value(spec["list"])
    if not isinstance(items, list):
        return False, items, observed, f"{spec['list']} is not a list ({type(items).__name__})"
    texts = [as_text(item) for item in items]
    passed = shown in texts
    return passed, texts, observed, f"{shown!r} {'is' if passed else 'is not'} one of {texts!r}"


def _judge_expression(values: RunValues, expression: str) -> tuple[bool, Any, Any, str]:
    """An `expression` condition: true or false, with the values it read as what was observed."""
    read: dict[str, Any] = {}
    try:
        for name in names_used(expression):
            read[name] = values.value(f"{{{name}}}")
        result = values.expression(expression)
    except (ExpressionError, KeyError) as error:
        return False, expression, read, f"{expression} cannot be judged: {error}"
    passed = bool(result)
    shown = ", ".join(f"{name}={value!r}" for name, value in read.items())
    return passed, expression, read, f"{expression} is {as_text(passed)}" + (f" ({shown})" if shown else "")
