"""The servers the MCP tests share (session scope: one per pytest worker, started when first
needed): the loopback fixture site, a `verity mcp --snapshot-mode full` on stdio held by the SDK's client, and a
`verity mcp --http` with a token and the browser toolset, each with its own store and runs."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from tests.fixtures.site_server import FixtureSite
from tests.mcp.mcp_harness import ARRAY, ARTICLE, HANG, REPO, SECRET_VALUE, TOKEN, HeldClient, authorized

# --- the servers ------------------------------------------------------------------------

# A ceiling for ending a session's run as a test ends, on a loaded machine; not an expected duration.
CLOSE_CEILING_SECONDS = 30.0


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
        # The browser toolset without --allow-evaluate: browser_evaluate is neither listed nor run (MCP2-005);
        # every answer sends its whole page (MCP2-010), where the HTTP server's leave out a tree the client holds.
        args=["-m", "runtime.cli.main", "mcp", "--allowed-domains", "127.0.0.1", "--snapshot-mode", "full", *_server_flags(served, "stdio")],
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
            "--allowed-domains", "127.0.0.1", "--allow-evaluate", "--secret", "site_pass=@env:VERITY_SECRET_MCP_TEST", *_server_flags(served, "http"),
            # Ten sessions at once (MCP-014) beside the sessions of a scenario still closing.
            "--max-concurrent-runs", "32",
        ],
        cwd=REPO, stdout=subprocess.PIPE, text=True, start_new_session=True, env={**os.environ, "VERITY_SECRET_MCP_TEST": SECRET_VALUE},
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


@pytest.fixture
def sessions(url: str) -> Iterator[dict[str, HeldClient]]:
    """MCP sessions of the HTTP server at `url` (a module's Given gives it) by name, each opened on
    first use (legacy mode: the transport's session id) and left when the test ends."""
    opened: dict[str, HeldClient] = {}

    class Sessions(dict):
        def __missing__(self, name: str) -> HeldClient:
            opened[name] = self[name] = HeldClient(lambda: Client(authorized(url), mode="legacy"))
            return opened[name]

    yield Sessions()
    for held in opened.values():
        # End the session's run (a session without one has nothing to close), so the server's
        # run slots do not depend on which scenarios ran before on this worker.
        with contextlib.suppress(Exception):
            held.run(lambda client: client.call_tool("browser_close", {}), ceiling=CLOSE_CEILING_SECONDS)
        held.close()
