"""The mutation check's list of Then steps that killed no mutant, on a real mutmut run of a tiny project.

The sample shop has two functions and one scenario for each: the discount scenario checks the price
exactly, so some mutants of `discounted` fail it; the currency scenario only checks that the currency
is a string, which every mutant of `currency` (another string) still is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from tools.mutation import MutationRun, MutationTarget, run_mutants

# A ceiling of its own, not an expected duration: real mutmut and a pytest per mutant, about a
# minute on an idle machine with four workers.
pytestmark = pytest.mark.timeout(900)

scenarios("gate_mutation_then_steps.feature")

SHOP_PRICING = """\
def discounted(price: int, percent: int) -> int:
    if percent > 100:
        raise ValueError("a discount above 100 percent")
    return price - price * percent // 100


def currency() -> str:
    return "EUR"
"""

PRICING_FEATURE = """\
Feature: Pricing

  Scenario: A discount lowers the price
    Given a price of 200
    When a discount of 10 percent is applied
    Then the price is 180

  Scenario: A price has a currency
    Given a price of 200
    When the currency is looked up
    Then the currency is some text
"""

PRICING_TEST = """\
from pytest_bdd import given, parsers, scenarios, then, when

from shop.pricing import currency, discounted

scenarios("pricing.feature")


@given(parsers.parse("a price of {price:d}"), target_fixture="outcome")
def a_price(price: int) -> dict:
    return {"price": price}


@when(parsers.parse("a discount of {percent:d} percent is applied"))
def apply_discount(outcome: dict, percent: int) -> None:
    outcome["price"] = discounted(outcome["price"], percent)


@when("the currency is looked up")
def look_up_currency(outcome: dict) -> None:
    outcome["currency"] = currency()


@then(parsers.parse("the price is {price:d}"))
def the_price_is(outcome: dict, price: int) -> None:
    assert outcome["price"] == price


@then("the currency is some text")
def the_currency_is_text(outcome: dict) -> None:
    assert isinstance(outcome["currency"], str)
"""

FILES = {
    "shop/__init__.py": "",
    "shop/pricing.py": SHOP_PRICING,
    "features/pricing.feature": PRICING_FEATURE,
    "tests/test_pricing.py": PRICING_TEST,
    "pyproject.toml": '[tool.pytest.ini_options]\nbdd_features_base_dir = "features/"\n',
}
TARGET = MutationTarget(source="shop", mutated=("shop/*",), tests=("tests",), also_copy=("features",))
CURRENCY_MUTANT = "shop.pricing.x_currency__mutmut_"
DISCOUNT_MUTANT = "shop.pricing.x_discounted__mutmut_"


@dataclass
class ShopCheck:
    project: Path
    run: MutationRun | None = None

    def named(self) -> list[dict[str, object]]:
        assert self.run is not None, "the mutation check has not run"
        return self.run.then_steps.to_json()["steps"]


def _line_of(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), start=1) if needle in line)


@given("a sample shop project whose currency scenario only checks that the currency is text", target_fixture="shop")
def sample_shop(tmp_path: Path) -> ShopCheck:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return ShopCheck(tmp_path)


@when("the mutation check runs on the sample shop project")
def run_the_check(shop: ShopCheck) -> None:
    shop.run = run_mutants(shop.project, TARGET, max_children=2)


@then("every mutant of the currency function survived")
def currency_mutants_survived(shop: ShopCheck) -> None:
    assert shop.run is not None
    currency = {mutant: status for mutant, status in shop.run.statuses.items() if mutant.startswith(CURRENCY_MUTANT)}
    assert currency and set(currency.values()) == {"survived"}, currency
    discount = [status for mutant, status in shop.run.statuses.items() if mutant.startswith(DISCOUNT_MUTANT)]
    assert "killed" in discount, discount


@then(parsers.parse('the Then step "{step}" is named at its feature line with its step definition and the currency mutants'))
def step_is_named(shop: ShopCheck, step: str) -> None:
    assert shop.run is not None
    covering = sum(1 for mutant in shop.run.statuses if mutant.startswith(CURRENCY_MUTANT))
    expected = {
        "feature": f"features/pricing.feature:{_line_of(PRICING_FEATURE, step)}",
        "step": step,
        "definition": f"tests/test_pricing.py:{_line_of(PRICING_TEST, 'def the_currency_is_text')}",
        "covering_mutants": covering,
    }
    assert shop.named() == [expected]


@then(parsers.parse('the Then step "{step}" is not named'))
def step_is_not_named(shop: ShopCheck, step: str) -> None:
    named = [entry["step"] for entry in shop.named()]
    assert step not in named, named


@then(parsers.parse("{count:d} Then steps were considered"))
def steps_considered(shop: ShopCheck, count: int) -> None:
    assert shop.run is not None
    verdicts = shop.run.then_steps.to_json()
    assert (verdicts["considered"], verdicts["covering_no_mutant"]) == (count, 0), verdicts
