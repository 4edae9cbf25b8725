"""Binds features/verdict_corpus.feature: the honesty corpus is labelled, valid, served, and blocker
detection agrees with its labels on the start pages. No browser: the executor's suite runs the
cases in Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pytest_bdd import given, scenarios, then, when

from runtime.execute.judges.page_blockers import BlockerFinding, detect_blocker
from runtime.outcomes import BlockerKind, StopReason
from runtime.recipe import Recipe, load_recipe_file
from tests.fixtures.honesty.site import PAGES, ROUTES, UNKNOWN_ROUTE_HEADER, HonestySite
from tests.verdict.honesty_corpus import CORPUS, Label, fetch_page, load_labels

scenarios("verdict_corpus.feature")

GROUPS = {"typed_values", "benign_words", "provenance", "targets", "effects", "recovery", "blockers"}
# The kinds the issue asks the corpus to cover.
REQUIRED_KINDS = {
    BlockerKind.PAGE_NOT_FOUND, BlockerKind.ACCESS_DENIED, BlockerKind.ACCESS_BLOCKED, BlockerKind.CAPTCHA,
    BlockerKind.LOGIN_REQUIRED, BlockerKind.RATE_LIMITED, BlockerKind.SERVER_ERROR, BlockerKind.STATUS_MISMATCH,
    BlockerKind.DOMAIN_NOT_ALLOWED, BlockerKind.SCHEME_NOT_ALLOWED, BlockerKind.KEYWORDS_MISSING, BlockerKind.EXTRACTION_FAILED,
}  # fmt: skip
# The kinds page_blockers decides from one page.
DETECTED_KINDS = {
    BlockerKind.PAGE_NOT_FOUND, BlockerKind.ACCESS_DENIED, BlockerKind.ACCESS_BLOCKED, BlockerKind.CAPTCHA,
    BlockerKind.LOGIN_REQUIRED, BlockerKind.RATE_LIMITED, BlockerKind.SERVER_ERROR, BlockerKind.STATUS_MISMATCH,
}  # fmt: skip


@pytest.fixture(scope="module")
def corpus_site() -> Iterator[HonestySite]:
    with HonestySite() as site:
        yield site


@pytest.fixture
def corpus() -> dict[str, Any]:
    return {}


@given("the honesty corpus")
def the_corpus(corpus: dict[str, Any]) -> None:
    corpus["labels"] = load_labels()
    corpus["recipe_files"] = sorted((CORPUS / "recipes").glob("*.yaml"))


def _labels(corpus: dict[str, Any]) -> list[Label]:
    return corpus["labels"]


def _recipe(label: Label) -> Recipe:
    return load_recipe_file(label.recipe)


@then("every label names a recipe and every recipe has a label")
def labels_and_recipes_match(corpus: dict[str, Any]) -> None:
    labels = _labels(corpus)
    ids = [label.id for label in labels]
    assert len(ids) == len(set(ids)), "duplicate label ids"
    assert all(label.recipe.is_file() for label in labels), [label.id for label in labels if not label.recipe.is_file()]
    assert {label.recipe for label in labels} == set(corpus["recipe_files"])
    assert all(label.recipe.stem == label.id for label in labels)


@then("every label is well formed")
def labels_well_formed(corpus: dict[str, Any]) -> None:
    for label in _labels(corpus):
        reason = StopReason(label.stop_reason)
        kind = BlockerKind(label.blocker_kind) if label.blocker_kind is not None else None
        assert label.group in GROUPS and label.why.strip(), label.id
        if reason is StopReason.COMPLETED:
            assert kind is None and label.output, f"{label.id}: a completed case names its values and no blocker"
        else:
            assert label.output is None and not label.benign, f"{label.id}: only completed cases have values or are benign"
        if label.benign:
            assert reason is StopReason.COMPLETED, label.id
        if kind is not None:
            assert reason is StopReason.REPLANS_EXHAUSTED, f"{label.id}: a blocker ends replans_exhausted (labels rule 2)"


@then("every recipe validates")
def recipes_validate(corpus: dict[str, Any]) -> None:
    for label in _labels(corpus):
        recipe = _recipe(label)  # raises RecipeInvalid with file:line:col problems
        assert recipe.name == f"honesty-{label.id}"
        assert recipe.guards.max_replans == 0 and recipe.fallback.search_url is None, label.id
        assert recipe.target.allowed_domains == ["127.0.0.1"], label.id
        assert set(recipe.inputs) <= {"site", "offsite"} and "site" in recipe.inputs, label.id


@then("the labels cover every blocker kind with at least 45 cases and 12 benign ones")
def coverage(corpus: dict[str, Any]) -> None:
    labels = _labels(corpus)
    kinds = {BlockerKind(label.blocker_kind) for label in labels if label.blocker_kind}
    assert REQUIRED_KINDS <= kinds, REQUIRED_KINDS - kinds
    assert len(labels) >= 45 and sum(label.benign for label in labels) >= 12
    assert {label.group for label in labels} == GROUPS


@then("every start page is served by the corpus site")
def start_pages_served(corpus: dict[str, Any], corpus_site: HonestySite) -> None:
    assert all((PAGES / route.page).is_file() for route in ROUTES.values() if route.page)
    for label in _labels(corpus):
        start = _recipe(label).target.start_url
        if not start.startswith("{site}"):
            continue
        page = fetch_page(start.replace("{site}", corpus_site.base_url))
        assert UNKNOWN_ROUTE_HEADER not in page.headers, f"{label.id}: {start} is not in the corpus"


@when("each start page is fetched from the corpus site and its blocker detected")
def detect_start_pages(corpus: dict[str, Any], corpus_site: HonestySite) -> None:
    findings: dict[str, BlockerFinding | None] = {}
    for label in _labels(corpus):
        target = _recipe(label).target
        if target.start_url.startswith("{site}"):
            page = fetch_page(target.start_url.replace("{site}", corpus_site.base_url))
            findings[label.id] = detect_blocker(page, expected_status=target.expected_status)
    corpus["findings"] = findings


def _blamed_on_start_page(label: Label) -> bool:
    return label.group == "blockers" and label.blocker_kind is not None and BlockerKind(label.blocker_kind) in DETECTED_KINDS


@then("each page the label blames on its start page gets that kind")
def blamed_pages(corpus: dict[str, Any]) -> None:
    blamed = [label for label in _labels(corpus) if _blamed_on_start_page(label)]
    assert len(blamed) >= 15
    for label in blamed:
        finding = corpus["findings"][label.id]
        assert finding is not None and finding.kind is BlockerKind(label.blocker_kind), (label.id, finding)
        for key, value in (label.evidence or {}).items():
            assert finding.evidence.get(key) == value, (label.id, key, finding.evidence)


@then("every other start page gets none")
def other_pages(corpus: dict[str, Any]) -> None:
    others = [label for label in _labels(corpus) if not _blamed_on_start_page(label) and label.id in corpus["findings"]]
    assert sum(label.benign for label in others) >= 12
    wrong = {label.id: corpus["findings"][label.id] for label in others if corpus["findings"][label.id] is not None}
    assert not wrong, wrong
