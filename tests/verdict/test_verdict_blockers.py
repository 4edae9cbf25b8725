"""Binds features/verdict_blockers.feature: blocker kinds over the labelled pages in
tests/verdict/blocker_cases.py, Retry-After, and the replan guidance."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.execute.judges.page_blockers import BlockerFinding, detect_blocker, replan_guidance
from runtime.outcomes import BlockerKind
from tests.verdict.blocker_cases import CASES, BlockerCase

scenarios("verdict_blockers.feature")

BY_ID = {case.id: case for case in CASES}


@pytest.fixture
def detection() -> dict[str, object]:
    return {}


@given(parsers.parse('the labelled page "{case_id}"'))
def labelled_page(detection: dict[str, object], case_id: str) -> None:
    detection["case"] = BY_ID[case_id]


def _detect(detection: dict[str, object], now: datetime | None) -> None:
    case = detection["case"]
    assert isinstance(case, BlockerCase)
    detection["finding"] = detect_blocker(case.page, expected_status=case.expected_status, now=now)


@when("its blocker is detected")
def detect(detection: dict[str, object]) -> None:
    _detect(detection, None)


@when(parsers.parse('its blocker is detected at "{moment}"'))
def detect_at(detection: dict[str, object], moment: str) -> None:
    _detect(detection, datetime.fromisoformat(moment).astimezone(UTC))


def _finding(detection: dict[str, object]) -> BlockerFinding:
    finding = detection["finding"]
    assert isinstance(finding, BlockerFinding), f"no blocker found for {detection['case']}"
    return finding


@then(parsers.parse('the blocker kind is "{kind}"'))
def kind_is(detection: dict[str, object], kind: str) -> None:
    finding = _finding(detection)
    assert finding.kind is BlockerKind(kind), finding.reason
    page = detection["case"].page  # type: ignore[attr-defined]
    assert finding.evidence["url"] == page.url and finding.evidence["status"] == page.status


@then(parsers.parse('the finding is marked soft with the phrase "{phrase}"'))
def marked_soft(detection: dict[str, object], phrase: str) -> None:
    finding = _finding(detection)
    assert finding.soft and finding.evidence["phrase"] == phrase and finding.evidence["status"] == 200


@then(parsers.parse("the evidence says to retry after {seconds:d} seconds"))
def retry_after(detection: dict[str, object], seconds: int) -> None:
    evidence = _finding(detection).evidence
    assert evidence["retry_after_seconds"] == seconds and evidence["retry_after_source"] == "header"


@then("the evidence names the covering layer")
def names_the_layer(detection: dict[str, object]) -> None:
    evidence = _finding(detection).evidence
    assert evidence["signal"] == "covering_layer" and evidence["covering_layer"]["layers"] == ["div#gate"], evidence


@then("no blocker is found")
def no_blocker(detection: dict[str, object]) -> None:
    assert detection["finding"] is None, detection["finding"]


@then(parsers.parse("the covering layer's way past it is \"{control}\""))
def way_past(detection: dict[str, object], control: str) -> None:
    layer = detection["case"].page.cover  # type: ignore[attr-defined]
    assert layer is not None and layer.dismissal() == control, layer


@then(parsers.parse('the replan guidance says to wait "{wait}" before asking again'))
def guidance_waits(detection: dict[str, object], wait: str) -> None:
    sentence = replan_guidance(_finding(detection))
    assert "Retry-After" in sentence and f"wait {wait}" in sentence, sentence


@then(parsers.parse('the replan guidance mentions "{words}"'))
def guidance_mentions(detection: dict[str, object], words: str) -> None:
    assert words in replan_guidance(_finding(detection))
