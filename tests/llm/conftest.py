"""LLM fixtures: the loopback Gemini server, and an environment that points the gateway at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fixtures.gemini_server import GeminiServer


@pytest.fixture
def gemini() -> Iterator[GeminiServer]:
    with GeminiServer() as server:
        yield server


@pytest.fixture
def gemini_env(gemini: GeminiServer, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The process environment the gateway reads, with only GEMINI_API_KEY holding a key."""
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    env = gemini.env(api_key="sk-verity-fixture-key")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env
