"""Binds features/execute_readable_limit.feature: the readable-text limit in a run's evidence."""

from __future__ import annotations

from pytest_bdd import parsers, scenarios, then, when

from tests.execute.conftest import ExecRunner
from tests.fixtures.site_server import FixtureSite

scenarios("execute_readable_limit.feature")


@when(parsers.parse('I run "{name}" against the fixture site'))
def run_on_fixture_site(runner: ExecRunner, fixture_site: FixtureSite, name: str) -> None:
    runner.wait(runner.start(name, {"site": fixture_site.base_url}), timeout=120)


@then(parsers.parse('the steps "{first}" and "{second}" say the HTML was over readable_html_limit_bytes={limit}'))
def says_limit(runner: ExecRunner, first: str, second: str, limit: str) -> None:
    executions = runner.last.file("executions.json")
    for state_id in (first, second):
        [record] = [e for e in executions if e["state_id"] == state_id]
        note = record["evidence"].get("readable_text", "")
        assert f"readable_html_limit_bytes={limit}" in note and "trafilatura not run" in note, record["evidence"]
