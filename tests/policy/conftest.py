"""Policy fixtures and the steps the proxy and fixture scenarios share: the hostile site, and what
its off-domain host counted."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytest_bdd import given, parsers, then, when

from runtime.policy import parse_url
from tests.fixtures.hostile.site import HostileSite
from tests.policy.raw_client import exchange, request_bytes


@pytest.fixture(scope="module")
def hostile_site() -> Iterator[HostileSite]:
    # One site per module: stopping its three listeners costs the stdlib's poll interval each.
    with HostileSite() as site:
        yield site


@pytest.fixture
def hostile(hostile_site: HostileSite) -> HostileSite:
    """The module's hostile site, its off-domain count at zero."""
    hostile_site.counter.reset()
    return hostile_site


@given("the hostile site")
def _the_hostile_site(hostile: HostileSite) -> None:
    assert hostile.counter.snapshot().total == 0, "each scenario starts from a zero count"


@when(parsers.parse('a client sends "{request}" straight to the off-domain host'))
def _straight_to_off_domain(hostile: HostileSite, request: str) -> None:
    method, url = hostile.fill(request.replace("{off}", str(hostile.off_port)).replace("{allowed}", str(hostile.allowed_port))).split(" ", 1)
    parsed = parse_url(url)
    assert parsed.host is not None and parsed.effective_port is not None
    response = exchange(parsed.effective_port, request_bytes(method, "/" + parsed.rest.lstrip("/"), parsed.host.name), host=parsed.host.bare)
    assert response.status == 200, response


@then(parsers.re(r"the off-domain host saw (?P<connections>\d+) connections? and (?P<requests>\d+) requests?"))
def _off_domain_saw(hostile: HostileSite, connections: str, requests: str) -> None:
    count = hostile.counter.snapshot()
    assert (count.connections, count.requests) == (int(connections), int(requests)), count


@then("the off-domain host saw no connection at all")
def _off_domain_saw_nothing(hostile: HostileSite) -> None:
    count = hostile.counter.snapshot()
    assert count.total == 0, count
