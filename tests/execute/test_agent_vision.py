"""Binds features/agent_vision.feature: the page's screenshot as an image part, by agent.vision,
on each provider's loopback server through its real SDK (the agent corpus's site and recipe)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import parsers, scenarios, then, when

from tests.execute.conftest import ExecRunner
from tests.fixtures.agent_corpus.providers import configure_every_provider, corpus_recipe, run_case
from tests.fixtures.agent_corpus.site import AgentCorpusSite
from tests.fixtures.model_wire import ModelWireServer, RecordedRequest

scenarios("agent_vision.feature")


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
    configure_every_provider(servers, monkeypatch)
    monkeypatch.setenv("VERITY_MODEL", f"{provider}:{model}")
    if override:
        monkeypatch.setenv("VERITY_MODEL_VISION", override)
    else:
        monkeypatch.delenv("VERITY_MODEL_VISION", raising=False)
    recipe, agent = corpus_recipe()
    agent["vision"] = vision
    record = run_case(runner, corpus_site, servers[provider], case_id, recipe, tmp_path / "agent-vision.yaml")
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
