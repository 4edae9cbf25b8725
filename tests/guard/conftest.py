"""Guard fixtures: the loopback Gemini server for the model detector."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fixtures.gemini_server import GeminiServer


@pytest.fixture
def gemini() -> Iterator[GeminiServer]:
    with GeminiServer() as server:
        yield server
