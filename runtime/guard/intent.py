"""Seed 000's intent guard (browser-first), as pure logic: no I/O, no clock, no globals.

Lifecycle, as the executor drives it:

    guard = IntentGuard.from_plan(plan)
    await guard.detect(plan.goal, model)          # sets guard.intent
    guard.preflight(available_tools)              # before the first state
    guard.before_tool(tool) / guard.on_settled(tool, ok)   # around every tool call
    guard.completion()                            # before the run may complete

Every GuardDecision that blocks carries the seed's stop reason and a `detail` a person can act on.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from runtime.outcomes import StopReason
from runtime.recipe.tool_names import canonical_tool
from runtime.recipe.tool_registry import ToolScope, classify_tool_name

if TYPE_CHECKING:
    from runtime.plan.model import Plan

IntentLabel = Literal["browser_access", "general"]
INTENT_LABELS: tuple[IntentLabel, ...] = ("browser_access", "general")

# Confidence of a heuristic verdict: a keyword/pattern hit is near-certain; a miss only means
# "nothing said browser", which is weaker evidence.
HEURISTIC_HIT_CONFIDENCE = 0.95
HEURISTIC_MISS_CONFIDENCE = 0.6

DEFAULT_GUARD_CONFIG: dict[str, Any] = {
    "enabled": True,
    "detector": "heuristic",
    "softBlockAfter": 2,
    "browser": {"noFallback": True, "networkAdjacentOnly": True, "failTaskIfUnmet": True},
}


class IntentGuardConfigError(ValueError):
    """The guard's configuration is unusable; the message names the field path."""


class IntentNotDetected(RuntimeError):
    """A check ran before `detect()`; the executor must detect the intent first."""


@dataclass(frozen=True)
class IntentDecision:
    label: IntentLabel
    confidence: float
    reason: str
    detector: str  # "config" | "heuristic" | "model" | "heuristic (model fallback)"

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "confidence": self.confidence, "reason": self.reason, "detector": self.detector}


@dataclass(frozen=True)
class GuardDecision:
    allowed: bool
    stop_reason: StopReason | None = None
    detail: str = ""
    scope: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "allowed": self.allowed,
            "stop_reason": self.stop_reason.value if self.stop_reason else None,
            "detail": self.detail,
            "scope": self.scope,
        }


class IntentModel(Protocol):
    """What the model detector needs: the model's raw answer to "classify this goal".

    The answer should be the JSON object {"label", "confidence", "reason"}; the guard parses it
    tolerantly (`parse_intent_answer`) and falls back to the heuristic when it cannot.
    `runtime.llm.GatewayIntentModel` is the production implementation.
    """

    async def classify_intent(self, goal: str) -> str: ...


_JSON_OBJECT = re.compile(r"\{.*?\}", re.DOTALL)


def parse_intent_answer(text: str) -> IntentDecision | None:
    """Read a model's intent answer; None when it holds no usable label.

    Tolerates code fences, prose around the object, label casing and a missing or out-of-range
    confidence (clamped to 0..1, default 0.5).
    """
    for candidate in [text.strip(), *_JSON_OBJECT.findall(text)]:
        candidate = candidate.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
        try:
            data = json.loads(candidate)
        except (json.JSONDecodeError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        label = str(data.get("label", "")).strip().lower()
        if label not in INTENT_LABELS:
            continue
        try:
            confidence = float(data.get("confidence", 0.5))
        except (TypeError, ValueError):
            confidence = 0.5
        confidence = min(1.0, max(0.0, confidence))
        reason = str(data.get("reason", "")).strip() or "model gave no reason"
        return IntentDecision(label=label, confidence=confidence, reason=reason, detector="model")  # type: ignore[arg-type]
    return None


class IntentGuard:
    """One run's guard: detection result, counters, and the four checks of seed 000 section 6."""

    def __init__(self, intent: dict, config: dict, scopes: dict[str, str]) -> None:
        self._kind = str(intent.get("kind", "auto"))
        if self._kind not in ("auto", *INTENT_LABELS):
            raise IntentGuardConfigError(f"intent.kind: {self._kind!r} is not one of auto, browser_access, general")
        self._keywords = [str(k) for k in intent.get("keywords", []) if str(k).strip()]
        self._patterns: list[re.Pattern[str]] = []
        for index, pattern in enumerate(intent.get("patterns", [])):
            try:
                self._patterns.append(re.compile(pattern, re.IGNORECASE))
            except re.error as error:
                raise IntentGuardConfigError(f"intent.patterns[{index}]: {pattern!r} is not a valid regular expression: {error}") from None
        browser = {**DEFAULT_GUARD_CONFIG["browser"], **(config.get("browser") or {})}
        self.enabled = bool(config.get("enabled", True))
        self.detector = str(config.get("detector", "heuristic"))
        if self.detector not in ("heuristic", "model"):
            raise IntentGuardConfigError(f"intentGuard.detector: {self.detector!r} is not one of heuristic, model")
        soft_block_after = config.get("softBlockAfter", DEFAULT_GUARD_CONFIG["softBlockAfter"])
        if not isinstance(soft_block_after, int) or isinstance(soft_block_after, bool) or soft_block_after < 0:
            raise IntentGuardConfigError(f"intentGuard.softBlockAfter: {soft_block_after!r} must be an integer >= 0")
        self.soft_block_after = soft_block_after
        self.no_fallback = bool(browser["noFallback"])
        self.network_adjacent_only = bool(browser["networkAdjacentOnly"])
        self.fail_task_if_unmet = bool(browser["failTaskIfUnmet"])
        self._scopes = dict(scopes)
        self._intent: IntentDecision | None = None
        self._successful_browser_calls = 0
        self._network_adjacent_calls = 0

    @classmethod
    def from_plan(cls, plan: Plan) -> IntentGuard:
        return cls(plan.intent, plan.intent_guard, plan.tools.scopes)

    # --- detection ---------------------------------------------------------------------------

    def detect_heuristic(self, goal: str) -> IntentDecision:
        """Keywords (case-insensitive substring), then patterns; `kind` other than auto wins."""
        if self._kind != "auto":
            return IntentDecision(self._kind, 1.0, f"the recipe sets intent.kind: {self._kind}", "config")  # type: ignore[arg-type]
        folded = goal.casefold()
        for keyword in self._keywords:
            if keyword.casefold() in folded:
                return IntentDecision("browser_access", HEURISTIC_HIT_CONFIDENCE, f"goal contains keyword {keyword!r}", "heuristic")
        for pattern in self._patterns:
            match = pattern.search(goal)
            if match:
                return IntentDecision(
                    "browser_access", HEURISTIC_HIT_CONFIDENCE, f"goal matches pattern {pattern.pattern!r} at {match.group(0)!r}", "heuristic"
                )
        return IntentDecision("general", HEURISTIC_MISS_CONFIDENCE, "no browser keyword or pattern in the goal", "heuristic")

    async def detect(self, goal: str, model: IntentModel | None = None) -> IntentDecision:
        """Seed 000 section 4: heuristic first; on a miss, ask the model when detector=model."""
        heuristic = self.detect_heuristic(goal)
        decision = heuristic
        if heuristic.detector == "heuristic" and heuristic.label == "general" and self.detector == "model":
            decision = await self._ask_model(goal, model, heuristic)
        self._intent = decision
        return decision

    async def _ask_model(self, goal: str, model: IntentModel | None, heuristic: IntentDecision) -> IntentDecision:
        def fallback(why: str) -> IntentDecision:
            return IntentDecision(heuristic.label, heuristic.confidence, f"{heuristic.reason}; {why}", "heuristic (model fallback)")

        if model is None:
            return fallback("detector is model but no model was configured")
        try:
            answer = await model.classify_intent(goal)
        except Exception as error:  # noqa: BLE001 - any model failure degrades to the heuristic, by design
            return fallback(f"model failed: {type(error).__name__}: {error}")
        parsed = parse_intent_answer(answer)
        if parsed is None:
            return fallback(f"model answer was not a usable JSON label: {answer[:120]!r}")
        return parsed

    @property
    def intent(self) -> IntentDecision | None:
        return self._intent

    # --- checks ------------------------------------------------------------------------------

    def scope_of(self, tool: str) -> ToolScope:
        scope = self._scopes.get(canonical_tool(tool))
        if scope is not None:
            try:
                return ToolScope(scope)
            except ValueError:
                pass  # an unknown scope string is classified by name, like an undeclared tool
        return classify_tool_name(tool)

    def _enforced(self) -> bool:
        if not self.enabled:
            return False
        if self._intent is None:
            raise IntentNotDetected("IntentGuard: call detect() (or detect_heuristic via detect) before the guard checks")
        return self._intent.label == "browser_access"

    def preflight(self, available_tools: list[str]) -> GuardDecision:
        """Seed 000 6.1: a browser task with noFallback needs at least one browser tool."""
        if not self._enforced() or not self.no_fallback:
            return GuardDecision(True, detail=self._why_unenforced("preflight"))
        browser_tools = [tool for tool in available_tools if self.scope_of(tool) is ToolScope.BROWSER]
        if browser_tools:
            return GuardDecision(True, detail=f"browser tools available: {', '.join(sorted(browser_tools))}", scope=ToolScope.BROWSER.value)
        listed = ", ".join(available_tools) or "none"
        return GuardDecision(
            False,
            StopReason.INTENT_EXECUTION_FAILED,
            f"the goal asks for browser access ({self._intent_reason()}) but no browser tool is available "
            f"(available: {listed}); expose a browser tool (e.g. browser_navigate, browser_snapshot) in tools.allow "
            "or the tool registry, or set guards.intentGuard.browser.noFallback: false",
        )

    def before_tool(self, tool: str) -> GuardDecision:
        """Seed 000 6.2: browser tools pass; network-adjacent ones pass softBlockAfter times; others stop."""
        scope = self.scope_of(tool)
        if not self._enforced() or not self.network_adjacent_only:
            return GuardDecision(True, detail=self._why_unenforced(f"tool {tool}"), scope=scope.value)
        if scope is ToolScope.BROWSER:
            return GuardDecision(True, detail=f"{tool} is a browser tool", scope=scope.value)
        if scope is ToolScope.INTERNAL:
            return GuardDecision(True, detail=f"{tool} is one of the runtime's own steps", scope=scope.value)
        if scope is ToolScope.NETWORK_ADJACENT:
            self._network_adjacent_calls += 1
            used = self._network_adjacent_calls
            if used <= self.soft_block_after:
                return GuardDecision(
                    True, detail=f"{tool} is network-adjacent: call {used} of {self.soft_block_after} allowed on a browser task", scope=scope.value
                )
            return GuardDecision(
                False,
                StopReason.TOOL_POLICY_BLOCKED,
                f"{tool} is network-adjacent and this browser task already used its {self.soft_block_after} "
                f"network-adjacent call(s) (this is call {used}); use a browser tool instead "
                "(raise guards.intentGuard.softBlockAfter only to debug)",
                scope.value,
            )
        return GuardDecision(
            False,
            StopReason.TOOL_POLICY_BLOCKED,
            f"{tool} is out of scope for a browser task ({self._intent_reason()}); only browser and "
            "network-adjacent tools may run; declare the tool's scope in the registry if it really is a browser tool",
            scope.value,
        )

    def on_settled(self, tool: str, ok: bool) -> None:
        """Seed 000 6.3: count successful browser calls."""
        if ok and self.scope_of(tool) is ToolScope.BROWSER:
            self._successful_browser_calls += 1

    def completion(self) -> GuardDecision:
        """Seed 000 6.4: a browser task with failTaskIfUnmet needs one successful browser call."""
        if not self._enforced() or not self.fail_task_if_unmet:
            return GuardDecision(True, detail=self._why_unenforced("completion"))
        if self._successful_browser_calls > 0:
            return GuardDecision(True, detail=f"{self._successful_browser_calls} successful browser call(s)", scope=ToolScope.BROWSER.value)
        return GuardDecision(
            False,
            StopReason.INTENT_EXECUTION_FAILED,
            f"the goal asks for browser access ({self._intent_reason()}) but no browser tool call succeeded; "
            "check the run's tool.call / tool.result events for browser tools and why they failed, "
            "or set guards.intentGuard.browser.failTaskIfUnmet: false",
        )

    @property
    def successful_browser_calls(self) -> int:
        return self._successful_browser_calls

    @property
    def network_adjacent_calls(self) -> int:
        return self._network_adjacent_calls

    def metadata(self) -> dict[str, Any]:
        """What the run records under its execution metadata (seed 000 section 7)."""
        return {
            "enabled": self.enabled,
            "intent": self._intent.to_dict() if self._intent else None,
            "successfulBrowserCalls": self._successful_browser_calls,
            "networkAdjacentCalls": self._network_adjacent_calls,
            "softBlockAfter": self.soft_block_after,
        }

    def _intent_reason(self) -> str:
        return self._intent.reason if self._intent else "intent not detected"

    def _why_unenforced(self, what: str) -> str:
        if not self.enabled:
            return f"{what}: intent guard disabled (guards.intentGuard.enabled: false)"
        assert self._intent is not None
        if self._intent.label == "general":
            return f"{what}: general task, no browser-first limits ({self._intent.reason})"
        return f"{what}: allowed, this check is switched off in guards.intentGuard.browser"
