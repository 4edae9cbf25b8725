"""One judge for "does this condition hold?". An act's expectations, a verify step's conditions, an
agent step's done_when and the model's own browser_verify all ask `check_condition`.

A condition is one recipe mapping with one key: text_includes, title_includes, url_matches,
url_includes, element {locator, state?, value?}, own_effect (the latest act had an effect of its
own, as effects.py in the driver judges it), page_changed (the page fingerprint differs from the one taken
before an act), field_present or field_matches. Page conditions are asked of
the driver's verify action; field conditions read what the run extracted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from runtime.browser.session.verbs import SessionVerbs
from runtime.execute.judges.value_conditions import VALUE_CHECKS, judge_value
from runtime.execute.values.run_values import RunValues, locator_of

# A recipe's element state as the driver's element_state check and the value it must have.
ELEMENT_STATES: dict[str, tuple[str, bool]] = {
    "present": ("exists", True),
    "absent": ("exists", False),
    "visible": ("visible", True),
    "hidden": ("visible", False),
    "enabled": ("enabled", True),
    "checked": ("checked", True),
    "selected": ("selected", True),
}

# What an act's `expect` may hold, in the order its conditions are checked.
EXPECTATION_KEYS = ("url_includes", "url_matches", "text_includes", "element", "not")


@dataclass(frozen=True)
class ConditionCheck:
    """One condition judged: `check` is the condition's key as the recipe writes it."""

    check: str
    passed: bool
    expected: Any
    observed: Any
    message: str = ""
    # The document the page was read from (DocumentIdentity.to_dict()); None for field checks.
    document: dict[str, Any] | None = None
    # The condition as the recipe wrote it (before filling), for messages: `{not: {text_includes: x}}`.
    written: str = ""
    # False when the page could not be asked (a read that timed out, a dead tab): the condition is
    # then unknown, which fails it and also fails its `not`.
    judged: bool = True

    def to_dict(self) -> dict[str, Any]:
        shown = asdict(self)
        if self.judged:
            del shown["judged"]
        return shown


@dataclass(frozen=True)
class ConditionProbe:
    """Where conditions are judged: the page (through the session's verbs, aimed at the tab the
    state acts in), the run's placeholder values and extracted fields. `before` is the page
    fingerprint an act took before acting."""

    session: SessionVerbs
    values: RunValues
    fields: Mapping[str, Any]
    timeout_ms: int
    before: str = ""
    # What the act's own result already shows it caused (the tabs it opened).
    act_effects: tuple[str, ...] = ()
    # False for an agent's done_when and verify: text in contenteditable content is what the model
    # may have typed there itself, and an element or a value its own page script made is its own,
    # so neither shows that the page says it (inside a `not` they count again, the stricter reading).
    editable_text: bool = True
    # True inside an agent's `not`: text the model's own page script erased from the page still
    # counts as there (a model cannot delete or hide the words its step must not find).
    erased_text: bool = False


async def check_condition(probe: ConditionProbe, condition: dict[str, Any], action_id: str) -> ConditionCheck:
    """Does `condition` hold now? `action_id` must be new for each call: the driver answers a
    repeated id from its cache."""
    return replace(await _judge(probe, condition, action_id), written=condition_as_written(condition))


def condition_as_written(condition: dict[str, Any]) -> str:
    """A condition in the recipe's own words, as one line of YAML: `{not: {value_equals: {value: '{vars.x}', to: '0'}}}`."""
    # Imported here: a run without conditions (most one-page reads) never pays PyYAML's import.
    import yaml

    return yaml.safe_dump(condition, default_flow_style=True, sort_keys=False, allow_unicode=True, width=10_000).strip()


async def _judge(probe: ConditionProbe, condition: dict[str, Any], action_id: str) -> ConditionCheck:
    values = probe.values
    if "not" in condition:
        inner = await _judge(replace(probe, editable_text=True, erased_text=not probe.editable_text), condition["not"], action_id)
        if not inner.judged:
            # What could not be read is not known to be false: its `not` does not hold either.
            return ConditionCheck("not", False, {"not": inner.expected}, inner.observed, f"could not judge: {inner.message}", judged=False)
        message = f"{'not ' if inner.passed else ''}{inner.message}" if inner.message else ("it holds" if inner.passed else "it does not hold")
        return ConditionCheck("not", not inner.passed, {"not": inner.expected}, inner.observed, message)
    for check in VALUE_CHECKS:
        if check in condition:
            passed, expected, observed, message = judge_value(values, check, condition[check])
            return ConditionCheck(check, passed, expected, observed, message)
    # An agent step's reading (editable_text false): what its model's own script made is not the page's.
    own = {} if probe.editable_text else {"editable": False}
    if "text_includes" in condition:
        expected = values.text(condition["text_includes"])
        erased = {"erased": True} if probe.erased_text else {}
        return await _ask_page(probe, "text_includes", expected, action_id, "text_present", value=expected, **own, **erased)
    if "title_includes" in condition:
        expected = values.text(condition["title_includes"]) or ""
        return await _ask_page(probe, "title_includes", expected, action_id, "title_includes", value=expected)
    if "url_includes" in condition:
        expected = values.text(condition["url_includes"])
        return await _ask_page(probe, "url_includes", expected, action_id, "url_matches", value=expected, **own)
    if "url_matches" in condition:
        # A regular expression: never filled, its braces are quantifiers.
        pattern = values.pattern(condition["url_matches"])
        return await _ask_page(probe, "url_matches", pattern, action_id, "url_matches", value=pattern, regex=True, **own)
    if "element" in condition:
        element = condition["element"]
        target = values.locator(locator_of(element))
        if element.get("value") is not None:
            return await _ask_page(probe, "element", target, action_id, "element_state", target=target, state="value", expected=values.text(element["value"]), **own)
        state, wanted = ELEMENT_STATES[element.get("state", "visible")]
        return await _ask_page(probe, "element", target, action_id, "element_state", target=target, state=state, expected=wanted, **own)
    if "own_effect" in condition:
        if probe.act_effects:
            return ConditionCheck("own_effect", True, "a change the act caused", list(probe.act_effects), "; ".join(probe.act_effects))
        return await _ask_page(probe, "own_effect", "a change the act caused", action_id, "own_effect")
    if "page_changed" in condition:
        result = await probe.session.fingerprint(action_id=action_id, timeout_ms=probe.timeout_ms)
        if not result.ok:
            error = f"{result.error_code.value if result.error_code else 'error'}: {result.error.message if result.error else ''}"
            return ConditionCheck("page_changed", False, "a different page fingerprint", error, error, judged=False)
        after = str(result.data.get("digest", ""))
        changed = bool(after) and after != probe.before
        return ConditionCheck("page_changed", changed, "a different page fingerprint", after[:16], "the page changed" if changed else "the page did not change")
    if "field_present" in condition:
        name = condition["field_present"]
        value = probe.fields.get(name)
        return ConditionCheck("field_present", value is not None and value != "", name, value)
    patterns: dict[str, str] = {name: values.pattern(pattern) or "" for name, pattern in (condition.get("field_matches") or {}).items()}
    mismatched = [name for name, pattern in patterns.items() if probe.fields.get(name) is None or not re.search(pattern, str(probe.fields[name]))]
    return ConditionCheck("field_matches", not mismatched, patterns, {name: probe.fields.get(name) for name in patterns})


async def check_all(probe: ConditionProbe, conditions: list[dict[str, Any]], action_id: str) -> list[ConditionCheck]:
    """Each condition once, in order; the driver calls are `action_id:1`, `action_id:2`, ..."""
    return [await check_condition(probe, condition, f"{action_id}:{i}") for i, condition in enumerate(conditions, 1)]


async def _ask_page(probe: ConditionProbe, check: str, expected: Any, action_id: str, driver_check: str, /, **params: Any) -> ConditionCheck:
    """Ask the driver's verify action; `params` go to it as they are (an element check's own
    `expected` among them, hence the positional-only parameters)."""
    result = await probe.session.verify(driver_check, action_id=action_id, timeout_ms=probe.timeout_ms, **params)
    if not result.ok:
        # The driver could not look (a read that timed out, a dead tab; an absent element is an
        # answer, not this): the condition is unknown, so it does not hold and neither does its `not`.
        error = f"{result.error_code.value if result.error_code else 'error'}: {result.error.message if result.error else ''}"
        return ConditionCheck(check, False, expected, error, error, judged=False)
    return ConditionCheck(
        check, bool(result.data.get("passed")), expected, result.data.get("observed"), str(result.data.get("message", "")), result.data.get("document")
    )


def expectation_conditions(expect: dict[str, Any] | None) -> list[dict[str, Any]]:
    """An act's `expect` as single conditions. With none, the act must show an effect of its own
    (`own_effect`, judged by effects.py: a typed field holding the text, an option selected, a box
    checked, or a change in the document that is not the page's own churn); `page_changed: true`
    asks instead for any change of the page, wherever it comes from."""
    expect = dict(expect or {})
    conditions = [{key: expect[key]} for key in EXPECTATION_KEYS if expect.get(key) is not None]
    wants_change = expect.get("page_changed")
    if wants_change:
        conditions.append({"page_changed": True})
    elif wants_change is None and not conditions:
        conditions.append({"own_effect": True})
    return conditions


def filled_condition(values: RunValues, condition: dict[str, Any]) -> dict[str, Any]:
    """`condition` with its placeholders filled as check_condition fills them (regexes never)."""
    filled = dict(condition)
    for key in ("text_includes", "title_includes", "url_includes"):
        if key in filled:
            filled[key] = values.text(filled[key])
    if "element" in filled:
        element = dict(filled["element"])
        element.update(values.locator(locator_of(element)) or {})
        if element.get("value") is not None:
            element["value"] = values.text(element["value"])
        filled["element"] = element
    return filled


def describe_condition(condition: dict[str, Any]) -> str:
    """A condition in words, for the model's instructions."""
    if "text_includes" in condition:
        return f"the page shows the text {condition['text_includes']!r}"
    if "title_includes" in condition:
        return f"the page title includes {condition['title_includes']!r}"
    if "url_matches" in condition:
        return f"the URL matches the regular expression {condition['url_matches']!r}"
    if "url_includes" in condition:
        return f"the URL includes {condition['url_includes']!r}"
    if "element" in condition:
        element = dict(condition["element"])
        state = element.pop("state", "visible")
        value = element.pop("value", None)
        if value is not None:
            return f"the element {json.dumps(element, ensure_ascii=False)} has the value {value!r}"
        return f"the element {json.dumps(element, ensure_ascii=False)} is {state}"
    if "field_present" in condition:
        return f"the field {condition['field_present']!r} was extracted"
    return f"the fields match {json.dumps(condition.get('field_matches', {}), ensure_ascii=False)}"


def describe_failures(checks: list[ConditionCheck], observed_chars: int) -> str:
    """The failed checks, each with what was expected and what the page showed."""
    return "; ".join(
        f"{c.written or c.check} does not hold" + (f": {c.message}" if c.message else "") + f" (observed {str(c.observed)[:observed_chars]!r})"
        for c in checks
        if not c.passed
    )
