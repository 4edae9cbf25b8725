"""Binds features/execute_search_results.feature: the fallback search's default result ranking,
against real Chromium on a Sphinx-like docs site (results drawn by script) and a server-rendered
documentation portal (results between a big menu, a sidebar and a footer), both on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from tests.execute.conftest import ExecRunner
from tests.fixtures.docs_server import DocsSite
from tests.fixtures.search_portal import SearchPortal

scenarios("execute_search_results.feature")


@pytest.fixture(scope="module")
def docs_site() -> Iterator[DocsSite]:
    with DocsSite() as served:
        yield served


@pytest.fixture(scope="module")
def portal() -> Iterator[SearchPortal]:
    with SearchPortal() as served:
        yield served


@given("the Sphinx-like docs site on loopback")
def docs_ready(docs_site: DocsSite) -> None:
    assert docs_site.root.startswith("http://127.0.0.1:")


@given("the documentation portal on loopback")
def portal_ready(portal: SearchPortal) -> None:
    assert portal.root.startswith("http://127.0.0.1:")


@when(parsers.parse('I run "{name}" against the docs site'))
def run_on_docs(runner: ExecRunner, docs_site: DocsSite, name: str) -> None:
    runner.wait(runner.start(name, {"docs": docs_site.root}), timeout=180)


@when(parsers.parse('I run "{name}" against the portal'))
def run_on_portal(runner: ExecRunner, portal: SearchPortal, name: str) -> None:
    runner.wait(runner.start(name, {"site": portal.root}), timeout=180)


@then(parsers.parse('the output title starts with "{prefix}"'))
def title_starts(runner: ExecRunner, prefix: str) -> None:
    assert runner.last.file("output.json")["data"]["title"].startswith(prefix)


@then(parsers.parse("the output is {expected}"))
def output_is(runner: ExecRunner, expected: str) -> None:
    assert runner.last.file("output.json")["data"] == json.loads(expected)


@then(parsers.parse('the replan followed "{path}" ranked first as "{why}"'))
def followed_first(runner: ExecRunner, path: str, why: str) -> None:
    repairs = runner.last.file("plans.json")["plan_repairs"]
    followed = [r for r in repairs if r["followed"]]
    # One search was enough: the first query's best result was the target.
    assert len(repairs) == 1 and len(followed) == 1 and followed[0]["followed"].split("?")[0].endswith(path), repairs
    [replan] = [e for e in runner.last.file("executions.json") if e["state_id"] == "open.replan"]
    ranked = replan["evidence"]["ranked"]
    assert ranked[0]["url"] == followed[0]["followed"] and ranked[0]["why"] == why, ranked
    # The page's navigation was read and ranked below it, not missed.
    assert any(r["why"] in ("the page's navigation", "an index page or the search page itself") for r in ranked[1:]) or len(ranked) < 5, ranked


@then(parsers.parse('the docs site was never asked for "{first}" or "{second}"'))
def docs_never_asked(docs_site: DocsSite, first: str, second: str) -> None:
    asked = docs_site.requested
    assert any(p.endswith("/search.html") for p in asked) and any(p.endswith("/searchindex.js") for p in asked), asked
    assert not [p for p in asked if p.endswith((first, second))], asked


@then(parsers.parse("the portal was never asked for any of {paths}"))
def portal_never_asked(portal: SearchPortal, paths: str) -> None:
    asked = portal.requested
    assert "/search" in asked and "/docs/codecs/json.html" in asked, asked
    assert not set(json.loads(f"[{paths}]")) & set(asked), asked
