"""Binds features/agent_providers.feature: one agent recipe of the agent corpus on each provider's
loopback server (tests/fixtures/{gemini,openai,anthropic}_server.py), through the real SDKs, the
provider chosen by VERITY_MODEL or by the recipe's agent.model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import parsers, scenarios, then, when

from tests.execute.conftest import ExecRunner
from tests.fixtures.agent_corpus.providers import configure_every_provider, corpus_recipe, run_case
from tests.fixtures.agent_corpus.site import AgentCorpusSite
from tests.fixtures.model_wire import ModelWireServer

scenarios("agent_providers.feature")

MODELS = {"gemini": "gemini-fixture-flash", "openai": "openai-fixture-mini", "anthropic": "claude-fixture-haiku"}


@when(parsers.parse('the agent corpus case "{case_id}" runs on {provider}, chosen by {chosen_by}'), target_fixture="run")
def _run(
    case_id: str, provider: str, chosen_by: str, servers: dict[str, ModelWireServer], corpus_site: AgentCorpusSite,
    runner: ExecRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> dict[str, Any]:
    configure_every_provider(servers, monkeypatch)
    recipe, agent = corpus_recipe()
    if chosen_by == "VERITY_MODEL":
        monkeypatch.setenv("VERITY_MODEL", f"{provider}:{MODELS[provider]}")
    else:
        # VERITY_MODEL names another provider: the recipe's own choice must win.
        other = next(name for name in MODELS if name != provider)
        monkeypatch.setenv("VERITY_MODEL", f"{other}:{MODELS[other]}")
        agent["model"] = {"provider": provider, "name": MODELS[provider]}
    record = run_case(runner, corpus_site, servers[provider], case_id, recipe, tmp_path / "agent-au2606.yaml")
    return {"record": record, "provider": provider, "servers": servers}


@then(parsers.parse('the run ends "{stop_reason}" with blocker kind "{kind}", and {provider} answered every model request'))
def _ends(run: dict[str, Any], stop_reason: str, kind: str, provider: str) -> None:
    verdict = run["record"].verdict
    assert verdict is not None
    got = (verdict.stop_reason.value, verdict.blocker_kind.value if verdict.blocker_kind else "none")
    assert got == (stop_reason, kind), verdict.summary
    if stop_reason == "completed":
        assert run["record"].file("output.json")["data"] == {"last": "612.35"}
    servers: dict[str, ModelWireServer] = run["servers"]
    asked = {name: len(server.requests) for name, server in servers.items()}
    assert asked[provider] >= 2 and all(n == 0 for name, n in asked.items() if name != provider), asked
    for request in servers[provider].requests:
        assert request.model == MODELS[provider], request.model
