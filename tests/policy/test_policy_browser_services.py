"""Binds features/policy_browser_services.feature: no request of Chromium's own reaches a run's
proxy. The control is a Chromium started without Verity's service switches (the way
tests/fixtures/external_chromium.py starts one for --browser-ws), on the same page."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, scenarios, then, when

from runtime.artifacts import ArtifactStore
from runtime.browser import Browser, BrowserSession, SessionPolicy, connect_browser, open_session
from runtime.policy import NetworkPolicy
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.external_chromium import external_chromium
from tests.fixtures.hostile.site import HostileSite

scenarios("policy_browser_services.feature")

AUTOFILL_HOST = "content-autofill.googleapis.com"
# Ceilings for a loaded machine, not expected durations.
CONTROL_CEILING_S = 60.0
PAGE_CEILING_MS = 30_000


@pytest.fixture
def world() -> dict[str, Any]:
    return {}


def _refused(session: BrowserSession) -> list[str]:
    assert session.proxy is not None
    return [sample["target"] for sample in session.proxy.log.summary().get("samples", [])]


async def _fill_and_send(session: BrowserSession, url: str) -> None:
    opened = await session.open_url(url, timeout_ms=PAGE_CEILING_MS)
    assert opened.ok, opened.error
    for css, text in (("input[name=email]", "ada@example.org"), ("input[name=street]", "1 Quay Road"), ("input[name=postcode]", "AB1 2CD")):
        typed = await session.type_text({"css": css}, text)
        assert typed.ok, typed.error


async def _session(browser: Browser, hostile: HostileSite, scratch: Path) -> BrowserSession:
    return await open_session(browser, artifacts=ArtifactStore(scratch), policy=SessionPolicy(network=NetworkPolicy.of([hostile.allowed_host])))


@given("a Chromium without the service switches, whose context types into the form page until its proxy refuses the autofill service")
def _control(loop_thread: LoopThread, hostile: HostileSite, tmp_path: Path) -> None:
    async def control(ws_endpoint: str) -> list[str]:
        browser = await connect_browser(ws_endpoint)
        session = await _session(browser, hostile, tmp_path / "control")
        try:
            await _fill_and_send(session, hostile.allowed_url("/pages/support/form-fields.html"))
            # Autofill asks as the form is seen and as it is typed into; wait for the first ask.
            loop = asyncio.get_running_loop()
            deadline = loop.time() + CONTROL_CEILING_S
            while not any(target.startswith(AUTOFILL_HOST) for target in _refused(session)) and loop.time() < deadline:
                await asyncio.sleep(0.1)  # polling the proxy's own log: no event to wait on
            return _refused(session)
        finally:
            await session.stop()
            await browser.close()

    with external_chromium(tmp_path / "control-profile", desktop=True) as ws_endpoint:
        refused = loop_thread.run(control(ws_endpoint), timeout=CONTROL_CEILING_S + 30)
    assert any(target.startswith(AUTOFILL_HOST) for target in refused), refused


@when("a session on the launched Chromium types into the same form page and submits it")
def _ours(loop_thread: LoopThread, shared_browser: Browser, hostile: HostileSite, tmp_path: Path, world: dict[str, Any]) -> None:
    async def ours() -> list[str]:
        session = await _session(shared_browser, hostile, tmp_path / "ours")
        try:
            await _fill_and_send(session, hostile.allowed_url("/pages/support/form-fields.html"))
            sent = await session.press("Enter", target={"css": "input[name=postcode]"})
            assert sent.ok, sent.error
            landed = await session.wait("url", "postcode=", timeout_ms=PAGE_CEILING_MS)
            assert landed.ok, landed.error
            return _refused(session)
        finally:
            await session.stop()

    world["refused"] = loop_thread.run(ours())


@then("that session's policy proxy refused nothing")
def _nothing_refused(world: dict[str, Any]) -> None:
    assert world["refused"] == [], world["refused"]
