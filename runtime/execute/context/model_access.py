"""The run's Gemini settings: read from the environment once, when the plan first needs a model.

Agent steps cannot run without a model, so a plan with agent states stops at its first state
(intent.preflight) when no key is configured, before anything touches a page. Every gateway the
run opens traces its calls as `chat {model}` spans under the running state (ChatTelemetry), and
each retry of a model call is a `tool_used` event of phase `retry`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from runtime.events import EventLog, ToolUsed
from runtime.execute.context.action_ids import ActionIds
from runtime.execute.step_outcome import RunStopped
from runtime.guard import IntentDecision, IntentGuard
from runtime.llm import ChatTelemetry, GeminiSettings, LlmError, LlmRetry
from runtime.llm.errors import code_for_status
from runtime.outcomes import StopReason
from runtime.plan.model import Plan
from runtime.plan.state_kinds import AGENT
from runtime.secrets import Secrets

if TYPE_CHECKING:
    from runtime.llm import LlmGateway

# The tool name a model call's retry events carry (a model call is not a browser tool).
MODEL_CALL_TOOL = "llm.chat"


def report_retries(events: EventLog, action_ids: ActionIds) -> Callable[[LlmRetry], None]:
    """Each retry google-genai makes of a model call, as a `tool_used` event of phase `retry`."""

    def report(retry: LlmRetry) -> None:
        code = code_for_status(retry.status).value if retry.status is not None else "connection_failed"
        events.emit(ToolUsed(tool=MODEL_CALL_TOOL, action_id=action_ids.new(MODEL_CALL_TOOL), phase="retry", summary=retry.describe(), error_code=code))

    return report


class ModelAccess:
    def __init__(self, plan: Plan, telemetry: ChatTelemetry | None = None, secrets: Secrets | None = None) -> None:
        # The run's secrets: every request a gateway of this run sends is redacted with them.
        self.secrets = secrets if secrets is not None else Secrets()
        self.agent_states = [s.id for s in plan.states if s.kind == AGENT]
        self.uses_model_detector = plan.intent_guard.get("detector") == "model"
        self.settings: GeminiSettings | None = None
        self.telemetry = telemetry

    def require(self) -> None:
        """Agent steps need Gemini: without a usable key the run stops here (invalid_input)."""
        if not self.agent_states or self.settings is not None:
            return
        try:
            self.settings = GeminiSettings.from_env()
        except LlmError as error:
            raise RunStopped(
                StopReason.INVALID_INPUT,
                f"agent step(s) {', '.join(self.agent_states)} need a Gemini model: {error.message}",
                evidence={"llm_error": error.code.value, "agent_states": self.agent_states},
            ) from None

    def gateway(self, model: str | None) -> LlmGateway:
        """A gateway for one agent state, on its own model when it names one. Close it after use."""
        from runtime.llm import LlmGateway

        self.require()
        assert self.settings is not None
        return LlmGateway(replace(self.settings, model=model or self.settings.model), self.telemetry, redact=self.secrets.redact)

    async def detect_intent(self, guard: IntentGuard, goal: str) -> IntentDecision:
        """`detector: model` asks Gemini when the keywords miss. Without a configured key the guard
        falls back to the heuristic and says so in the decision (seed 000 section 4.2)."""
        if not self.uses_model_detector:
            return await guard.detect(goal)
        try:
            settings = self.settings or GeminiSettings.from_env()
        except LlmError:
            return await guard.detect(goal)
        from runtime.llm import GeminiIntentModel, LlmGateway

        gateway = LlmGateway(settings, self.telemetry, redact=self.secrets.redact)
        try:
            return await guard.detect(goal, GeminiIntentModel(gateway))
        finally:
            await gateway.aclose()
