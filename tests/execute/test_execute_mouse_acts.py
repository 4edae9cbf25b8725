"""Binds features/execute_mouse_acts.feature: drag, text selection, the press and hover with the
mouse, in real Chromium on a loopback page (tests/fixtures/site/language3.html)."""

from __future__ import annotations


from pytest_bdd import parsers, scenarios, then

from tests.execute.conftest import ExecRunner
from tests.execute.language_run_steps import *  # noqa: F403 - the run-and-read steps
from tests.execute.language_run_steps import records

scenarios("execute_mouse_acts.feature")


@then(parsers.parse('the drag "{state_id}" went from "{source}" to "{destination}" in moves of at most {step:d} px, the page saying "{said}"'))
def dragged(runner: ExecRunner, state_id: str, source: str, destination: str, step: int, said: str) -> None:
    [record] = records(runner, state_id)
    evidence = record["evidence"]
    drag = evidence["dragged"]
    assert evidence["target"]["css"] == source and drag["destination"]["css"] == destination, evidence
    (x1, y1), (x2, y2) = drag["from"], drag["to"]
    distance = ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5
    assert distance > 200 and drag["moves"] >= distance / step, drag
    # The proof is the page's own words, in the act's own-effect check.
    [check] = evidence["checks"]
    assert check["check"] == "own_effect" and check["passed"] and said in check["message"], check


@then(parsers.parse('the act "{state_id}" was unverified saying "{text}"'))
def unverified_saying(runner: ExecRunner, state_id: str, text: str) -> None:
    [record] = records(runner, state_id)
    assert record["outcome"] == "unverified" and not record["ok"], record
    assert text in " ".join(c["message"] for c in record["evidence"]["checks"]), record["evidence"]["checks"]


@then(parsers.parse('the act "{state_id}" was verified saying "{text}"'))
def verified_saying(runner: ExecRunner, state_id: str, text: str) -> None:
    [record] = records(runner, state_id)
    [check] = record["evidence"]["checks"]
    assert record["outcome"] == "verified" and check["check"] == "own_effect" and check["message"] == text, record["evidence"]


@then(parsers.parse('the act "{state_id}" failed with "{code}" saying "{text}"'))
def failed_with(runner: ExecRunner, state_id: str, code: str, text: str) -> None:
    [record] = records(runner, state_id)
    error = record["evidence"]["error"]
    assert record["outcome"] == "error" and error["code"] == code and text in error["message"], record["evidence"]


@then(parsers.parse('the act "{state_id}" read "{text}" at its "{event}", where the step before read {before:d}'))
def read_at_press(runner: ExecRunner, state_id: str, text: str, event: str, before: int) -> None:
    [record] = records(runner, state_id)
    assert record["evidence"]["read_at_press"] == {"price": text} and record["evidence"]["read_at_event"] == {"price": event}, record["evidence"]
    # The reading taken before the press saw the old price.
    [quote] = records(runner, "quote")
    assert quote["evidence"]["fields"]["price"]["value"] == before, quote["evidence"]


@then(parsers.parse('the variable "{first}" is "{value}" and "{second}" holds a backslash, "apples", a backslash and "t"'))
def backslashes_kept(runner: ExecRunner, first: str, value: str, second: str) -> None:
    [record] = records(runner, "compute")
    values = record["evidence"]["values"]
    assert values[first] == value, values
    # As written: no BEL (U+0007) from '\a', no tab from "\t".
    assert values[second] == "\\apples\\t" and "\x07" not in values[second], values
