"""Steps of the action cache under the three `verity serve` replicas of
features/service_replicas.feature: a path an agent step learned on one replica replays on another
with no model call, all of them on one PostgreSQL store (test_service_replicas.py starts them, with
the scripted Gemini server on loopback as their model)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import then, when

from runtime.service.gen.verity.v1 import events_pb2 as events_pb
from runtime.store.location import PostgresUrl
from runtime.store.opening import open_action_cache
from tests.execute.order_desk import PIN, OrderDesk, order_script
from tests.fixtures.gemini_server import GeminiServer

COMPLETED = events_pb.StopReason.Value("STOP_REASON_COMPLETED")


@pytest.fixture
def order_desk() -> Iterator[OrderDesk]:
    with OrderDesk() as served:
        yield served


def served_order(context: dict[str, Any], client_for: Any, replica: str, desk: OrderDesk, customer: str) -> tuple[str, events_pb.FinalVerdict]:
    """Run the order desk's recipe for `customer` through `replica` (Run streams it to its end)."""
    client = client_for(context["replicas"][replica].target)
    events = list(client.run(recipe_name="agent-order-desk", inputs={"site": desk.base_url, "customer": customer, "pin": PIN}))
    assert events[-1].HasField("final_verdict"), events[-1]
    return events[-1].run_id, events[-1].final_verdict


def ran_on(tmp_path: Path, run_id: str) -> tuple[str, dict[str, Any]]:
    """The replica whose runs directory holds the run (the one that ran it), and its verdict.json."""
    (verdict,) = tmp_path.glob(f"*/runs/{run_id}/verdict.json")
    return verdict.parents[2].name, json.loads(verdict.read_text(encoding="utf-8"))


@when('a client starts "agent-order-desk" on replica C and the scripted model places the order')
def learn_on_a(client_for: Any, context: dict[str, Any], gemini: GeminiServer, order_desk: OrderDesk) -> None:
    gemini.enqueue(*order_script("Ada"))
    context["learned"] = served_order(context, client_for, "C", order_desk, "Ada")


@then("replica A ran it, verified, and learned its path into the action cache the replicas share")
def learned_on_a(context: dict[str, Any], gemini: GeminiServer, tmp_path: Path) -> None:
    run_id, verdict = context["learned"]
    assert verdict.stop_reason == COMPLETED and verdict.verified, verdict.summary
    replica, written = ran_on(tmp_path, run_id)
    assert replica == "A"  # the only replica with a free slot
    assert written["action_cache"]["steps"]["order"]["learned"] is True, written["action_cache"]
    assert len(gemini.requests) == 4 and not gemini.script_failures, gemini.script_failures
    cache = open_action_cache(PostgresUrl(context["url"]), migrated=True)
    try:
        (entry,) = cache.entries()
    finally:
        cache.close()
    assert entry.run_id == run_id and len(entry.steps) == 3, entry


@when('a client starts "agent-order-desk" on replica B for another customer')
def replay_elsewhere(client_for: Any, context: dict[str, Any], order_desk: OrderDesk) -> None:
    context["replayed"] = served_order(context, client_for, "B", order_desk, "Bo")


@then("a replica other than A ran it verified from the path A learned, with no model call")
def replayed_elsewhere(context: dict[str, Any], gemini: GeminiServer, tmp_path: Path) -> None:
    run_id, verdict = context["replayed"]
    assert verdict.stop_reason == COMPLETED and verdict.verified, verdict.summary
    # A is dead by now: B or C claimed the run, whichever had a free slot first; either is another replica.
    replica, written = ran_on(tmp_path, run_id)
    assert replica in ("B", "C"), replica
    assert len(gemini.requests) == 4  # none since the run on A
    replay = written["action_cache"]["steps"]["order"]
    assert (replay["outcome"], replay["model_calls"], replay["learned_in_run"]) == ("replayed", 0, context["learned"][0]), replay
