"""The run's model settings: read from the environment once, when the plan first needs a model.

Agent steps cannot run without a model, so a plan with agent states stops at its first state
(intent.preflight) when no key is configured, before anything touches a page. Every gateway the
run opens traces its calls as `chat {model}` spans under the running state (ChatTelemetry), and
each retry of a model call is a `tool_used` event of phase `retry`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from runtime.events import EventLog, ToolUsed
from runtime.execute.context.action_ids import ActionIds
from runtime.execute.step_outcome import RunStopped
from runtime.guard import IntentDecision, IntentGuard
from runtime.llm import ChatTelemetry, LlmError, LlmRetry, ModelChoice, ModelSettings
from runtime.llm.errors import code_for_status
from runtime.llm.vision import vision_on
from runtime.outcomes import StopReason
from runtime.plan.model import Plan
from runtime.plan.state_kinds import AGENT, REPAIR
from runtime.secrets import Secrets

if TYPE_CHECKING:
    from runtime.llm import LlmGateway
    from runtime.llm.providers.model_client import DrivenModel

# The tool name a model call's retry events carry (a model call is not a browser tool).
MODEL_CALL_TOOL = "llm.chat"


def report_retries(events: EventLog, action_ids: ActionIds) -> Callable[[LlmRetry], None]:
    """Each retry the provider's SDK makes of a model call, as a `tool_used` event of phase `retry`."""

    def report(retry: LlmRetry) -> None:
        code = code_for_status(retry.status).value if retry.status is not None else "connection_failed"
        events.emit(ToolUsed(tool=MODEL_CALL_TOOL, action_id=action_ids.new(MODEL_CALL_TOOL), phase="retry", summary=retry.describe(), error_code=code))

    return report


class ModelAccess:
    def __init__(
        self, plan: Plan, telemetry: ChatTelemetry | None = None, secrets: Secrets | None = None, driven: DrivenModel | None = None
    ) -> None:
        # A model the run's starter drives (verity mcp's client) answers every agent state instead
        # of a provider's: no key is read for it.
        self.driven = driven
        # The run's secrets: every request a gateway of this run sends is redacted with them.
        self.secrets = secrets if secrets is not None else Secrets()
        agent_states = [s for s in plan.states if s.kind == AGENT]
        self.agent_states = [s.id for s in agent_states]
        # A repair asks a model only when one is configured (`available`): without one, the step's
        # failure stands as it would without `repair`, so preflight does not require it.
        model_states = agent_states + [s for s in plan.states if s.kind == REPAIR]
        self.uses_model_detector = plan.intent_guard.get("detector") == "model"
        # Each agent state's model, as the recipe names it (None: VERITY_MODEL or the default).
        self._choices = {s.id: _choice(s.params.get("model")) for s in model_states}
        # Each agent state's `agent.vision`, and whether its model is sent screenshots (`require`).
        self._vision_settings = {s.id: str(s.params.get("vision") or "auto") for s in model_states}
        self.vision: dict[str, bool] = {}
        self.settings: dict[str, ModelSettings] = {}
        self.telemetry = telemetry

    def require(self) -> None:
        """Agent steps need their model: without a usable key the run stops here (invalid_input)."""
        for state_id in self.agent_states:
            if state_id in self.settings:
                continue
            try:
                self._settle(state_id)
            except LlmError as error:
                choice = self._choices[state_id]
                raise RunStopped(
                    StopReason.INVALID_INPUT,
                    f"agent step {state_id} needs its model ({choice.describe() if choice else 'the default model'}): {error.message}",
                    evidence={"llm_error": error.code.value, "agent_states": self.agent_states},
                ) from None

    def _settle(self, state_id: str) -> None:
        if self.driven is not None:  # a model a client drives (MCP): its settings, no pictures
            self.settings[state_id], self.vision[state_id] = self.driven.settings, False
            return
        settings = ModelSettings.from_env(choice=self._choices[state_id])
        self.vision[state_id] = vision_on(self._vision_settings[state_id], settings)
        self.settings[state_id] = settings

    def available(self, state_id: str) -> bool:
        """Whether a model is configured for a state that may go without one (a repair)."""
        if state_id not in self.settings:
            try:
                self._settle(state_id)
            except LlmError:
                return False
        return True

    async def open_gateway(self, state_id: str) -> LlmGateway:
        """A gateway for one agent (or repair) state, on the model it names; close it after use.
        It is made on a worker thread. A process's first gateway for a provider imports
        that provider's SDK and builds its client (about 0.6 s of CPU for google-genai, several
        seconds on a loaded machine); on the event loop that would hold up everything else the
        loop serves: Chromium's answers, the other runs and streams of `verity serve`, and a
        replica's lease renewal, which other replicas would take for a dead replica."""
        return await asyncio.to_thread(self._gateway, state_id)

    def _gateway(self, state_id: str) -> LlmGateway:
        from runtime.llm import LlmGateway

        self.require()
        if state_id not in self.settings:
            self._settle(state_id)
        client = self.driven.client if self.driven is not None else None
        return LlmGateway(self.settings[state_id], self.telemetry, redact=self.secrets.redact, client=client)

    async def detect_intent(self, guard: IntentGuard, goal: str) -> IntentDecision:
        """`detector: model` asks the default model when the keywords miss. Without a configured key the guard
        falls back to the heuristic and says so in the decision (seed 000 section 4.2)."""
        if not self.uses_model_detector:
            return await guard.detect(goal)
        try:
            settings = ModelSettings.from_env()
        except LlmError:
            return await guard.detect(goal)
        from runtime.llm import GatewayIntentModel, LlmGateway

        # On a worker thread, as `open_gateway` makes its gateways.
        gateway = await asyncio.to_thread(LlmGateway, settings, self.telemetry, redact=self.secrets.redact)
        try:
            return await guard.detect(goal, GatewayIntentModel(gateway))
        finally:
            await gateway.aclose()


def _choice(named: object) -> ModelChoice | None:
    """A step's `model`: "provider:name", a bare name, or {provider, name}."""
    if isinstance(named, str) and named.strip():
        return ModelChoice.parse(named)
    if isinstance(named, dict):
        return ModelChoice(named.get("provider"), named.get("name"))
    return None
