"""Binds features/execute_language.feature: values, when, loops, page scripts, waits and the
fallback search against real Chromium on loopback pages."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.events import ConfirmationRequested, StatusChanged, ToolUsed
from runtime.outcomes import TaskState
from tests.execute.conftest import ExecRunner, wait_until
from tests.fixtures.docs_server import DocsSite
from tests.fixtures.site_server import FixtureSite

scenarios("execute_language.feature")


def executions(runner: ExecRunner) -> list[dict]:
    return runner.last.file("executions.json")


def records(runner: ExecRunner, state_id: str) -> list[dict]:
    return [e for e in executions(runner) if e["state_id"] == state_id]


@pytest.fixture(scope="module")
def docs_site() -> Iterator[DocsSite]:
    with DocsSite() as served:
        yield served


@when(parsers.parse('I run "{name}" against the fixture site'))
def run_on_fixture_site(runner: ExecRunner, fixture_site: FixtureSite, name: str) -> None:
    runner.wait(runner.start(name, {"site": fixture_site.base_url}), timeout=120)


@when(parsers.parse('I start "{name}" against the fixture site'))
def start_on_fixture_site(runner: ExecRunner, fixture_site: FixtureSite, name: str) -> None:
    runner.start(name, {"site": fixture_site.base_url})


@given("the Sphinx-like docs site on loopback")
def docs_ready(docs_site: DocsSite) -> None:
    assert docs_site.root.startswith("http://127.0.0.1:")


@when(parsers.parse('I run "{name}" against the docs site'))
def run_on_docs(runner: ExecRunner, docs_site: DocsSite, name: str) -> None:
    runner.wait(runner.start(name, {"docs": docs_site.root}), timeout=180)


@then(parsers.parse("the output is {expected}"))
def output_is(runner: ExecRunner, expected: str) -> None:
    output = runner.last.file("output.json")
    assert output["data"] == json.loads(expected), output


@then(parsers.parse('the output value "{key}" came from state "{state_id}" on the page "{path}"'))
def output_source(runner: ExecRunner, key: str, state_id: str, path: str) -> None:
    validate = records(runner, "output.validate")[-1]
    source = validate["evidence"]["sources"][key]
    assert source["state"] == state_id
    assert source["url"].endswith(path)
    assert source["at"] > 0


@then(parsers.parse('the state "{state_id}" was skipped because "{why}"'))
def skipped_because(runner: ExecRunner, state_id: str, why: str) -> None:
    [record] = records(runner, state_id)
    assert record["outcome"] == "skipped" and record["ok"] is True
    assert why in record["evidence"]["skipped_because"], record["evidence"]
    assert why in record["observation_summary"]


@then(parsers.parse('the state "{state_id}" never ran'))
def never_ran(runner: ExecRunner, state_id: str) -> None:
    ran = [e["state_id"] for e in executions(runner)]
    assert not [s for s in ran if s == state_id or s.startswith(state_id + "[")], ran


@then(parsers.parse('the states "{state_ids}" never ran'))
def states_never_ran(runner: ExecRunner, state_ids: str) -> None:
    for state_id in state_ids.split(", "):
        never_ran(runner, state_id)


@then(parsers.parse('the states "{state_ids}" were skipped and "{step}" never ran'))
def all_skipped(runner: ExecRunner, state_ids: str, step: str) -> None:
    for state_id in state_ids.split(", "):
        [record] = records(runner, state_id)
        assert record["outcome"] == "skipped", record
    never_ran(runner, step)


@then(parsers.parse('the executions show "{state_ids}" for the loop "{loop}"'))
def loop_executions(runner: ExecRunner, state_ids: str, loop: str) -> None:
    expected = state_ids.split(", ")
    bases = {s.partition("[")[0] for s in expected}
    shown = [e["state_id"] for e in executions(runner) if e["state_id"].partition("[")[0] in bases]
    assert shown == expected
    heads = records(runner, loop)
    # The loop state runs once per item, and once more to finish (unless the run stopped first).
    assert len(heads) in (len(expected) // len(bases), len(expected) // len(bases) + 1)
    assert all(h["outcome"] in ("item", "done") for h in heads)


@then(parsers.parse('the loop "{loop}" says {matched:d} matched and {ran:d} ran'))
def loop_cut(runner: ExecRunner, loop: str, matched: int, ran: int) -> None:
    done = records(runner, loop)[-1]
    assert done["outcome"] == "done"
    assert done["evidence"] == {"count": ran, "matched": matched}
    assert f"max_items {ran} left {matched - ran} out" in done["observation_summary"]


@then(parsers.parse('the state "{state_id}" failed with "{code}"'))
def failed_with(runner: ExecRunner, state_id: str, code: str) -> None:
    [record] = records(runner, state_id)
    assert record["outcome"] == "error" and record["error"] == code, record


@then(parsers.parse('the close summary says "{text}"'))
def close_says(runner: ExecRunner, text: str) -> None:
    assert runner.last.verdict.summary.startswith(text), runner.last.verdict.summary


@then(parsers.parse('the run waits for a confirmation of "{tool}"'))
def waits_for_confirmation(runner: ExecRunner, tool: str) -> None:
    record = runner.last
    assert wait_until(lambda: bool(runner.call(record.handle.pending_confirmations)), timeout=60)
    [pending] = runner.call(record.handle.pending_confirmations)
    assert pending.tool == tool
    assert record.payloads(ConfirmationRequested)[0].request_id == pending.request_id
    assert record.payloads(StatusChanged)[-1].status is TaskState.WAITING_FOR_USER_CONFIRMATION


@when(parsers.parse('I deny the script because "{reason}"'))
def deny(runner: ExecRunner, reason: str) -> None:
    record = runner.last
    [request] = runner.call(record.handle.pending_confirmations)
    assert runner.call(record.handle.confirm, request.request_id, False, reason) is True
    runner.wait(record)
    assert reason in record.verdict.summary


@then(parsers.parse('the state "{state_id}" never ran its script'))
def no_script(runner: ExecRunner, state_id: str) -> None:
    assert not [t for t in runner.last.payloads(ToolUsed) if t.tool == "browser_evaluate"]
    assert records(runner, state_id)[-1]["outcome"] == "stopped"


@then(parsers.parse('the waits "{state_ids}" were each met'))
def waits_met(runner: ExecRunner, state_ids: str) -> None:
    for state_id in state_ids.split(", "):
        [record] = records(runner, state_id)
        assert record["outcome"] == "ok" and record["verified"], record
        assert "satisfied" in record["observation_summary"]


@then(parsers.parse('the state "{state_id}" ended "{outcome}"'))
def state_ended(runner: ExecRunner, state_id: str, outcome: str) -> None:
    assert records(runner, state_id)[-1]["outcome"] == outcome


@then(parsers.parse('the output title starts with "{prefix}"'))
def title_starts(runner: ExecRunner, prefix: str) -> None:
    assert runner.last.file("output.json")["data"]["title"].startswith(prefix)


@then(parsers.parse('the replan followed "{path}" after the search results were drawn'))
def followed_result(runner: ExecRunner, path: str) -> None:
    repairs = runner.last.file("plans.json")["plan_repairs"]
    followed = [r for r in repairs if r["followed"]]
    assert len(followed) == 1 and path in followed[0]["followed"], repairs
    replans = records(runner, "open.replan")
    assert replans[-1]["outcome"] == "found"


@then(parsers.parse('the docs site was never asked for "{first}" or "{second}"'))
def never_asked(docs_site: DocsSite, first: str, second: str) -> None:
    asked = docs_site.requested
    assert any(p.endswith("/search.html") for p in asked) and any(p.endswith("/searchindex.js") for p in asked), asked
    assert not [p for p in asked if p.endswith((first, second))], asked


@then(parsers.parse('the state "{state_id}" clicked although an ad covers its centre'))
def clicked_visible_part(runner: ExecRunner, state_id: str) -> None:
    [record] = records(runner, state_id)
    assert record["outcome"] == "verified", record
    acted = [t for t in record["tool_results"] if t["action"] == "act"]
    assert len(acted) == 1 and acted[0]["ok"] and acted[0]["error"] is None, record["tool_results"]


@then(parsers.parse('the replan waited for "{kind}" before reading the result links'))
def replan_waited(runner: ExecRunner, kind: str) -> None:
    started = [t for t in runner.last.payloads(ToolUsed) if t.phase == "start"]
    summaries = [t.summary for t in started]
    waited = summaries.index(f"wait for search results ({kind})")
    assert "read search result links" in summaries[waited + 1 :], summaries
    [replan] = records(runner, "open.replan")
    assert [t["action"] for t in replan["tool_results"]].count("wait") == 1
