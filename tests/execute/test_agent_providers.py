"""Binds features/agent_providers.feature: one agent recipe of the agent corpus on each provider's
loopback server (tests/fixtures/{gemini,openai,anthropic}_server.py), through the real SDKs, the
provider chosen by VERITY_MODEL or by the recipe's agent.model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from ruamel.yaml import YAML

from tests.execute.conftest import ExecRunner
from tests.fixtures.agent_corpus.cases import CASES, RECIPE, model_turn
from tests.fixtures.agent_corpus.site import AgentCorpusSite
from tests.fixtures.anthropic_server import AnthropicServer
from tests.fixtures.gemini_server import GeminiServer
from tests.fixtures.model_wire import ModelWireServer
from tests.fixtures.openai_server import OpenAIServer

scenarios("agent_providers.feature")

MODELS = {"gemini": "gemini-fixture-flash", "openai": "openai-fixture-mini", "anthropic": "claude-fixture-haiku"}


@pytest.fixture(scope="module")
def corpus_site() -> Iterator[AgentCorpusSite]:
    with AgentCorpusSite() as site:
        yield site


@given("the agent corpus site and a loopback server of every provider", target_fixture="servers")
def _servers(corpus_site: AgentCorpusSite) -> Iterator[dict[str, ModelWireServer]]:
    with GeminiServer() as gemini, OpenAIServer() as openai, AnthropicServer() as anthropic:
        yield {"gemini": gemini, "openai": openai, "anthropic": anthropic}


@when(parsers.parse('the agent corpus case "{case_id}" runs on {provider}, chosen by {chosen_by}'), target_fixture="run")
def _run(
    case_id: str, provider: str, chosen_by: str, servers: dict[str, ModelWireServer], corpus_site: AgentCorpusSite,
    runner: ExecRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> dict[str, Any]:
    # Every provider is configured as a team would (its SDK's own variables); only the choice differs.
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    for server in servers.values():
        for name, value in server.env(api_key=f"{server.name}-fixture-key").items():  # type: ignore[attr-defined]
            monkeypatch.setenv(name, value)
    recipe = YAML(typ="safe").load(RECIPE.read_text(encoding="utf-8"))
    [agent] = [step for step in recipe["plan"] if "agent" in step]
    if chosen_by == "VERITY_MODEL":
        monkeypatch.setenv("VERITY_MODEL", f"{provider}:{MODELS[provider]}")
    else:
        # VERITY_MODEL names another provider: the recipe's own choice must win.
        other = next(name for name in MODELS if name != provider)
        monkeypatch.setenv("VERITY_MODEL", f"{other}:{MODELS[other]}")
        agent["agent"]["model"] = {"provider": provider, "name": MODELS[provider]}
    path = tmp_path / "agent-au2606.yaml"
    path.write_text(json.dumps(recipe, ensure_ascii=False), encoding="utf-8")  # JSON is YAML
    servers[provider].enqueue(*(model_turn(step, corpus_site) for step in CASES[case_id]["model"]))
    record = runner.wait(runner.start(path, corpus_site.inputs), timeout=90)
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
