"""Binds features/policy_urls.feature, and runs the judge's table (tests/policy/url_cases.yaml)
case by case so a failure names its URL."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from ruamel.yaml import YAML

from runtime.policy import NetworkPolicy, UrlJudgement, domain_pattern_problem, judge_url

scenarios("policy_urls.feature")

CASES_PATH = Path(__file__).parent / "url_cases.yaml"


def load_cases(path: Path = CASES_PATH) -> tuple[dict[str, NetworkPolicy], list[dict[str, Any]]]:
    document = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    policies = {
        name: NetworkPolicy.of(spec["allowed_domains"], allow_private_network=spec.get("allow_private_network", False))
        for name, spec in document["policies"].items()
    }
    return policies, document["cases"]


def mismatches(judgement: UrlJudgement, expected: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Expected field -> (expected, got) for every field that differs."""
    got = {
        "allowed": judgement.allowed,
        "kind": judgement.blocker_kind.value if judgement.blocker_kind else None,
        "host": judgement.host,
        "port": judgement.port,
        "private_class": judgement.private_class,
        "check_resolved_addresses": judgement.check_resolved_addresses,
    }
    if "kind" not in expected and judgement.allowed:
        expected = {**expected, "kind": None}
    return {key: (value, got[key]) for key, value in expected.items() if got[key] != value}


_POLICIES, _CASES = load_cases()


@pytest.mark.parametrize("case", _CASES, ids=[f"{c['policy']}:{c['url']!r}" for c in _CASES])
def test_url_case(case: dict[str, Any]) -> None:
    judgement = judge_url(case["url"], _POLICIES[case["policy"]], websocket=case.get("websocket", False))
    assert not mismatches(judgement, case["expect"]), (mismatches(judgement, case["expect"]), judgement.reason)


@dataclass
class JudgeWorld:
    allowed_domains: list[str] = field(default_factory=list)
    allow_private_network: bool = False
    judgement: UrlJudgement | None = None
    table_failures: list[str] = field(default_factory=list)
    table_size: int = 0
    pattern_problem: str | None = None
    table_path: Path = CASES_PATH

    @property
    def policy(self) -> NetworkPolicy:
        return NetworkPolicy.of(self.allowed_domains, allow_private_network=self.allow_private_network)

    def judge(self, url: str, websocket: bool = False) -> UrlJudgement:
        self.judgement = judge_url(url, self.policy, websocket=websocket)
        return self.judgement

    @property
    def last(self) -> UrlJudgement:
        assert self.judgement is not None, "the scenario must judge a URL first"
        return self.judgement


@given(parsers.parse('the URL cases in "{path}"'), target_fixture="world")
def _cases(repo: Path, path: str) -> JudgeWorld:
    return JudgeWorld(table_path=repo / path)


@when("every case is judged")
def _judge_all(world: JudgeWorld) -> None:
    policies, cases = load_cases(world.table_path)
    world.table_size = len(cases)
    for case in cases:
        judgement = judge_url(case["url"], policies[case["policy"]], websocket=case.get("websocket", False))
        wrong = mismatches(judgement, case["expect"])
        if wrong:
            world.table_failures.append(f"{case['url']!r}: {wrong} ({judgement.reason})")


@then("every judgement has its expected verdict, host and port")
def _table_holds(world: JudgeWorld) -> None:
    assert not world.table_failures, "\n".join(world.table_failures)


@then(parsers.parse("the table holds at least {count:d} cases"))
def _table_size(world: JudgeWorld, count: int) -> None:
    assert world.table_size >= count


@given(parsers.parse('the allowed domains "{patterns}"'), target_fixture="world")
def _allowed(patterns: str) -> JudgeWorld:
    return JudgeWorld(allowed_domains=[p.strip() for p in patterns.split(",") if p.strip()])


@given("no allowed domains", target_fixture="world")
def _no_allowed() -> JudgeWorld:
    return JudgeWorld()


@when("private networks are allowed")
def _private_allowed(world: JudgeWorld) -> None:
    world.allow_private_network = True


@when(parsers.parse('the URL "{url}" is judged as a WebSocket'))
def _judge_websocket(world: JudgeWorld, url: str) -> None:
    world.judge(url, websocket=True)


@when(parsers.parse('the URL "{url}" is judged'))
def _judge(world: JudgeWorld, url: str) -> None:
    world.judge(url)


@then(parsers.parse('it is refused with "{kind}" for the host "{host}"'))
def _refused_for_host(world: JudgeWorld, kind: str, host: str) -> None:
    judgement = world.last
    assert not judgement.allowed and judgement.blocker_kind is not None, judgement
    assert (judgement.blocker_kind.value, judgement.host) == (kind, host), judgement


@then(parsers.parse('it is refused with "{kind}"'))
def _refused(world: JudgeWorld, kind: str) -> None:
    judgement = world.last
    assert not judgement.allowed and judgement.blocker_kind is not None and judgement.blocker_kind.value == kind, judgement


@then(parsers.parse('it is allowed for the host "{host}" on port {port:d}'))
def _allowed_for(world: JudgeWorld, host: str, port: int) -> None:
    judgement = world.last
    assert judgement.allowed and (judgement.host, judgement.port) == (host, port), judgement


@then("it is allowed")
def _is_allowed(world: JudgeWorld) -> None:
    assert world.last.allowed, world.last


@then("it is allowed, and its resolved addresses must be checked")
def _allowed_with_check(world: JudgeWorld) -> None:
    assert world.last.allowed and world.last.check_resolved_addresses, world.last


@then(parsers.parse('it is refused as a "{klass}" address'))
def _refused_private(world: JudgeWorld, klass: str) -> None:
    judgement = world.last
    assert not judgement.allowed and judgement.private_class == klass, judgement
    assert judgement.blocker_kind is not None and judgement.blocker_kind.value == "domain_not_allowed"


@then(parsers.parse('the URL "{url}" is allowed'))
def _url_allowed(world: JudgeWorld, url: str) -> None:
    assert world.judge(url).allowed, world.last


@then(parsers.parse('the URL "{url}" is refused'))
def _url_refused(world: JudgeWorld, url: str) -> None:
    assert not world.judge(url).allowed, world.last


@when(parsers.parse('the allowed-domain pattern "{pattern}" is checked'), target_fixture="world")
def _check_pattern(pattern: str) -> JudgeWorld:
    return JudgeWorld(pattern_problem=domain_pattern_problem(pattern))


@then(parsers.parse('it is refused with a reason mentioning "{fragment}"'))
def _pattern_refused(world: JudgeWorld, fragment: str) -> None:
    assert world.pattern_problem is not None and fragment in world.pattern_problem, world.pattern_problem
