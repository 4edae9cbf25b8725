"""Steps shared by the recipe-language features that run a fixture recipe against the fixture
site and read its executions. Test modules bind them with
`from tests.execute.language_run_steps import *`, which brings pytest-bdd's step fixtures in."""

from __future__ import annotations

from pytest_bdd import parsers, then, when

from tests.execute.conftest import ExecRunner
from tests.fixtures.site_server import FixtureSite


def records(runner: ExecRunner, state_id: str) -> list[dict]:
    return [e for e in runner.last.file("executions.json") if e["state_id"] == state_id]


@when(parsers.parse('I run "{name}" against the fixture site'))
def run_on_fixture_site(runner: ExecRunner, fixture_site: FixtureSite, name: str) -> None:
    runner.wait(runner.start(name, {"site": fixture_site.base_url}), timeout=120)


@then(parsers.parse('the acts "{state_ids}" were each verified'))
def acts_verified(runner: ExecRunner, state_ids: str) -> None:
    assert runner.last.verdict.status.value == "completed", runner.last.verdict.summary
    for state_id in state_ids.split(", "):
        [record] = records(runner, state_id)
        assert record["outcome"] == "verified", record
        assert all(check["passed"] for check in record["evidence"]["checks"]), record["evidence"]
