"""Blocker detection over labelled pages (tests/verdict/blocker_cases.py), the Retry-After rule and
the replan guidance the executor merges in."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from runtime.execute.judges.page_blockers import (
    BLOCKER_GUIDANCE,
    BlockerFinding,
    detect_blocker,
    replan_guidance,
    retry_after_seconds,
)
from runtime.outcomes import BlockerKind
from tests.verdict.blocker_cases import CASES, BlockerCase
from tests.verdict.cover_cases import COVER_CASES

NOW = datetime(2026, 10, 21, 7, 28, tzinfo=UTC)


def test_the_table_is_big_enough_and_covers_both_languages() -> None:
    assert len(CASES) >= 40
    assert len({case.id for case in CASES}) == len(CASES)
    benign = [case for case in CASES if case.kind is None]
    assert len(benign) >= 10
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in case.page.text + case.page.title) for case in benign)
    kinds = {case.kind for case in CASES}
    wanted = {
        BlockerKind.PAGE_NOT_FOUND,
        BlockerKind.LOGIN_REQUIRED,
        BlockerKind.CAPTCHA,
        BlockerKind.RATE_LIMITED,
        BlockerKind.ACCESS_BLOCKED,
        BlockerKind.ACCESS_DENIED,
        BlockerKind.SERVER_ERROR,
        BlockerKind.STATUS_MISMATCH,
    }
    assert wanted <= kinds


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_each_labelled_page_gets_its_kind(case: BlockerCase) -> None:
    finding = detect_blocker(case.page, expected_status=case.expected_status, now=NOW)
    if case.kind is None:
        assert finding is None, f"false positive: {finding}"
        return
    assert finding is not None, "missed blocker"
    assert finding.kind is case.kind, finding.reason
    assert finding.soft is case.soft
    assert finding.evidence["url"] == case.page.url and finding.evidence["status"] == case.page.status
    for key, value in case.evidence.items():
        assert finding.evidence.get(key) == value, (key, finding.evidence)


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("120", 120.0),
        ("0", 0.0),
        ("Wed, 21 Oct 2026 07:30:00 GMT", 120.0),
        ("Wed, 21 Oct 2026 07:00:00 GMT", 0.0),
        ("soon", None),
        ("", None),
        ("-5", None),
    ],
)
def test_retry_after_is_seconds_or_an_http_date(header: str, seconds: float | None) -> None:
    assert retry_after_seconds(header, NOW) == seconds


def test_guidance_names_the_wait_for_rate_limits_and_calls_a_soft_404_one() -> None:
    limited = BlockerFinding(BlockerKind.RATE_LIMITED, "429", {"retry_after_seconds": 30.0})
    assert "Retry-After" in replan_guidance(limited) and "30 s" in replan_guidance(limited)
    soft = BlockerFinding(BlockerKind.PAGE_NOT_FOUND, "soft", {"soft": True})
    assert "soft 404" in replan_guidance(soft)
    hard = BlockerFinding(BlockerKind.PAGE_NOT_FOUND, "404", {})
    assert replan_guidance(hard, {BlockerKind.PAGE_NOT_FOUND: "the last page returned 404"}) == "the last page returned 404"
    for kind in (BlockerKind.LOGIN_REQUIRED, BlockerKind.CAPTCHA, BlockerKind.RATE_LIMITED, BlockerKind.SCHEME_NOT_ALLOWED):
        assert BLOCKER_GUIDANCE[kind]


@pytest.mark.parametrize("case", COVER_CASES, ids=[case.id for case in COVER_CASES])
def test_the_page_under_a_layer_is_no_blocker_without_it(case: BlockerCase) -> None:
    # Only the layer can make these pages blockers: without it, each is an ordinary long page.
    assert detect_blocker(replace(case.page, cover=None), now=NOW) is None
