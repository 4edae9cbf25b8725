"""Binds features/action_cache_versions.feature: one task on several versions of the order desk
(order_desk.py), real runs on the shared Chromium with the real google-genai client against the
scripted Gemini server on loopback, the action cache in a SQLite run store of the test's own.

Each changed version starts from the path the first desk taught (put back into the store as the
learning run wrote it), so each change is met by the same cached path."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.store.action_cache import CacheEntry, SqliteActionCache
from tests.execute.conftest import ExecRunner, RunRecord
from tests.execute.order_desk import PIN, OrderDesk, cache_steps, click, close, order_script, run_desk, type_into
from tests.fixtures.gemini_server import GeminiServer

scenarios("action_cache_versions.feature")

TYPE_PIN = {"act": {"type": {"label": "PIN"}, "text": "{pin}"}}
SAVE = {"act": {"click": {"role": "button", "name": "Save order", "exact": True}}}


def typed(field: str) -> dict[str, Any]:
    return {"act": {"type": {"role": "textbox", "name": field, "exact": True}, "text": "{customer}"}}


@pytest.fixture
def runs() -> dict[str, Any]:
    return {}


def order_execution(record: RunRecord) -> dict[str, Any]:
    (execution,) = [r for r in record.file("executions.json") if r["state_id"] == "order"]
    return execution


@given("the order desk in its first version")
def first_version(desk: OrderDesk) -> None:
    desk.version = "first"


@when('the model learns the desk: it types the customer and the PIN, clicks "Save order" and closes')
def learn(runner: ExecRunner, desk: OrderDesk, cache: SqliteActionCache, gemini: GeminiServer, runs: dict[str, Any]) -> None:
    gemini.enqueue(*order_script("Ada"))
    record = run_desk(runner, desk, cache, gemini, "Ada")
    assert record.verdict.stop_reason.value == "completed" and record.model_calls == 4, record.verdict.summary
    (runs["taught"],) = cache.entries()
    assert runs["taught"].steps == [typed("Customer"), TYPE_PIN, SAVE], runs["taught"].steps


@when(parsers.parse("the {version} is run again for another customer"))
def run_again(runner: ExecRunner, desk: OrderDesk, cache: SqliteActionCache, gemini: GeminiServer, runs: dict[str, Any]) -> None:
    runs["replayed"] = run_desk(runner, desk, cache, gemini, "Bo")


@then("that run completes with no model call, replayed from the cache")
def replayed(runs: dict[str, Any]) -> None:
    record = runs["replayed"]
    assert record.verdict.stop_reason.value == "completed" and record.verdict.verified, record.verdict.summary
    assert record.model_calls == 0 and cache_steps(record)[-1].outcome == "replayed"
    assert "Order placed for Bo" in str(order_execution(record)["evidence"]["conditions"][0]["observed"])


@when(parsers.parse('the Customer field moves into a "Customer details" panel that is closed until its button opens it'))
def moved(desk: OrderDesk) -> None:
    desk.version = "moved"


@when('a notice page whose link "Continue to the desk" leads to the first desk now stands at the start')
def interstitial(desk: OrderDesk) -> None:
    desk.version = "interstitial"


@when('"Customer" comes to label a lookup field, and the order\'s own field is "Name on the order"')
def relabelled(desk: OrderDesk) -> None:
    desk.version = "relabelled"


_MOVES = {
    "the model opens the panel": [click("Customer details")],
    "the model follows the link": [click("Continue to the desk", role="link")],
}


@when(parsers.parse("the path the first desk taught is replayed there, and {move}, types the customer and the PIN, clicks \"Save order\" and closes"))
def repaired_by_model(runner: ExecRunner, desk: OrderDesk, cache: SqliteActionCache, gemini: GeminiServer, runs: dict[str, Any], move: str) -> None:
    cache.put(runs["taught"])
    gemini.enqueue(*_MOVES[move], *order_script("Cy"))
    runs["fell_back"] = run_desk(runner, desk, cache, gemini, "Cy")


@then(parsers.parse("the cached type finds no field, the run falls back at cached step 1 and completes verified after {calls:d} model calls"))
def fell_back_at_first(runs: dict[str, Any], calls: int) -> None:
    record = runs["fell_back"]
    assert record.verdict.stop_reason.value == "completed" and record.verdict.verified, record.verdict.summary
    assert record.model_calls == calls
    outcomes = [(s.outcome, s.ok) for s in cache_steps(record)]
    assert outcomes[:2] == [("error", False), ("fell_back", False)], outcomes
    assert "not_found" in cache_steps(record)[0].observation_summary, cache_steps(record)[0].observation_summary
    execution = order_execution(record)
    assert execution["evidence"]["action_cache"]["failed_at"] == 1 and execution["verified"] is True
    assert "Order placed for Cy" in str(execution["evidence"]["conditions"][0]["observed"])


@then(parsers.parse('the entry is the path that verified: {first}, type the customer and the PIN, click "Save order"'))
def entry_replaced(cache: SqliteActionCache, runs: dict[str, Any], first: str) -> None:
    opened = {
        "open the panel": {"act": {"click": {"role": "button", "name": "Customer details", "exact": True}}},
        "follow the link": {"act": {"click": {"role": "link", "name": "Continue to the desk", "exact": True}}},
    }[first]
    (entry,) = cache.entries()
    assert entry.run_id == runs["fell_back"].handle.run_id and entry.replays == 0
    assert entry.steps == [opened, typed("Customer"), TYPE_PIN, SAVE], entry.steps


@when("the path the first desk taught is replayed there, and the model closes at once")
def closes_at_once(runner: ExecRunner, desk: OrderDesk, cache: SqliteActionCache, gemini: GeminiServer, runs: dict[str, Any]) -> None:
    cache.put(runs["taught"])
    gemini.enqueue(close("placed"))
    runs["wrong"] = run_desk(runner, desk, cache, gemini, "Fay")


@then("every cached act held its own proof, done_when caught the order without a name, and the run ends verification_failed")
def caught_wrong_field(runs: dict[str, Any]) -> None:
    record = runs["wrong"]
    assert (record.verdict.status.value, record.verdict.stop_reason.value) == ("error", "verification_failed"), record.verdict.summary
    assert not record.verdict.verified and record.model_calls == 1
    steps = cache_steps(record)
    assert [(s.outcome, s.ok) for s in steps[:4]] == [("verified", True)] * 3 + [("fell_back", False)], steps
    # The page said what went wrong (its observed text is cut short in the summary).
    assert "'Order placed for Fay' is not on the page" in steps[3].observation_summary and "Enter the name on the" in steps[3].observation_summary, steps[3]


@then("the entry is still the path the first desk taught")
def entry_kept(cache: SqliteActionCache, runs: dict[str, Any]) -> None:
    (entry,) = cache.entries()
    taught: CacheEntry = runs["taught"]
    assert (entry.run_id, entry.steps) == (taught.run_id, taught.steps)


@when('the replay falls back again, and the model types the customer into "Name on the order", clicks "Save order" and closes')
def mended(runner: ExecRunner, desk: OrderDesk, cache: SqliteActionCache, gemini: GeminiServer, runs: dict[str, Any]) -> None:
    gemini.enqueue(type_into("Name on the order", "Gus"), click("Save order"), close("placed"))
    runs["mended"] = run_desk(runner, desk, cache, gemini, "Gus")


@then("the run falls back after cached step 3, completes verified after 3 model calls, and the order is placed for that customer")
def mended_verified(runs: dict[str, Any]) -> None:
    record = runs["mended"]
    assert record.verdict.stop_reason.value == "completed" and record.verdict.verified, record.verdict.summary
    assert record.model_calls == 3
    execution = order_execution(record)
    assert execution["evidence"]["action_cache"]["failed_at"] == 3
    assert "Order placed for Gus" in str(execution["evidence"]["conditions"][0]["observed"])


@then("the entry is the path that verified: the three cached steps that held, then the model's two")
def mended_entry(cache: SqliteActionCache, runs: dict[str, Any]) -> None:
    (entry,) = cache.entries()
    assert entry.run_id == runs["mended"].handle.run_id
    assert entry.steps == [*runs["taught"].steps, typed("Name on the order"), SAVE], entry.steps
    assert PIN not in json.dumps(entry.to_data())  # the PIN only as its placeholder
