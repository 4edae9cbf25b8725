"""Details of the guard's pure logic that the scenarios do not spell out."""

from __future__ import annotations

import asyncio

import pytest

from runtime.guard import (
    IntentGuard,
    IntentGuardConfigError,
    IntentNotDetected,
    NoProgressDetector,
    action_signature,
    parse_intent_answer,
)
from runtime.outcomes import StopReason


@pytest.mark.parametrize(
    ("answer", "label", "confidence"),
    [
        ('{"label":"browser_access","confidence":0.9,"reason":"web"}', "browser_access", 0.9),
        ('```json\n{"label": "general", "confidence": 0.7, "reason": "notes"}\n```', "general", 0.7),
        ('Sure! {"label": "BROWSER_ACCESS", "confidence": "0.8", "reason": "x"} hope it helps', "browser_access", 0.8),
        ('{"label": "general", "confidence": 7}', "general", 1.0),
        ('{"label": "general"}', "general", 0.5),
    ],
)
def test_model_answers_are_read_tolerantly(answer: str, label: str, confidence: float) -> None:
    decision = parse_intent_answer(answer)
    assert decision is not None
    assert (decision.label, decision.confidence, decision.detector) == (label, confidence, "model")


@pytest.mark.parametrize("answer", ["", "browser_access", '{"label": "maybe"}', "[1, 2]", '{"confidence": 1}'])
def test_unusable_model_answers_give_none(answer: str) -> None:
    assert parse_intent_answer(answer) is None


def _guard(kind: str = "auto", **config: object) -> IntentGuard:
    return IntentGuard({"kind": kind, "keywords": ["use the browser"], "patterns": []}, dict(config), {"my_scraper": "browser"})


def test_recipe_kind_overrides_detection() -> None:
    guard = _guard(kind="browser_access")
    decision = asyncio.run(guard.detect("summarise my notes"))
    assert (decision.label, decision.detector) == ("browser_access", "config")
    assert _guard(kind="general").detect_heuristic("use the browser").label == "general"


def test_declared_scope_wins_over_the_name() -> None:
    guard = _guard()
    asyncio.run(guard.detect("use the browser"))
    assert guard.preflight(["my_scraper"]).allowed
    guard.on_settled("my_scraper", ok=True)
    assert guard.successful_browser_calls == 1
    assert guard.completion().allowed


def test_soft_block_after_zero_blocks_the_first_network_call() -> None:
    guard = _guard(softBlockAfter=0)
    asyncio.run(guard.detect("use the browser"))
    decision = guard.before_tool("http_get")
    assert (decision.allowed, decision.stop_reason, decision.scope) == (False, StopReason.TOOL_POLICY_BLOCKED, "network_adjacent")


def test_network_adjacent_only_off_lifts_before_tool_limits() -> None:
    guard = _guard(browser={"networkAdjacentOnly": False})
    asyncio.run(guard.detect("use the browser"))
    assert all(guard.before_tool("webfetch").allowed for _ in range(5))
    assert guard.before_tool("write_file").allowed


def test_checks_before_detection_are_a_clear_error() -> None:
    with pytest.raises(IntentNotDetected, match="detect"):
        _guard().before_tool("browser_click")


@pytest.mark.parametrize(
    ("intent", "config", "field_path"),
    [
        ({"kind": "web"}, {}, "intent.kind"),
        ({"patterns": ["(unclosed"]}, {}, r"intent.patterns\[0\]"),
        ({}, {"detector": "oracle"}, "intentGuard.detector"),
        ({}, {"softBlockAfter": -1}, "intentGuard.softBlockAfter"),
    ],
)
def test_bad_config_names_the_field(intent: dict, config: dict, field_path: str) -> None:
    with pytest.raises(IntentGuardConfigError, match=field_path):
        IntentGuard(intent, config, {})


def test_metadata_reports_counts_and_intent() -> None:
    guard = _guard()
    asyncio.run(guard.detect("use the browser please"))
    guard.before_tool("webfetch")
    guard.on_settled("browser_click", ok=True)
    meta = guard.metadata()
    assert meta["intent"]["label"] == "browser_access"
    assert (meta["successfulBrowserCalls"], meta["networkAdjacentCalls"]) == (1, 1)


def test_signature_depends_on_every_part() -> None:
    base = action_signature("browser_click", "s1:e2", "fp-a", "fp-b")
    assert base == action_signature("browser_click", "s1:e2", "fp-a", "fp-b")
    variants = {
        action_signature("browser_type", "s1:e2", "fp-a", "fp-b"),
        action_signature("browser_click", "s1:e3", "fp-a", "fp-b"),
        action_signature("browser_click", "s1:e2", "fp-x", "fp-b"),
        action_signature("browser_click", "s1:e2", "fp-a", "fp-x"),
    }
    assert base not in variants and len(variants) == 4


def test_window_two_stops_on_the_second_repeat_and_round_trips_need_four() -> None:
    detector = NoProgressDetector(2)
    assert detector.record("A") is None
    verdict = detector.record("A")
    assert verdict is not None and verdict.pattern == "repeat"
    detector.reset()
    assert [detector.record(s) for s in "ABA"] == [None, None, None]
    verdict = detector.record("B")
    assert verdict is not None and verdict.pattern == "round_trip" and verdict.signatures == ("A", "B", "A", "B")


def test_a_larger_window_needs_a_longer_alternation() -> None:
    detector = NoProgressDetector(6)
    assert all(detector.record(s) is None for s in "ABABA")
    verdict = detector.record("B")
    assert verdict is not None and verdict.pattern == "round_trip" and len(verdict.signatures) == 6


@pytest.mark.parametrize("window", [0, 1, "3"])
def test_a_window_below_two_is_rejected(window: object) -> None:
    with pytest.raises(ValueError, match="window"):
        NoProgressDetector(window)  # type: ignore[arg-type]
