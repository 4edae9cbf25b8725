"""Binds features/verdict_replans.feature: Retry-After in replans and value provenance, run for
real in Chromium against the honesty corpus site."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from pytest_bdd import parsers, scenarios, then, when

from runtime.browser import Browser
from runtime.events import EventLog, ToolUsed
from runtime.execute import BrowserProvider, start_run
from runtime.plan import prepare_run
from runtime.recipe import load_recipe_with_registry
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.honesty.site import HonestySite
from tests.verdict.honesty_corpus import CORPUS

scenarios("verdict_replans.feature")

RECIPES = Path(__file__).resolve().parents[1] / "fixtures" / "recipes"


@pytest.fixture(scope="module")
def honesty_site() -> Iterator[HonestySite]:
    with HonestySite() as site:
        yield site


@pytest.fixture
def run(loop_thread: LoopThread, shared_browser: Browser, honesty_site: HonestySite, tmp_path: Path) -> dict[str, Any]:
    def start(path: Path) -> None:
        recipe, registry = load_recipe_with_registry(path.read_text(encoding="utf-8"), str(path), recipe_path=path)
        inputs = {k: v for k, v in honesty_site.inputs.items() if k in recipe.inputs}
        order = prepare_run(recipe, inputs, registry=registry, run_id=recipe.name, run_dir=tmp_path / "run")
        events = EventLog(recipe.name)
        seen: list[Any] = []
        events.add_listener(seen.append)

        async def go() -> Any:
            handle = start_run(order, events=events, browser=BrowserProvider(browser=shared_browser))
            return await asyncio.wait_for(asyncio.shield(handle.task), 90)

        state["verdict"] = loop_thread.run(go(), 120)
        state["events"] = seen
        state["dir"] = tmp_path / "run"

    state: dict[str, Any] = {"start": start}
    return state


@when(parsers.parse('the recipe "{name}" runs against the corpus site'))
def run_recipe(run: dict[str, Any], name: str) -> None:
    run["start"](RECIPES / f"{name}.yaml")


@when(parsers.parse('the corpus case "{case}" runs'))
def run_case(run: dict[str, Any], case: str) -> None:
    run["start"](CORPUS / "recipes" / f"{case}.yaml")


@then(parsers.parse('the run ends "{reason}" with blocker "{kind}"'))
def ends_with(run: dict[str, Any], reason: str, kind: str) -> None:
    verdict = run["verdict"]
    assert (verdict.stop_reason.value, verdict.blocker_kind.value if verdict.blocker_kind else None) == (reason, kind), verdict.summary


@then(parsers.parse('plans.json says the replan "{result}"'))
def repaired(run: dict[str, Any], result: str) -> None:
    repairs = json.loads((run["dir"] / "plans.json").read_text(encoding="utf-8"))["plan_repairs"]
    assert result in [r["result"] for r in repairs], repairs
    assert all(r["blocker_kind"] == "rate_limited" for r in repairs)


@then("no search page was opened")
def no_search(run: dict[str, Any]) -> None:
    opened = [e.payload.summary for e in run["events"] if isinstance(e.payload, ToolUsed) and e.payload.tool == "open_url" and e.payload.phase == "start"]
    assert opened and not any("/search" in summary for summary in opened), opened


@then(parsers.parse("the run completes with price {price:g}"))
def completes(run: dict[str, Any], price: float) -> None:
    verdict = run["verdict"]
    assert verdict.stop_reason.value == "completed", verdict.summary
    assert verdict.evidence["output"]["price"] == price


def _price_provenance(run: dict[str, Any]) -> dict[str, Any]:
    return run["verdict"].evidence["provenance"]["price"]


@then("the price came from the validated document, whose content changed since validation")
def content_changed(run: dict[str, Any]) -> None:
    record = _price_provenance(run)
    assert record["document_validated"] is True and record["document"] == record["validated_document"]
    assert record["document_changed_since_validation"] is False and record["content_changed_since_validation"] is True


@then(parsers.parse('the price came from the validated document at "{path}"'))
def came_from(run: dict[str, Any], path: str) -> None:
    record = _price_provenance(run)
    assert record["document_validated"] is True and urlsplit(record["document"]["url"]).path == path
    assert record["validated_document"]["loader_id"] == record["document"]["loader_id"]


def _driver_calls(run: dict[str, Any], state_id: str) -> list[dict[str, Any]]:
    executions = json.loads((run["dir"] / "executions.json").read_text(encoding="utf-8"))
    return next(e for e in executions if e["state_id"] == state_id)["tool_results"]


@then("the read step read the page once, with the fingerprint of the document it read")
def read_once(run: dict[str, Any]) -> None:
    calls = _driver_calls(run, "read")
    assert [c["action"] for c in calls] == ["extract"], calls
    # The fingerprint the read carried is the validated document's, taken after the click
    # changed its content: the digest differs from the one taken at validation.
    record = _price_provenance(run)
    assert record["content_changed_since_validation"] is True and record["revalidated"] is False


@then("the read step dropped its first read, validated the new document and read it again")
def read_again(run: dict[str, Any]) -> None:
    calls = _driver_calls(run, "read")
    assert [c["action"] for c in calls] == ["extract", "page_fingerprint", "prepare_page", "extract"], calls
    record = _price_provenance(run)
    assert record["revalidated"] is True and record["document_changed_since_validation"] is True
