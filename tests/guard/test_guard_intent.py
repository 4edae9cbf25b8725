"""Binds features/guard_intent.feature: seed 000's key scenarios on guards built from compiled recipes."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from pytest_bdd import given, parsers, scenarios, then, when

from guard_recipes import compiled_guard
from runtime.guard import GuardDecision, IntentGuard
from runtime.llm import GatewayIntentModel, ModelSettings, LlmGateway
from tests.fixtures.gemini_server import GeminiServer, error_reply, text_reply

scenarios("guard_intent.feature")


@dataclass
class GuardWorld:
    goal: str
    model_detector: bool = False
    patterns: list[str] = field(default_factory=list)
    settings: dict = field(default_factory=dict)
    available_tools: list[str] = field(default_factory=list)
    guard: IntentGuard | None = None
    last: GuardDecision | None = None

    def build(self) -> IntentGuard:
        settings = dict(self.settings)
        if self.model_detector:
            settings["detector"] = "model"
        self.guard = compiled_guard(self.goal, patterns=self.patterns, guard_settings=settings or None)
        return self.guard

    @property
    def ready(self) -> IntentGuard:
        assert self.guard is not None, "the scenario must detect the intent first"
        return self.guard


@given(parsers.parse('a recipe whose goal is "{goal}"'), target_fixture="world")
def _recipe(goal: str) -> GuardWorld:
    return GuardWorld(goal=goal)


@given(parsers.parse('a recipe whose goal is "{goal}" with the model detector'), target_fixture="world")
def _recipe_with_model(goal: str) -> GuardWorld:
    return GuardWorld(goal=goal, model_detector=True)


@given(parsers.parse('the available tools are "{tools}"'))
def _tools(world: GuardWorld, tools: str) -> None:
    world.available_tools = [t.strip() for t in tools.split(",") if t.strip()]


@given(parsers.parse("the guard setting softBlockAfter is {count:d}"))
def _soft_block(world: GuardWorld, count: int) -> None:
    world.settings["softBlockAfter"] = count


@given("the intent guard is disabled")
def _disabled(world: GuardWorld) -> None:
    world.settings["enabled"] = False


@given(parsers.re(r'the recipe\'s intent patterns are "(?P<patterns>.*)"'))
def _patterns(world: GuardWorld, patterns: str) -> None:
    world.patterns = [patterns] if patterns.strip() else []


@given(parsers.parse("Gemini answers '{answer}'"))
def _gemini_answers(gemini: GeminiServer, answer: str) -> None:
    gemini.enqueue(text_reply(answer))


@given(parsers.parse("Gemini fails with HTTP {status:d}"))
def _gemini_fails(gemini: GeminiServer, status: int) -> None:
    gemini.enqueue(error_reply(status, "The model is overloaded.", "UNAVAILABLE"))


@when("the guard detects the intent")
def _detect(world: GuardWorld) -> None:
    asyncio.run(world.build().detect(world.goal))


@when("the guard detects the intent with the Gemini model")
def _detect_with_model(world: GuardWorld, gemini: GeminiServer) -> None:
    async def detect() -> None:
        gateway = LlmGateway(ModelSettings.from_env(gemini.env()))
        try:
            await world.build().detect(world.goal, GatewayIntentModel(gateway))
        finally:
            await gateway.aclose()

    asyncio.run(detect())


@when(parsers.parse('the tool "{tool}" succeeds'))
def _succeeds(world: GuardWorld, tool: str) -> None:
    world.ready.on_settled(tool, ok=True)


@when(parsers.parse('the tool "{tool}" fails'))
def _fails(world: GuardWorld, tool: str) -> None:
    world.ready.on_settled(tool, ok=False)


@then(parsers.parse('the intent is "{label}"'))
def _intent_is(world: GuardWorld, label: str) -> None:
    assert world.ready.intent is not None
    assert world.ready.intent.label == label, world.ready.intent


@then(parsers.parse('the intent is "{label}" from the "{detector}" detector'))
def _intent_from(world: GuardWorld, label: str, detector: str) -> None:
    intent = world.ready.intent
    assert intent is not None
    assert (intent.label, intent.detector) == (label, detector), intent


@then(parsers.parse('the intent\'s reason is "{reason}"'))
def _reason_is(world: GuardWorld, reason: str) -> None:
    assert world.ready.intent is not None and world.ready.intent.reason == reason


@then(parsers.parse('the intent\'s reason mentions "{text}"'))
def _reason_mentions(world: GuardWorld, text: str) -> None:
    assert world.ready.intent is not None and text in world.ready.intent.reason, world.ready.intent


@then("Gemini was asked once with the goal")
def _asked_once(world: GuardWorld, gemini: GeminiServer) -> None:
    assert len(gemini.requests) == 1
    request = gemini.requests[0]
    assert request.method == "generateContent"
    assert world.goal in request.body["contents"][0]["parts"][0]["text"]
    assert request.body["generationConfig"]["responseMimeType"] == "application/json"


@then("preflight is allowed")
def _preflight_allowed(world: GuardWorld) -> None:
    world.last = world.ready.preflight(world.available_tools)
    assert world.last.allowed, world.last


@then(parsers.parse('preflight stops the run with "{reason}"'))
def _preflight_stops(world: GuardWorld, reason: str) -> None:
    world.last = world.ready.preflight(world.available_tools)
    assert not world.last.allowed
    assert world.last.stop_reason is not None and world.last.stop_reason.value == reason


@then(parsers.parse('the tool "{tool}" is allowed'))
def _tool_allowed(world: GuardWorld, tool: str) -> None:
    world.last = world.ready.before_tool(tool)
    assert world.last.allowed, world.last


@then(parsers.parse('the tool "{tool}" stops the run with "{reason}"'))
def _tool_stops(world: GuardWorld, tool: str, reason: str) -> None:
    world.last = world.ready.before_tool(tool)
    assert not world.last.allowed, world.last
    assert world.last.stop_reason is not None and world.last.stop_reason.value == reason


@then("completion is allowed")
def _completion_allowed(world: GuardWorld) -> None:
    world.last = world.ready.completion()
    assert world.last.allowed, world.last


@then(parsers.parse('completion stops the run with "{reason}"'))
def _completion_stops(world: GuardWorld, reason: str) -> None:
    world.last = world.ready.completion()
    assert not world.last.allowed
    assert world.last.stop_reason is not None and world.last.stop_reason.value == reason


@then(parsers.parse('the guard\'s detail mentions "{text}"'))
def _detail_mentions(world: GuardWorld, text: str) -> None:
    assert world.last is not None and text in world.last.detail, world.last

