"""Binds features/browser_locators.feature: locators, strictness and the own-effect check, in real
Chromium against loopback pages."""

from __future__ import annotations

import json

from pytest_bdd import parsers, scenarios, then, when

from runtime.browser import ActionErrorCode, Target
from tests.browser.harness import SessionHarness, last, page_text, remember

scenarios("browser_locators.feature")


@when(parsers.parse("I resolve the locator {locator}"))
def resolve(harness: SessionHarness, locator: str) -> None:
    tab = harness.session.tab()

    async def find() -> object:
        try:
            return await tab.resolve(Target.from_params(json.loads(locator)))
        except Exception as exc:  # noqa: BLE001 - the Then step reads what was raised
            return exc

    harness.results["resolved"] = harness.run(find())


@then(parsers.parse("it finds one {tag} among {count:d} match"))
def found_one(harness: SessionHarness, tag: str, count: int) -> None:
    resolved = harness.results["resolved"]
    assert not isinstance(resolved, Exception), resolved
    assert resolved.how["chosen"]["tag"] == tag and resolved.how["matches"] == count, resolved.how


@then("it finds nothing")
def found_nothing(harness: SessionHarness) -> None:
    resolved = harness.results["resolved"]
    assert isinstance(resolved, Exception) and resolved.error.code is ActionErrorCode.NOT_FOUND, resolved


@when(parsers.parse('I extract the field "{field}" through the locator {locator}, with the page fingerprint'))
def extract_through(harness: SessionHarness, field: str, locator: str) -> None:
    remember(harness, harness.run(harness.session.extract({field: {"target": json.loads(locator)}}, fingerprint=True)))


@then("the extract found the element the locator resolved and read what it holds")
def extract_found_resolved(harness: SessionHarness) -> None:
    result, resolved = last(harness), harness.results["resolved"]
    assert result.ok and not isinstance(resolved, Exception), (result.error, resolved)
    assert result.data["found"]["value"] == resolved.how
    holds = "function() { return ['INPUT', 'TEXTAREA', 'SELECT'].includes(this.tagName) ? this.value : this.innerText.trim(); }"
    assert result.data["fields"]["value"] == harness.run(harness.session.tab().call_on(resolved, holds))


@then("the extract carries the page fingerprint of the document it read")
def extract_fingerprint(harness: SessionHarness) -> None:
    carried = last(harness).data["fingerprint"]
    taken = harness.run(harness.session.fingerprint())
    assert taken.ok and carried == taken.data, (carried, taken.data)


@when(parsers.parse('I extract the fields "{first}" by {first_locator} and "{second}" by {second_locator}'))
def extract_two(harness: SessionHarness, first: str, first_locator: str, second: str, second_locator: str) -> None:
    fields = {first: {"target": json.loads(first_locator)}, second: {"target": json.loads(second_locator)}}
    remember(harness, harness.run(harness.session.extract(fields)))


@then(parsers.parse('the extract lists "{field}" as ambiguous with {count:d} candidates'))
def extract_ambiguous(harness: SessionHarness, field: str, count: int) -> None:
    result = last(harness)
    assert result.ok, result.error
    problem = result.data["ambiguous"][field]
    assert result.data["fields"][field] is None and problem["count"] == count and len(problem["candidates"]) == count, problem


@then(parsers.parse('the extract lists "{field}" as missing'))
def extract_missing(harness: SessionHarness, field: str) -> None:
    result = last(harness)
    assert result.ok and field in result.data["missing"] and field not in result.data["ambiguous"], result.data


@when(parsers.parse("I click the locator {locator}"))
def click(harness: SessionHarness, locator: str) -> None:
    remember(harness, harness.run(harness.session.click(json.loads(locator))))


@when(parsers.parse('I type "{text}" into the locator {locator} and submit'))
def type_and_submit(harness: SessionHarness, text: str, locator: str) -> None:
    remember(harness, harness.run(harness.session.type_text(json.loads(locator), text, submit=True)))


@then(parsers.parse('the click chose {role} "{name}" among {count:d} match'))
@then(parsers.parse('the click chose {role} "{name}" among {count:d} matches'))
def chose(harness: SessionHarness, role: str, name: str, count: int) -> None:
    result = last(harness)
    assert result.ok, result.error
    target = result.data["target"]
    assert (target["chosen"]["role"], target["chosen"]["name"], target["matches"]) == (role, name, count), target


@then(parsers.parse('the page says "{text}"'))
def page_says(harness: SessionHarness, text: str) -> None:
    assert f"Last: {text}" in page_text(harness)


@then("the page says nothing was clicked")
def nothing_clicked(harness: SessionHarness) -> None:
    said = harness.run(harness.session.tab().evaluate("document.getElementById('said').textContent"))
    assert said == ""


@then(parsers.parse('the action failed with "{code}" listing {count:d} candidates'))
def failed_listing(harness: SessionHarness, code: str, count: int) -> None:
    result = last(harness)
    assert not result.ok and result.error is not None and result.error.code.value == code
    assert result.error.details["count"] == count and len(result.error.details["candidates"]) == count
    assert "nth" in result.error.message


def _own_effect(harness: SessionHarness) -> object:
    result = harness.run(harness.session.verify("own_effect"))
    assert result.ok, result.error
    return result


@then("the own-effect check fails")
def own_effect_fails(harness: SessionHarness) -> None:
    assert last(harness).ok, last(harness).error
    result = _own_effect(harness)
    assert result.data["passed"] is False and result.data["observed"] == [], result.data


@then(parsers.parse('the own-effect check passes naming "{what}"'))
def own_effect_passes(harness: SessionHarness, what: str) -> None:
    assert last(harness).ok, last(harness).error
    result = _own_effect(harness)
    assert result.data["passed"] is True and any(what in effect for effect in result.data["observed"]), result.data
    assert not any("clock" in effect for effect in result.data["observed"]), result.data


@then(parsers.parse('the action succeeded and landed on "{path}"'))
def landed(harness: SessionHarness, path: str) -> None:
    result = last(harness)
    assert result.ok, result.error
    assert result.data["submitted"] is True and result.data.get("navigated") is True and result.data["value"] == "gold"
    assert harness.run(harness.session.tab().current_url()).endswith(path)


@then(parsers.parse('the click failed as missed, naming "{landed}" as what was pressed'))
def click_missed(harness: SessionHarness, landed: str) -> None:
    result = last(harness)
    assert not result.ok and result.error is not None, result.data
    assert result.error.code.value == "not_interactable" and result.error.details["state"] == "missed", result.error
    assert landed in result.error.details["landed_on"], result.error.details
    said = harness.run(harness.session.tab().evaluate("document.getElementById('said').textContent"))
    assert said == "remove pressed", said  # the page did see the press land there


def _said(harness: SessionHarness) -> str:
    return harness.run(harness.session.tab().evaluate("document.getElementById('said').textContent"))


@then(parsers.parse('the click passed and the page saw "{said}"'))
def click_passed_once(harness: SessionHarness, said: str) -> None:
    result = last(harness)
    assert result.ok, result.error
    assert _said(harness) == said


@then(parsers.parse('the click failed as moved and the page saw "{said}"'))
def click_moved(harness: SessionHarness, said: str) -> None:
    result = last(harness)
    assert not result.ok and result.error is not None, result.data
    assert result.error.code.value == "not_interactable" and result.error.details["state"] == "moved", result.error
    assert _said(harness) == said
