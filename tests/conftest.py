"""Shared test configuration. Area fixtures live in each area's own conftest.py."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# One Chromium, its loop thread and the fixture site, the loopback Gemini server, and a real
# PostgreSQL server (databases made on demand by `postgres_dsn()`), shared by
# every area's tests.
pytest_plugins = ["tests.fixtures.browser_loop", "tests.fixtures.gemini_fixtures", "tests.fixtures.postgres"]
# `verity run` keeps a verified action cache in .verity/verity.db by default: the suite's runs (and
# the `verity` processes they start) learn nothing from each other unless a test gives a cache.
os.environ["VERITY_ACTION_CACHE"] = "off"
CONTRACT_TAG = re.compile(r"^[A-Z][A-Z0-9]*-\d{3}$")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "contract(id): the contract (contracts/*.yaml) a scenario proves")
    config.addinivalue_line("markers", "live: a scenario `verity bdd gate --live` runs against the model the environment names")


def pytest_bdd_apply_tag(tag: str, function: Callable) -> bool | None:
    # Contract ids such as RECIPE-001 are not valid marker names; carry them as contract("RECIPE-001").
    if CONTRACT_TAG.match(tag):
        pytest.mark.contract(tag)(function)
        return True
    return None


@pytest.fixture
def repo() -> Path:
    return REPO
