"""Binds features/policy_enforcement.feature: the network policy of real runs and sessions on the
suite's Chromium, against the hostile site's allowed host and counting off-domain host."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.artifacts import ArtifactStore
from runtime.browser import ActionResult, Browser, BrowserSession, SessionPolicy, open_session
from runtime.events import GuardrailTripped, StepFinished, ToolUsed
from runtime.execute import BrowserProvider
from runtime.execute.context.network import NETWORK_GUARD, REPORTED_ONE_BY_ONE, VERDICT_SAMPLES
from runtime.policy import NetworkPolicy
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.hostile.site import OFF_DOMAIN_NAME, HostileSite, load_labels
from tests.policy.corpus_runs import RecipeRun, run_recipe

scenarios("policy_enforcement.feature")


@pytest.fixture
def world() -> dict[str, Any]:
    return {}


def _run(world: dict[str, Any], loop_thread: LoopThread, shared_browser: Browser, tmp_path: Path, recipe_text: str, url: str,
         allow_private_network: bool | None = None) -> RecipeRun:
    provider = BrowserProvider(browser=shared_browser)
    world["run"] = done = loop_thread.run(
        run_recipe(provider, recipe_text, url, tmp_path / f"run-{len(world)}", allow_private_network=allow_private_network), 150
    )
    return done


def _done(world: dict[str, Any]) -> RecipeRun:
    done = world["run"]
    assert isinstance(done, RecipeRun)
    return done


# --- sessions ---------------------------------------------------------------------------------------------


@pytest.fixture
def guarded_sessions(loop_thread: LoopThread) -> Iterator[list[BrowserSession]]:
    sessions: list[BrowserSession] = []
    yield sessions
    for session in sessions:
        loop_thread.run(session.stop())


def _open_guarded(loop_thread: LoopThread, browser: Browser, tmp_path: Path, sessions: list[BrowserSession], policy: NetworkPolicy) -> BrowserSession:
    session = loop_thread.run(open_session(browser, artifacts=ArtifactStore(tmp_path / "guarded"), policy=SessionPolicy(network=policy)))
    sessions.append(session)
    return session


@given("a browser session under a network policy that allows every host", target_fixture="session")
def _allowing_everything(loop_thread: LoopThread, shared_browser: Browser, tmp_path: Path, guarded_sessions: list[BrowserSession]) -> BrowserSession:
    return _open_guarded(loop_thread, shared_browser, tmp_path, guarded_sessions, NetworkPolicy.of([], allow_private_network=True))


@given("a browser session under a network policy that allows only the allowed host", target_fixture="session")
def _allowing_the_allowed_host(loop_thread: LoopThread, shared_browser: Browser, hostile: HostileSite, tmp_path: Path,
                               guarded_sessions: list[BrowserSession]) -> BrowserSession:
    return _open_guarded(loop_thread, shared_browser, tmp_path, guarded_sessions, NetworkPolicy.of([hostile.allowed_host]))


@when("its policy proxy stops")
def _proxy_stops(loop_thread: LoopThread, session: BrowserSession) -> None:
    assert session.proxy is not None
    loop_thread.run(session.proxy.stop())


@when("the session opens the allowed page, then an off-domain page")
def _open_both(loop_thread: LoopThread, session: BrowserSession, hostile: HostileSite, world: dict[str, Any]) -> None:
    world["opened"] = [
        loop_thread.run(session.open_url(url, timeout_ms=15_000))
        for url in (hostile.allowed_url("/pages/benign-static.html"), hostile.off_url("/quote.html"))
    ]


@then("both navigations fail")
def _both_fail(world: dict[str, Any]) -> None:
    opened: list[ActionResult] = world["opened"]
    assert [result.ok for result in opened] == [False, False], [result.error for result in opened]


@given(parsers.parse('the session shows the support page "{name}"'))
def _shows_support(loop_thread: LoopThread, session: BrowserSession, hostile: HostileSite, name: str) -> None:
    result = loop_thread.run(session.open_url(hostile.allowed_url(f"/pages/support/{name}.html")))
    assert result.ok, result.error


@when(parsers.parse('I click the element "{css}"'))
def _click(loop_thread: LoopThread, session: BrowserSession, world: dict[str, Any], css: str) -> None:
    world["clicked"] = loop_thread.run(session.click({"css": css}))


@then(parsers.parse('the click fails with blocked_url naming "{kind}"'))
def _click_refused(world: dict[str, Any], kind: str) -> None:
    clicked: ActionResult = world["clicked"]
    assert not clicked.ok and clicked.error is not None, clicked
    assert clicked.error.code.value == "blocked_url" and clicked.error.details["blocker_kind"] == kind, clicked.error


@then(parsers.parse('the session still shows the support page "{name}"'))
def _still_shows(loop_thread: LoopThread, session: BrowserSession, hostile: HostileSite, name: str) -> None:
    assert loop_thread.run(session.tab().current_url()) == hostile.allowed_url(f"/pages/support/{name}.html")
    assert len(session.tabs) == 1, session.tabs  # no tab was opened either


@then(parsers.parse('the click succeeds and the session shows the corpus page "{page_id}"'))
def _click_followed(loop_thread: LoopThread, session: BrowserSession, hostile: HostileSite, world: dict[str, Any], page_id: str) -> None:
    clicked: ActionResult = world["clicked"]
    assert clicked.ok, clicked.error
    wanted = hostile.start_url(next(p for p in load_labels() if p.id == page_id))
    waited = loop_thread.run(session.wait("url", wanted, timeout_ms=15_000))
    assert waited.ok, waited.error


# --- runs -------------------------------------------------------------------------------------------------


@when(parsers.parse('the corpus page "{page_id}" runs through the run API'))
def _run_corpus_page(loop_thread: LoopThread, shared_browser: Browser, hostile: HostileSite, tmp_path: Path, world: dict[str, Any], page_id: str) -> None:
    page = next(p for p in load_labels() if p.id == page_id)
    _run(world, loop_thread, shared_browser, tmp_path, hostile.recipe_text(), hostile.start_url(page))


@when(parsers.parse('the support page "{name}" runs through the run API'))
def _run_support_page(loop_thread: LoopThread, shared_browser: Browser, hostile: HostileSite, tmp_path: Path, world: dict[str, Any], name: str) -> None:
    _run(world, loop_thread, shared_browser, tmp_path, hostile.recipe_text(), hostile.allowed_url(f"/pages/support/{name}.html"))


@when(parsers.re(r'"(?P<page_id>[a-z-]+)" runs with allowed domains "(?P<domains>[^"]*)", target.allow_private_network (?P<switch>true|false) '
                 r'and the server\'s say "(?P<server>none|true|false)"'))
def _run_private(loop_thread: LoopThread, shared_browser: Browser, hostile: HostileSite, tmp_path: Path, world: dict[str, Any],
                 page_id: str, domains: str, switch: str, server: str) -> None:
    listed = [domains.replace("{port}", str(hostile.allowed_port))] if domains else []
    recipe = re.sub(
        r"  allowed_domains: \[.*\]\n",
        f"  allowed_domains: {json.dumps(listed)}\n  allow_private_network: {switch}\n",
        hostile.recipe_text(),
    )
    host = "localhost" if domains.startswith("localhost") else "127.0.0.1"
    path = hostile.start_url(next(p for p in load_labels() if p.id == page_id)).partition(hostile.allowed_host)[2]
    override = None if server == "none" else server == "true"
    _run(world, loop_thread, shared_browser, tmp_path, recipe, f"http://{host}:{hostile.allowed_port}{path}", override)


@then(parsers.parse('the run ends "{reason}" with blocker "{kind}"'))
def _ends(world: dict[str, Any], reason: str, kind: str) -> None:
    verdict = _done(world).verdict
    ended = (verdict.stop_reason.value, verdict.blocker_kind.value if verdict.blocker_kind else "none")
    assert ended == (reason, kind), verdict.summary


@then(parsers.parse('the run completes with the value "{value}"'))
def _completes(world: dict[str, Any], value: str) -> None:
    done = _done(world)
    assert done.verdict.stop_reason.value == "completed", done.verdict.summary
    assert done.value == value


@then(parsers.parse('the evidence names the off-domain URL, the trigger "{trigger}", the hop from the allowed host with status {status:d}, the tab and the frame'))
def _hop_evidence(hostile: HostileSite, world: dict[str, Any], trigger: str, status: int) -> None:
    evidence = _done(world).verdict.evidence
    assert evidence["url"] == hostile.off_url("/quote.html"), evidence
    assert (evidence["trigger"], evidence["redirect_status"]) == (trigger, status), evidence
    assert evidence["redirect_from"].startswith(hostile.allowed_url("/redirect/302")), evidence
    assert evidence["tab_id"] and evidence["frame_id"], evidence


@then(parsers.parse('the evidence names the off-domain URL and the trigger "{trigger}"'))
def _trigger_evidence(hostile: HostileSite, world: dict[str, Any], trigger: str) -> None:
    evidence = _done(world).verdict.evidence
    assert evidence["url"] == hostile.off_url("/quote.html") and evidence["trigger"] == trigger, evidence


@then("no step of the run reported navigation_failed")
def _never_navigation_failed(world: dict[str, Any]) -> None:
    kinds = [e.payload.blocker_kind for e in _done(world).events if isinstance(e.payload, StepFinished)]
    assert all(kind is None or kind.value != "navigation_failed" for kind in kinds), kinds


@then("the browser was never asked to open a URL")
def _never_opened(world: dict[str, Any]) -> None:
    opened = [e.payload for e in _done(world).events if isinstance(e.payload, ToolUsed) and e.payload.tool == "open_url"]
    assert not opened, opened


@then("the evidence says the judge refused it before it was opened")
def _judged_first(world: dict[str, Any]) -> None:
    evidence = _done(world).verdict.evidence
    assert evidence["seen_by"] == "judge" and evidence["status"] is None and evidence["host"].startswith(OFF_DOMAIN_NAME), evidence


@then(parsers.parse("the first {count:d} refusals were reported one guardrail_tripped event each and the others in one more"))
def _bounded_events(world: dict[str, Any], count: int) -> None:
    assert count == REPORTED_ONE_BY_ONE
    trips = [e.payload for e in _done(world).events if isinstance(e.payload, GuardrailTripped) and e.payload.guard == NETWORK_GUARD]
    one_by_one = [t for t in trips if t.blocker_kind is not None]
    summed = [t for t in trips if t.blocker_kind is None]
    assert len(one_by_one) == count and all(t.evidence["method"] == "GET" for t in one_by_one), len(one_by_one)
    blocked = _done(world).written["blocked_requests"]["count"]
    assert len(summed) == 1 and f"{blocked - count} more request(s) refused" in summed[0].detail, summed


@then(parsers.parse("verdict.json counts at least {count:d} blocked requests, by kind, with {samples:d} samples"))
def _verdict_counts(world: dict[str, Any], count: int, samples: int) -> None:
    assert samples == VERDICT_SAMPLES
    blocked = _done(world).written["blocked_requests"]
    assert blocked["count"] >= count and blocked["by_kind"]["domain_not_allowed"] == blocked["count"], blocked
    assert len(blocked["samples"]) == samples and all(s["host"].startswith(OFF_DOMAIN_NAME) for s in blocked["samples"]), blocked["samples"]


@then("verdict.json counts no blocked request")
def _no_blocked(world: dict[str, Any]) -> None:
    blocked = _done(world).written["blocked_requests"]
    assert blocked["count"] == 0, blocked
