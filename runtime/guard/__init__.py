"""Run guards: seed 000's intent guard and seed 004's no_progress detector. Pure logic, no I/O.

    from runtime.guard import IntentGuard, NoProgressDetector, action_signature

    guard = IntentGuard.from_plan(plan)
    await guard.detect(plan.goal, model)   # model: an IntentModel, e.g. runtime.llm.GatewayIntentModel
    decision = guard.before_tool("webfetch")
    if not decision.allowed: stop(decision.stop_reason, decision.detail)

    progress = NoProgressDetector(plan.limits.no_progress_window)
    verdict = progress.record(action_signature(tool, target, fingerprint_before, fingerprint_after))
"""

from runtime.guard.intent import (
    INTENT_LABELS,
    GuardDecision,
    IntentDecision,
    IntentGuard,
    IntentGuardConfigError,
    IntentLabel,
    IntentModel,
    IntentNotDetected,
    parse_intent_answer,
)
from runtime.guard.progress import NoProgressDetector, NoProgressPattern, NoProgressVerdict, action_signature

__all__ = [
    "INTENT_LABELS",
    "GuardDecision",
    "IntentDecision",
    "IntentGuard",
    "IntentGuardConfigError",
    "IntentLabel",
    "IntentModel",
    "IntentNotDetected",
    "NoProgressDetector",
    "NoProgressPattern",
    "NoProgressVerdict",
    "action_signature",
    "parse_intent_answer",
]
