"""Binds features/agent_vision.feature: the page's screenshot as an image part, by agent.vision,
on each provider's loopback server through its real SDK (the agent corpus's site and recipe)."""

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
from tests.fixtures.model_wire import ModelWireServer, RecordedRequest
from tests.fixtures.openai_server import OpenAIServer

scenarios("agent_vision.feature")


@pytest.fixture(scope="module")
def corpus_site() -> Iterator[AgentCorpusSite]:
    with AgentCorpusSite() as site:
        yield site


@given("the agent corpus site and a loopback server of every provider", target_fixture="servers")
def _servers(corpus_site: AgentCorpusSite) -> Iterator[dict[str, ModelWireServer]]:
    with GeminiServer() as gemini, OpenAIServer() as openai, AnthropicServer() as anthropic:
        yield {"gemini": gemini, "openai": openai, "anthropic": anthropic}


@when(
    parsers.re(
        r'the agent corpus case "(?P<case_id>[^"]+)" runs on (?P<provider>\w+) model "(?P<model>[^"]+)" '
        r'with agent.vision (?P<vision>\w+) and VERITY_MODEL_VISION "(?P<override>\w*)"'
    ),
    target_fixture="run",
)
def _run(
    case_id: str, provider: str, model: str, vision: str, override: str, servers: dict[str, ModelWireServer],
    corpus_site: AgentCorpusSite, runner: ExecRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> dict[str, Any]:
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    for server in servers.values():
        for name, value in server.env(api_key=f"{server.name}-fixture-key").items():  # type: ignore[attr-defined]
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("VERITY_MODEL", f"{provider}:{model}")
    if override:
        monkeypatch.setenv("VERITY_MODEL_VISION", override)
    else:
        monkeypatch.delenv("VERITY_MODEL_VISION", raising=False)
    recipe = YAML(typ="safe").load(RECIPE.read_text(encoding="utf-8"))
    [agent] = [step for step in recipe["plan"] if "agent" in step]
    agent["agent"]["vision"] = vision
    path = tmp_path / "agent-vision.yaml"
    path.write_text(json.dumps(recipe, ensure_ascii=False), encoding="utf-8")  # JSON is YAML
    servers[provider].enqueue(*(model_turn(step, corpus_site) for step in CASES[case_id]["model"]))
    record = runner.wait(runner.start(path, corpus_site.inputs), timeout=90)
    return {"record": record, "server": servers[provider]}


def _images(request: RecordedRequest) -> list[str]:
    """The image payloads a request carried, whatever the provider's shape."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("inlineData"), dict):
                found.append(str(node["inlineData"].get("data")))
            elif isinstance(node.get("image_url"), dict):
                found.append(str(node["image_url"].get("url")))
            elif node.get("type") == "image" and isinstance(node.get("source"), dict):
                found.append(str(node["source"].get("data")))
            else:
                for value in node.values():
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(request.body)
    assert len(found) == request.image_count(), (len(found), request.image_count())
    return found


@then(parsers.parse('the run ends "{stop_reason}"'))
def _ends(run: dict[str, Any], stop_reason: str) -> None:
    verdict = run["record"].verdict
    assert verdict is not None and verdict.stop_reason.value == stop_reason, verdict.summary if verdict else None


@then("every request carried exactly one image, and the page's change sent a new one")
def _one_image(run: dict[str, Any]) -> None:
    requests = run["server"].requests
    images = [_images(request) for request in requests]
    assert len(requests) >= 4 and all(len(shown) == 1 for shown in images), [len(shown) for shown in images]
    # The case opens /gone, reads there, then opens the quote page again: the picture changed at
    # each of the two opens, and not at the read.
    changes = sum(1 for before, after in zip(images, images[1:]) if before[0] != after[0])
    assert changes == 2, [shown[0][-40:] for shown in images]


@then("no request carried an image")
def _no_image(run: dict[str, Any]) -> None:
    requests = run["server"].requests
    assert requests and all(not _images(request) for request in requests)


@then("the run ends \"invalid_input\" before any model request, saying the model takes no images")
def _refused(run: dict[str, Any]) -> None:
    verdict = run["record"].verdict
    assert verdict is not None and verdict.stop_reason.value == "invalid_input", verdict
    assert "takes no images" in verdict.summary and "agent.vision" in verdict.summary, verdict.summary
    assert not run["server"].requests
