"""Binds features/action_cache.feature: real runs (the shared Chromium, the real google-genai client
against the scripted Gemini server on loopback) of an order desk whose page the test changes
between runs, with the action cache in a SQLite run store of the test's own."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.cli.main import main
from runtime.events import StatusChanged
from runtime.trace_analysis.runs import find_runs
from runtime.trace_analysis.spans import read_trace_paths
from runtime.trace_export import TraceExport
from runtime.store.action_cache import CacheEntry, CacheKey, SqliteActionCache
from runtime.store.location import PostgresUrl
from runtime.store.opening import open_action_cache
from tests.execute.conftest import ExecRunner
from tests.execute.order_desk import PIN, OrderDesk, cache_steps, click, order_script, run_desk
from tests.fixtures.gemini_server import GeminiServer, function_call_reply

scenarios("action_cache.feature")


@pytest.fixture
def runs() -> dict[str, Any]:
    return {}



@given(parsers.parse('an order desk whose "Save order" button places the order'))
def desk_v1(desk: OrderDesk) -> None:
    desk.version = "first"


@when("the model closes at once, and the run does not verify")
def closes_at_once(runner: ExecRunner, desk: OrderDesk, cache: SqliteActionCache, gemini: GeminiServer) -> None:
    gemini.enqueue(function_call_reply("close", {"summary": "nothing to do"}))
    record = run_desk(runner, desk, cache, gemini, "Ann")
    assert record.verdict.stop_reason.value == "verification_failed", record.verdict.summary


@then("the action cache holds nothing")
def holds_nothing(cache: SqliteActionCache) -> None:
    assert cache.entries() == []


@when("the model types the customer by its ref and the PIN by its label, clicks \"Save order\" by its ref and closes")
def learn(runner: ExecRunner, desk: OrderDesk, cache: SqliteActionCache, gemini: GeminiServer, runs: dict[str, Any]) -> None:
    gemini.enqueue(*order_script("Ada"))
    runs["learned"] = run_desk(runner, desk, cache, gemini, "Ada")


@then("the run completes and the cache holds its three acts, the customer and PIN only as placeholders")
def learned(cache: SqliteActionCache, desk: OrderDesk, runs: dict[str, Any]) -> None:
    record = runs["learned"]
    assert record.verdict.stop_reason.value == "completed" and record.model_calls == 4, record.verdict.summary
    (entry,) = cache.entries()
    assert entry.key.step == "order" and entry.key.input_names == ("customer",) and entry.run_id == record.handle.run_id
    assert entry.key.start_url == f"{desk.base_url}/desk"
    assert entry.steps == [
        {"act": {"type": {"role": "textbox", "name": "Customer", "exact": True}, "text": "{customer}"}},
        {"act": {"type": {"label": "PIN"}, "text": "{pin}"}},
        {"act": {"click": {"role": "button", "name": "Save order", "exact": True}}},
    ], entry.steps
    assert PIN not in json.dumps(entry.to_data())
    assert record.file("verdict.json")["action_cache"]["steps"]["order"]["learned"] is True


@when("the desk is run again for another customer")
def again(runner: ExecRunner, desk: OrderDesk, cache: SqliteActionCache, gemini: GeminiServer, runs: dict[str, Any]) -> None:
    runs["replayed"] = run_desk(runner, desk, cache, gemini, "Bo")


@then("it completes with no model call, replayed from the cache")
def replayed(cache: SqliteActionCache, runs: dict[str, Any]) -> None:
    record = runs["replayed"]
    assert record.verdict.stop_reason.value == "completed" and record.verdict.verified, record.verdict.summary
    assert record.model_calls == 0
    assert [s.outcome for s in cache_steps(record)][-1] == "replayed"
    (execution,) = [r for r in record.file("executions.json") if r["state_id"] == "order"]
    assert execution["verified"] is True and execution["evidence"]["action_cache"]["model_calls"] == 0
    assert "Order placed for " in str(execution["evidence"]["conditions"][0]["observed"])
    assert cache.entries()[0].replays >= 1


@when('the desk is changed so that "Save order" saves a draft and "Confirm order" places the order')
def desk_v2(desk: OrderDesk) -> None:
    desk.version = "renamed"


@when('the model, handed the step after the replay, clicks "Confirm order" by its ref and closes')
def fallback_run(runner: ExecRunner, desk: OrderDesk, cache: SqliteActionCache, gemini: GeminiServer, runs: dict[str, Any], tmp_path: Path) -> None:
    gemini.enqueue(click("Confirm order"), function_call_reply("close", {"summary": "confirmed"}))
    tracing = TraceExport.from_env().for_run(tmp_path / "fallback-trace.jsonl")
    try:
        runs["fell_back"] = run_desk(runner, desk, cache, gemini, "Cy", tracer_provider=tracing.provider)
    finally:
        tracing.close()
    runs["trace"] = tmp_path / "fallback-trace.jsonl"


@then("the replay's wrong click is caught by done_when, the run falls back to the model and completes verified")
def fell_back(gemini: GeminiServer, runs: dict[str, Any]) -> None:
    record = runs["fell_back"]
    assert record.verdict.stop_reason.value == "completed" and record.verdict.verified, record.verdict.summary
    assert record.model_calls == 2
    # Every cached act held its own proof (the draft button did something); done_when did not.
    outcomes = [(s.outcome, s.ok) for s in cache_steps(record)]
    assert outcomes[:4] == [("verified", True)] * 3 + [("fell_back", False)], outcomes
    assert "Draft saved for Cy" in cache_steps(record)[3].observation_summary
    # The model is told what the replay did, and starts from the page the replay left.
    first = gemini.requests[-2]
    assert "A path cached from an earlier run was replayed" in " ".join(first.user_texts())


@then("the fallback is in the events, executions.json and the verdict, and the entry is replaced by the verified path")
def fallback_recorded(cache: SqliteActionCache, runs: dict[str, Any]) -> None:
    record = runs["fell_back"]
    (execution,) = [r for r in record.file("executions.json") if r["state_id"] == "order"]
    assert execution["evidence"]["action_cache"]["outcome"] == "fell_back" and execution["evidence"]["action_cache"]["failed_at"] == 3
    verdict = record.file("verdict.json")
    assert verdict["evidence"]["action_cache_fallbacks"]["order"]["outcome"] == "fell_back"
    assert verdict["action_cache"]["steps"]["order"]["learned"] is True
    (entry,) = cache.entries()
    assert entry.run_id == record.handle.run_id and entry.replays == 0
    # The agent state's span says it fell back, and the trace's figures count it as an action retry.
    (figures,) = find_runs(read_trace_paths([runs["trace"]]).spans).runs
    assert figures.cache_fallbacks == 1 and figures.retries == 1 and figures.model_retries == 0
    assert entry.steps[-1] == {"act": {"click": {"role": "button", "name": "Confirm order", "exact": True}}}, entry.steps


@when("the changed desk is run again for another customer")
def again_changed(runner: ExecRunner, desk: OrderDesk, cache: SqliteActionCache, gemini: GeminiServer, runs: dict[str, Any]) -> None:
    runs["replayed"] = run_desk(runner, desk, cache, gemini, "Di")


@when("the changed desk is run with the switch cache=bypass while the model places the order")
def bypass(runner: ExecRunner, desk: OrderDesk, cache: SqliteActionCache, gemini: GeminiServer, runs: dict[str, Any]) -> None:
    runs["entry"] = cache.entries()[0]
    gemini.enqueue(*order_script("Eve", "Confirm order"))
    runs["bypassed"] = run_desk(runner, desk, cache, gemini, "Eve", {"cache": "bypass"})


@then("the bypassed run asked the model, left the cache as it was, and records cache=bypass in its events and verdict")
def bypassed(cache: SqliteActionCache, runs: dict[str, Any]) -> None:
    record = runs["bypassed"]
    assert record.verdict.stop_reason.value == "completed" and record.model_calls == 4, record.verdict.summary
    assert cache.entries() == [runs["entry"]]
    assert any("cache=bypass" in s.detail for s in record.payloads(StatusChanged))
    verdict = record.file("verdict.json")
    assert verdict["switches"]["cache"] == "bypass" and verdict["evidence"]["switches"] == {"cache": "bypass"}
    assert verdict["action_cache"] == {"mode": "bypass", "steps": {"order": {"outcome": "bypass", "key": runs["entry"].key.digest}}}


@when("the changed desk is run with the switch cache=refresh while the model places the order")
def refresh(runner: ExecRunner, desk: OrderDesk, cache: SqliteActionCache, gemini: GeminiServer, runs: dict[str, Any]) -> None:
    gemini.enqueue(*order_script("Fay", "Confirm order"))
    runs["learned"] = run_desk(runner, desk, cache, gemini, "Fay", {"cache": "refresh"})


@then("the refreshed run asked the model and its verified path replaced the entry")
def refreshed(cache: SqliteActionCache, runs: dict[str, Any]) -> None:
    record = runs["learned"]
    assert record.verdict.stop_reason.value == "completed" and record.model_calls == 4, record.verdict.summary
    (entry,) = cache.entries()
    # The path learned before had four acts (the replayed ones, then the model's); this run's has three.
    assert entry.run_id == record.handle.run_id != runs["entry"].run_id and len(runs["entry"].steps) == 4
    assert entry.steps == [*runs["entry"].steps[:2], {"act": {"click": {"role": "button", "name": "Confirm order", "exact": True}}}], entry.steps
    assert record.file("verdict.json")["action_cache"]["steps"]["order"] == {"outcome": "refresh", "key": entry.key.digest, "learned": True, "learned_steps": 3}


@then("verity cache list names the entry, show prints its steps with the PIN as a placeholder, and clear empties the cache")
def cache_commands(cache: SqliteActionCache, runs: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    (entry,) = cache.entries()
    store = ["cache", "--store", str(cache.path)]
    capsys.readouterr()
    assert main([*store, "list"]) == 0
    listed = capsys.readouterr().out
    assert f"{entry.key.digest}  agent-order-desk/order  " in listed and "3 step(s)  0 replay(s)" in listed and runs["learned"].handle.run_id in listed, listed
    assert main([*store, "show", entry.key.digest[:8]]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["steps"] == entry.steps and shown["inputs"] == ["customer"] and PIN not in json.dumps(shown)
    assert main([*store, "show", "ffffffff"]) == 3 and "no cache entries match" in capsys.readouterr().err
    assert main([*store, "clear", "--recipe", "agent-order-desk"]) == 0 and capsys.readouterr().out == "cleared 1 cache entry\n"
    assert cache.entries() == []


@given("a fresh PostgreSQL database as the run store", target_fixture="database_url")
def fresh_database(postgres_dsn: Callable[[], str]) -> str:
    return postgres_dsn()


@when("one server learns a path into the action cache", target_fixture="shared")
def learned_on_postgres(database_url: str) -> Iterator[dict[str, Any]]:
    # A server opens the run store (which migrates it) and then the cache in it.
    first = open_action_cache(PostgresUrl(database_url))
    key = CacheKey("agent-order-desk", "order", "http://127.0.0.1:8000/desk", ("customer",), "0123456789abcdef")
    entry = CacheEntry(key, [{"act": {"type": {"label": "PIN"}, "text": "{pin}"}}], "run-1", stored_ns=1_700_000_000_000_000_000)
    first.put(entry)
    second = open_action_cache(PostgresUrl(database_url), migrated=True)
    yield {"first": first, "second": second, "entry": entry}
    first.close()
    second.close()


@then("another server on the database finds it, verity cache lists it there, and clearing it on one empties it for both")
def shared_on_postgres(database_url: str, shared: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    entry = shared["entry"]
    assert shared["second"].find(entry.key) == entry
    shared["second"].note_replay(entry.key)
    assert shared["first"].entries()[0].replays == 1
    capsys.readouterr()
    assert main(["cache", "--store", database_url, "list"]) == 0
    assert f"{entry.key.digest}  agent-order-desk/order  http://127.0.0.1:8000/desk  1 step(s)  1 replay(s)" in capsys.readouterr().out
    assert shared["second"].clear(digest_prefix=entry.key.digest[:6]) == 1
    assert shared["first"].entries() == [] and shared["first"].find(entry.key) is None
