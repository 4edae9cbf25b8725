"""Binds features/policy_fixture.feature: the hostile corpus's counting host, labels and recipe."""

from __future__ import annotations

import socket
from collections import Counter

from pytest_bdd import given, parsers, scenarios, then, when

from runtime.outcomes import BlockerKind, StopReason
from runtime.plan.compiler import compile_recipe
from runtime.plan.model import Plan
from runtime.policy import url_allowed
from runtime.recipe import load_recipe_text
from runtime.recipe.model import Recipe
from tests.fixtures.hostile.allowed_server import PAGES as HOSTILE_PAGES
from tests.fixtures.hostile.site import RECIPE_PATH, HostileSite, LabelledPage, load_labels
from tests.policy.raw_client import WEBSOCKET_HEADERS, connect, exchange, read_head, request_bytes

scenarios("policy_fixture.feature")


# ---------------------------------------------------------------- the counter


@when("a client opens a connection to the off-domain host and closes it without a byte")
def _silent_connection(hostile: HostileSite) -> None:
    with connect(hostile.off_port) as sock:
        sock.shutdown(socket.SHUT_WR)
        assert sock.recv(1) == b""  # the server saw the end of the stream and closed its side
    assert hostile.counter.wait_for_connections(1, timeout=30)


@when(parsers.parse('a client sends the raw line "{line}" to the off-domain host'))
def _raw_line(hostile: HostileSite, line: str) -> None:
    with connect(hostile.off_port) as sock:
        sock.sendall(line.encode() + b"\r\n\r\n")
        answer = b""
        while chunk := sock.recv(4096):  # the server answers an error and closes
            answer += chunk
    assert b"400" in answer


@when("a client sends a WebSocket handshake straight to the off-domain host", target_fixture="handshake_status")
def _websocket_handshake(hostile: HostileSite) -> int:
    with connect(hostile.off_port) as sock:
        sock.sendall(request_bytes("GET", "/ws", hostile.off_host, WEBSOCKET_HEADERS))
        response, _ = read_head(sock)
    return response.status


@then("the off-domain host answers 101")
def _answers_101(handshake_status: int) -> None:
    assert handshake_status == 101


@when("the count is reset")
def _reset(hostile: HostileSite) -> None:
    hostile.counter.reset()


# ---------------------------------------------------------------- the labels


@given("the hostile corpus labels", target_fixture="labels")
def _labels() -> list[LabelledPage]:
    return load_labels()


@then(parsers.parse("there are at least {hostile:d} hostile pages and {benign:d} benign pages"))
def _page_counts(labels: list[LabelledPage], hostile: int, benign: int) -> None:
    kinds = Counter(page.request_class == "benign" for page in labels)
    assert kinds[False] >= hostile and kinds[True] >= benign, kinds
    assert len({page.id for page in labels}) == len(labels), "page ids must be unique"


@then("every label expects 0 off-domain requests")
def _zero_off_domain(labels: list[LabelledPage]) -> None:
    assert [page.id for page in labels if page.expect.off_domain_requests != 0] == []


@then("every completed label names its value and no blocker, and every failed one names a blocker")
def _consistent(labels: list[LabelledPage]) -> None:
    kinds = {kind.value for kind in BlockerKind}
    reasons = {reason.value for reason in StopReason}
    for page in labels:
        expect = page.expect
        assert expect.stop_reason in reasons, page.id
        if expect.stop_reason == StopReason.COMPLETED.value:
            assert expect.blocker_kind is None and expect.value, page.id
        else:
            assert expect.blocker_kind in kinds and expect.value is None, page.id
        bounds = expect.blocked_requests
        assert bounds.min >= 0 and (bounds.max is None or bounds.max >= bounds.min), page.id
        if page.request_class == "benign":
            assert bounds.max == 0 and expect.stop_reason == "completed", page.id


@then(parsers.parse('the labels cover the classes "{classes}"'))
def _classes(labels: list[LabelledPage], classes: str) -> None:
    wanted = {c.strip() for c in classes.split(",")}
    assert wanted <= {page.request_class for page in labels}, wanted - {page.request_class for page in labels}


def _page_head(path: str) -> str:
    """The first lines of a corpus page file, where it declares its status and headers."""
    file = HOSTILE_PAGES / path.removeprefix("/pages/").partition("?")[0]
    return file.read_text(encoding="utf-8")[:400] if path.startswith("/pages/") and file.is_file() else ""


@then("every page that starts on the allowed host is served there")
def _served(hostile: HostileSite, labels: list[LabelledPage]) -> None:
    missing = []
    for page in labels:
        url = hostile.start_url(page)
        if not url.startswith(hostile.allowed_url("/")):
            continue
        path = url.removeprefix(f"http://{hostile.allowed_host}")
        response = exchange(hostile.allowed_port, request_bytes("GET", path.replace(" ", "%20"), hostile.allowed_host))
        # A page may declare the status it is served with (`#status 403` on its first line).
        declared = f"#status {response.status}\n" in _page_head(path)
        if (response.status >= 400 and not declared) or (path.startswith("/pages/") and b"Hostile corpus" not in response.body):
            missing.append(f"{page.id}: {path} -> {response.status}")
    assert not missing, missing
    assert hostile.counter.snapshot().total == 0, "serving the allowed pages must not touch the off-domain host"


# ---------------------------------------------------------------- the recipe


@when("the corpus recipe is loaded for the site", target_fixture="corpus_recipe")
def _load_recipe(hostile: HostileSite) -> Recipe:
    return load_recipe_text(hostile.recipe_text(), str(RECIPE_PATH))


@then("its allowed domains are exactly the allowed host")
def _allowed_host_only(hostile: HostileSite, corpus_recipe: Recipe) -> None:
    assert corpus_recipe.target.allowed_domains == [hostile.allowed_host]
    assert url_allowed(hostile.allowed_url("/pages/benign-static.html"), corpus_recipe.target.allowed_domains)
    assert not url_allowed(hostile.off_url("/quote.html"), corpus_recipe.target.allowed_domains)


@then("it compiles to a plan that ends in replans_exhausted when a blocker persists")
def _compiles(corpus_recipe: Recipe) -> None:
    plan: Plan = compile_recipe(corpus_recipe)
    assert plan.fallback["search_url"] is None
    evaluate = plan.state("open.evaluate")
    assert {(t.on, t.to) for t in evaluate.transitions} >= {("blocked", "open.replan"), ("blocked", "end.replans_exhausted")}
    assert ("exhausted", "end.replans_exhausted") in {(t.on, t.to) for t in plan.state("look.replan").transitions}
