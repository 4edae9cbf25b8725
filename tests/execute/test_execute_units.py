"""Plain tests of the executor's pure parts: typed field reading and target classification."""

from __future__ import annotations

import pytest

from runtime.execute.values.field_values import parse_number, read_field
from runtime.execute.judges.target_check import PageObservation, validate_target
from runtime.outcomes import BlockerKind


@pytest.mark.parametrize(
    ("text", "number"),
    [("1,234.50", 1234.5), ("$ 1 234.50 USD", 1234.5), ("-0.75%", -0.75), ("29.84 USD", 29.84), ("−3", -3.0), (".5", 0.5)],
)
def test_numbers_are_read_as_pages_print_them(text: str, number: float) -> None:
    assert parse_number(text) == number


def test_a_field_without_a_number_is_an_error_with_its_raw_text() -> None:
    reading = read_field("price", "n/a", "number", None)
    assert not reading.ok and reading.value is None and "n/a" in reading.error


def test_pattern_group_is_kept_before_typing() -> None:
    assert read_field("order", "Order 1,234 confirmed", "integer", r"Order ([\d,]+)").value == 1234
    assert read_field("order", "Order 12.5", "integer", r"Order ([\d.]+)").error
    assert read_field("code", "abc", "string", r"^\d+$").error.startswith("'abc' does not match")


def test_missing_and_empty_fields_say_which() -> None:
    assert read_field("x", None, "string", None).error == "not found on the page"
    assert read_field("x", "  ", "string", None).error == "empty on the page"


def _page(url: str = "http://127.0.0.1:8000/q", status: int | None = 200, title: str = "Gold quote", text: str = "gold price") -> PageObservation:
    return PageObservation("open", url, status, title, text)


def _check(page: PageObservation, **kwargs: object):
    options = {"expected_status": 200, "allowed_domains": ["127.0.0.1"], "keywords": ["gold"]} | kwargs
    return validate_target(page, **options)  # type: ignore[arg-type]


def test_the_url_judge_comes_before_status_and_status_before_keywords() -> None:
    # The policy proxy's 403 for another host is that host, not access_denied (honesty labels rule 7).
    check = _check(_page(url="http://elsewhere.test/q", status=403, text="nothing"))
    assert check.blocker_kind is BlockerKind.DOMAIN_NOT_ALLOWED and check.evidence["status"] == 403
    assert _check(_page(url="file:///etc/hostname", status=None)).blocker_kind is BlockerKind.SCHEME_NOT_ALLOWED
    check = _check(_page(status=500, text="nothing"))
    assert check.blocker_kind is BlockerKind.SERVER_ERROR and check.evidence["status"] == 500


def test_keyword_match_is_case_insensitive_and_reported() -> None:
    check = _check(_page(title="GOLD Quote", text=""), keywords=["gold", "quote"])
    assert check.valid and check.evidence["keywords_found"] == ["gold", "quote"]


def test_an_unknown_status_is_not_held_against_the_page() -> None:
    assert _check(_page(status=None)).valid


def test_wildcard_domains_match_subdomains_only() -> None:
    assert _check(_page(url="http://quotes.example.com/q"), allowed_domains=["*.example.com"]).valid
    blocked = _check(_page(url="http://example.com/q"), allowed_domains=["*.example.com"])
    assert blocked.blocker_kind is BlockerKind.DOMAIN_NOT_ALLOWED


def test_agent_tools_are_valid_json_schema_and_only_runnable_ones_are_offered() -> None:
    import jsonschema

    from runtime.execute.agent.acting import ACT_TOOLS
    from runtime.execute.agent.offered_tools import AGENT_TOOL_NAMES, offered_tools
    from runtime.recipe.tool_registry import AGENT_DEFAULT_TOOLS, BUILTIN_TOOLS

    for spec in offered_tools(None):
        jsonschema.Draft202012Validator.check_schema(spec.schema)
    builtin = {tool.name for tool in BUILTIN_TOOLS}
    assert set(AGENT_TOOL_NAMES) <= builtin  # names users see are the registry's
    assert set(AGENT_DEFAULT_TOOLS) <= set(AGENT_TOOL_NAMES)
    assert set(ACT_TOOLS) <= set(AGENT_TOOL_NAMES)
    offered = [spec.name for spec in offered_tools(["browser_click", "notes_write", "close"])]
    assert offered == ["browser_click", "close"]


def test_model_text_keeps_its_braces_when_checked_like_recipe_text() -> None:
    from runtime.execute.agent.acting import literal_text
    from runtime.template.placeholders import fill

    assert fill(literal_text("total {price} USD"), {"price": "9"}) == "total {price} USD"
    assert literal_text({"text": "{x}", "index": 1}) == {"text": "{{x}}", "index": 1}


def test_a_target_index_sent_as_a_float_becomes_an_int() -> None:
    from runtime.plan.agent_vocabulary import agent_target

    assert agent_target({"role": "link", "index": 2.0}) == {"role": "link", "nth": 2}
    assert agent_target("s1:e4") == {"ref": "s1:e4"}


def test_every_plan_state_kind_but_terminal_has_one_handler() -> None:
    from typing import get_args

    from runtime.execute.states import HANDLERS
    from runtime.plan.model import StateKind

    assert set(HANDLERS) == set(get_args(StateKind)) - {"terminal"}


def test_every_row_of_the_state_kind_table_has_exactly_one_handler_and_every_handler_a_row() -> None:
    from runtime.execute.states import HANDLERS
    from runtime.plan.state_kinds import STATE_KIND_ROWS
    from runtime.recipe.steps import STEP_KINDS

    rows = [kind.name for kind in STATE_KIND_ROWS]
    assert len(rows) == len(set(rows)), "a kind has two rows"
    assert sorted(HANDLERS) == sorted(rows), "a row without a handler, or a handler without a row"
    assert len({id(handler) for handler in HANDLERS.values()}) == len(HANDLERS), "one handler serves two rows"
    assert set(STEP_KINDS) <= set(HANDLERS), "a recipe step kind without a handler"


def test_an_act_without_page_expectations_expects_an_effect_of_its_own() -> None:
    from runtime.execute.judges.conditions import expectation_conditions

    assert expectation_conditions(None) == [{"own_effect": True}]
    assert expectation_conditions({"text_includes": "Saved", "url_matches": "/done$"}) == [{"url_matches": "/done$"}, {"text_includes": "Saved"}]
    assert expectation_conditions({"text_includes": "Saved", "page_changed": True})[-1] == {"page_changed": True}
    assert expectation_conditions({"page_changed": False}) == []
