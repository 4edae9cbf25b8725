"""Snapshot refs: bound to tab + snapshot + DOM node; frames, shadow roots, budget, new flags."""

from __future__ import annotations

from pytest_bdd import parsers, scenarios, then, when

from tests.browser.harness import SessionHarness, find_element, remember

scenarios("browser_refs.feature")


@then(parsers.parse('the snapshot lists {role} "{name}" in a frame from "{host}"'))
def _in_frame(harness: SessionHarness, role: str, name: str, host: str) -> None:
    element = find_element(harness.results["snapshot"], role, name)
    assert element.frame != "main" and f"//{host}:" in element.frame, element


@then(parsers.parse('a new snapshot lists {role} "{name}"'))
def _new_snapshot_lists(harness: SessionHarness, role: str, name: str) -> None:
    result = harness.run(harness.session.snapshot())
    find_element(result.value, role, name)


@then(parsers.parse('the snapshot lists {role} "{name}" inside a shadow root'))
def _in_shadow(harness: SessionHarness, role: str, name: str) -> None:
    assert find_element(harness.results["snapshot"], role, name).in_shadow


@when(parsers.parse("I take a snapshot with at most {count:d} elements"))
def _snapshot_budget(harness: SessionHarness, count: int) -> None:
    result = remember(harness, harness.run(harness.session.snapshot(max_elements=count)))
    assert result.ok, result.error
    harness.results["snapshot"] = result.value


@then(parsers.parse("the snapshot has {count:d} elements, all interactive"))
def _budget_kept(harness: SessionHarness, count: int) -> None:
    snapshot = harness.results["snapshot"]
    assert len(snapshot.elements) == count
    assert all(element.interactive for element in snapshot.elements)
    assert snapshot.truncated and snapshot.total_candidates > 9000


@then(parsers.parse("the snapshot says it cut elements beyond max_elements={count:d}"))
def _budget_note(harness: SessionHarness, count: int) -> None:
    snapshot = harness.results["snapshot"]
    assert any(f"max_elements={count}" in note for note in snapshot.cut), snapshot.cut
    assert "cut:" in snapshot.render()


@then(parsers.parse('the snapshot flags {role} "{name}" as new'))
def _is_new(harness: SessionHarness, role: str, name: str) -> None:
    assert find_element(harness.results["snapshot"], role, name).new


@then(parsers.parse('the snapshot does not flag {role} "{name}" as new'))
def _not_new(harness: SessionHarness, role: str, name: str) -> None:
    assert not find_element(harness.results["snapshot"], role, name).new
