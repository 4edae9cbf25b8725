"""The servers the MCP tests share (session scope: one per pytest worker, started when first
needed): the loopback fixture site, a `verity mcp` on stdio held by the SDK's client, and a
`verity mcp --http` with a token and the browser toolset, each with its own store and runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from tests.fixtures.site_server import FixtureSite
from tests.mcp.mcp_harness import ARRAY, ARTICLE, HANG, REPO, SECRET_VALUE, TOKEN, HeldClient

# --- the servers ------------------------------------------------------------------------


@pytest.fixture(scope="session")
def site() -> Iterator[FixtureSite]:
    with FixtureSite() as running:
        yield running


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The recipes directory and where each server keeps its store and runs."""
    home = tmp_path_factory.mktemp("mcp")
    recipes = home / "recipes"
    recipes.mkdir()
    (recipes / "article.yaml").write_text(ARTICLE.format(approval="false"), encoding="utf-8")
    (recipes / "approval.yaml").write_text(ARTICLE.format(approval="true").replace("name: mcp-article", "name: mcp-approval"), encoding="utf-8")
    (recipes / "hang.yaml").write_text(HANG, encoding="utf-8")
    (recipes / "array.yaml").write_text(ARRAY, encoding="utf-8")
    return {"home": home, "recipes": recipes}


def _server_flags(served: dict[str, Path], name: str) -> list[str]:
    home = served["home"] / name
    return [
        "--recipes-dir", str(served["recipes"]), "--store", str(home / "verity.db"), "--runs-dir", str(home / "runs"),
        # The fixture site is on loopback, which recipes may reach only when the server allows it.
        "--allow-private-network", "--grace-seconds", "1",
    ]


@pytest.fixture(scope="session")
def stdio_mcp(served: dict[str, Path]) -> Iterator[HeldClient]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "runtime.cli.main", "mcp", *_server_flags(served, "stdio")],
        env={**os.environ, "VERITY_SECRET_MCP_TEST": SECRET_VALUE},
        cwd=str(REPO),
    )
    held = HeldClient(lambda: Client(params))
    yield held
    held.close()


@pytest.fixture(scope="session")
def http_mcp(served: dict[str, Path]) -> Iterator[str]:
    """`verity mcp --http` on a free port with a token file; yields its URL."""
    token_file = served["home"] / "token"
    token_file.write_text(TOKEN, encoding="utf-8")
    process = subprocess.Popen(
        [
            sys.executable, "-m", "runtime.cli.main", "mcp", "--http", "--port", "0", "--token-file", str(token_file),
            # The browser toolset, each session fenced to loopback's 127.0.0.1 (and so never localhost).
            "--allowed-domains", "127.0.0.1", *_server_flags(served, "http"),
        ],
        cwd=REPO, stdout=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        line = process.stdout.readline() if process.stdout else ""
        assert line.startswith("verity mcp: listening on http://127.0.0.1:"), f"verity mcp --http did not start: {line!r}"
        yield line.split(" on ", 1)[1].strip()
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
