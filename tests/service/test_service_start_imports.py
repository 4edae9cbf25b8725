"""Binds features/service_start_imports.feature: the modules imported inside functions of the
rooms a hosted run executes, found in the source, against what a fresh process holds after the
server's start imports. A fresh process, because the test process has imported most of them
already."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from pytest_bdd import given, scenarios, then, when

scenarios("service_start_imports.feature")

REPO = Path(__file__).resolve().parents[2]
# The rooms whose code a run executes on the server's event loop.
RUN_ROOMS = ("execute", "browser", "recipe", "llm", "guard", "policy", "template", "events")
# Imported inside a function, but always on a worker thread, never on the loop.
ON_A_WORKER_THREAD = {
    "runtime.llm.providers.gemini": "the gateway is opened with asyncio.to_thread (LLM-033)",
    "runtime.llm.providers.openai_chat": "the gateway is opened with asyncio.to_thread (LLM-033)",
    "runtime.llm.providers.anthropic_messages": "the gateway is opened with asyncio.to_thread (LLM-033)",
    "trafilatura": "the in-process fallback of a reading, called with asyncio.to_thread",
    "trafilatura.external": "the in-process fallback of a reading, called with asyncio.to_thread",
}

PROBE = """\
import json, sys
from runtime.service.api.server import _import_every_handler
_import_every_handler()
print(json.dumps(sorted(name for name in json.loads(sys.argv[1]) if name not in sys.modules)))
"""


def _imported_in_functions(source: str) -> set[str]:
    names: set[str] = set()
    for function in ast.walk(ast.parse(source)):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, ast.Import):
                    names.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names.add(node.module)
    return names


@given("every module imported inside a function of the rooms a hosted run executes", target_fixture="probe")
def _modules() -> dict[str, Any]:
    names: set[str] = set()
    for room in RUN_ROOMS:
        for path in sorted((REPO / "runtime" / room).rglob("*.py")):
            names |= _imported_in_functions(path.read_text(encoding="utf-8"))
    # The source has such imports, of our modules and of libraries, or the check below checks nothing.
    assert {"jsonschema", "yaml"} <= names, sorted(names)
    return {"names": names}


@when("a fresh Python process does the server's start imports")
def _start_imports(probe: dict[str, Any]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(sorted(probe["names"]))], capture_output=True, text=True, cwd=REPO, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    probe["left"] = set(json.loads(done.stdout.strip().splitlines()[-1]))


@then("every one of them is imported, except those whose import runs on a worker thread")
def _all_imported(probe: dict[str, Any]) -> None:
    assert probe["left"] - set(ON_A_WORKER_THREAD) == set(), "left for a run to import on the server's loop"
    # Each exception is still imported inside a function of those rooms: a stale one would hide nothing.
    assert set(ON_A_WORKER_THREAD) <= probe["names"]
