"""Binds features/policy_dns.feature: no name outside the allowed domains is looked up (issue 33).

Every scenario reads one run of tests/fixtures/dns_fence/lookups.py inside a network namespace
whose only resolver is tests/fixtures/dns_counter.py (tests/fixtures/dns_namespace.py): the pages
on the launched Chromium, the agent run, and the same pages on a Chromium without the fence. The
run happens once per module; it needs root, and fails with the reason when it cannot set up.
"""

from __future__ import annotations

from typing import Any

import pytest
from pytest_bdd import given, scenarios, then, when

from runtime.browser.launch.chromium_start import DNS_FENCE_FLAG
from runtime.browser.supply.dns_fence import dns_fence_problem
from tests.fixtures.dns_fence.site import ALLOWED_NAME, OFF_DOMAIN_SUFFIX, QUOTE, SECRET_TOKEN
from tests.fixtures.dns_namespace import run_with_own_resolver

scenarios("policy_dns.feature")

LABEL = QUOTE.lower().replace("-", "")
FENCED = DNS_FENCE_FLAG.partition("=")[2]


@pytest.fixture(scope="module")
def lookups() -> dict[str, Any]:
    return run_with_own_resolver("tests.fixtures.dns_fence.lookups")


@pytest.fixture
def context() -> dict[str, Any]:
    return {}


@given("the DNS fence pages run inside a network namespace whose resolver counts every query")
def _namespace(lookups: dict[str, Any]) -> None:
    assert lookups["quote"] == QUOTE, lookups


@when("the names page runs in a session with the network policy on the launched Chromium")
def _names_page(lookups: dict[str, Any], context: dict[str, Any]) -> None:
    context["phase"] = lookups["launched_names"]


@when("the names page runs in a session with the network policy on a Chromium attached with the DNS fence flags")
def _attached_names(lookups: dict[str, Any], context: dict[str, Any]) -> None:
    context["phase"] = lookups["attached_names"]
    context["refusal"] = lookups["attached_refusal"]


@then("Verity accepted that Chromium")
def _accepted(context: dict[str, Any]) -> None:
    assert context["refusal"] is None, context["refusal"]


@when("a recipe's agent step types a secret token into the token page, through the run API on the launched Chromium")
def _secret_run(lookups: dict[str, Any], context: dict[str, Any]) -> None:
    context["phase"] = lookups["launched_secret_run"]


@when("the same pages run on a Chromium started without the DNS fence, the token typed by the session")
def _unfenced(lookups: dict[str, Any], context: dict[str, Any]) -> None:
    context["names"] = sorted({*lookups["unfenced_names"]["names"], *lookups["unfenced_secret"]["names"]})
    context["refusal"] = lookups["unfenced_refusal"]
    assert lookups["unfenced_secret"]["typed"] and lookups["unfenced_secret"]["gathered"], lookups["unfenced_secret"]


@then("the page showed that every attempt was spent")
def _spent(context: dict[str, Any]) -> None:
    phase = context["phase"]
    assert phase["opened"] and phase["gathered"], phase


@then("the resolver was asked about the allowed name and nothing else")
def _only_allowed(context: dict[str, Any]) -> None:
    names = context["phase"]["names"]
    # The proxy looks the allowed name up for every connection it opens; it must have, at least once.
    assert names and set(names) == {ALLOWED_NAME}, names


@then("the policy proxy refused the TURN and TURNS servers by name")
def _refused_by_name(context: dict[str, Any]) -> None:
    refused = context["phase"]["refused"]
    assert {f"{LABEL}.turn{OFF_DOMAIN_SUFFIX}:3478", f"{LABEL}.turns{OFF_DOMAIN_SUFFIX}:5349"} <= set(refused), refused


@then("the run completes with the page's quote")
def _completed(context: dict[str, Any]) -> None:
    phase = context["phase"]
    assert (phase["stop_reason"], phase["quote"]) == ("completed", QUOTE), phase


@then("no name the resolver was asked holds the token")
def _no_token(context: dict[str, Any]) -> None:
    assert not [name for name in context["phase"]["names"] if SECRET_TOKEN in name], context["phase"]["names"]


@then("the resolver was asked about the TURN and TURNS servers and both remote candidates")
def _unfenced_names(context: dict[str, Any]) -> None:
    expected = {f"{LABEL}.{kind}{OFF_DOMAIN_SUFFIX}" for kind in ("turn", "turns", "udpcand", "tcpcand")}
    assert expected <= set(context["names"]), context["names"]


@then("the resolver was asked about a name holding the token")
def _unfenced_token(context: dict[str, Any]) -> None:
    assert f"{SECRET_TOKEN}.rtc{OFF_DOMAIN_SUFFIX}" in context["names"], context["names"]


@then("Verity refused to attach that Chromium as dns_not_fenced, naming the host-resolver rules")
def _refused_unfenced(context: dict[str, Any]) -> None:
    refusal = context["refusal"]
    assert refusal is not None and refusal["code"] == "dns_not_fenced", refusal
    assert "--host-resolver-rules=MAP * ~NOTFOUND" in refusal["message"] and "--enable-automation" in refusal["message"], refusal


@pytest.mark.parametrize(
    ("rules", "fenced"),
    [
        ("MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE [::1], EXCLUDE localhost, EXCLUDE *.localhost", True),
        ("MAP * ~NOTFOUND , MAP proxy.internal 10.0.0.7:3128", True),
        ("EXCLUDE localhost", False),
        ("MAP *.example.com ~NOTFOUND", False),
        ("MAP * ~NOTFOUND, MAP mirror.example.com other.example.net", False),
    ],
)
def test_the_command_line_shows_the_dns_fence_only_when_every_name_is_mapped_to_not_found(rules: str, fenced: bool) -> None:
    arguments = ["--headless", f"--host-resolver-rules={rules}"]
    assert (dns_fence_problem(arguments) is None) is fenced, dns_fence_problem(arguments)
    # Of two, Chromium keeps the last: a fenced value followed by another is judged by the other.
    assert dns_fence_problem([f"--host-resolver-rules={FENCED}", *arguments]) == dns_fence_problem(arguments)
    assert dns_fence_problem(["--headless"]) == "it was started without --host-resolver-rules"
