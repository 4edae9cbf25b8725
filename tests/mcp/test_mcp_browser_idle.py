"""Bindings of features/mcp_browser_idle.feature: the real `ClientTurns` (the model of an MCP
browser session's agent step), asked for turns on an event loop of the test's own."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.llm import ChatMessage, LlmDone, LlmEvent, LlmToolCall
from runtime.llm.providers.model_client import ChatRequest
from runtime.mcp.browser_session import IDLE_CLOSE, ClientTurns

scenarios("mcp_browser_idle.feature")

FIRST_TURN = ChatRequest([ChatMessage.system("<page>\nurl: (none yet)\n</page>"), ChatMessage.user("Task: browse")])


@pytest.fixture
def context() -> dict[str, Any]:
    return {}


async def _one_turn(turns: ClientTurns) -> list[LlmEvent]:
    return [event async for event in turns.stream(FIRST_TURN)]


@given(parsers.parse("a browser session's turns with an idle time of {seconds:g} seconds"), target_fixture="turns")
def _turns(seconds: float) -> ClientTurns:
    return ClientTurns(idle_seconds=seconds)


@when("the agent step asks for a turn and the client calls nothing")
def _idle_turn(turns: ClientTurns, context: dict[str, Any]) -> None:
    context["events"] = asyncio.run(_one_turn(turns))


@when("the client has called browser_snapshot and the agent step asks for a turn")
def _called_turn(turns: ClientTurns, context: dict[str, Any]) -> None:
    async def call_then_turn() -> list[LlmEvent]:
        asking = asyncio.ensure_future(turns.ask("browser_snapshot", {}))
        await asyncio.sleep(0)  # the call is queued before the step asks
        events = await _one_turn(turns)
        asking.cancel()
        return events

    context["events"] = asyncio.run(call_then_turn())


@then("the turn is close, with a summary saying the client was idle")
def _closed(context: dict[str, Any]) -> None:
    call, done = context["events"]
    assert isinstance(call, LlmToolCall) and isinstance(done, LlmDone)
    assert call.name == "close" and call.arguments["summary"] == f"{IDLE_CLOSE} (0.05 s)", call


@then("the turn is the client's browser_snapshot call")
def _handed_on(context: dict[str, Any]) -> None:
    call, done = context["events"]
    assert isinstance(call, LlmToolCall) and isinstance(done, LlmDone)
    assert (call.name, call.arguments) == ("browser_snapshot", {}), call
