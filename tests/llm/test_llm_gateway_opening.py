"""Binds features/llm_gateway_opening.feature: where a provider's SDK is imported when an agent
step opens its gateway. A fresh process, because the test process may have imported every SDK
already; Python's audit hook for imports names the thread that did it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from pytest_bdd import given, scenarios, then, when

from tests.fixtures.gemini_fixtures import FIXTURE_API_KEY

scenarios("llm_gateway_opening.feature")

REPO = Path(__file__).resolve().parents[2]

AGENT_RECIPE = """\
name: gateway-opening
goal: 用浏览器 read the desk
target:
  start_url: "http://127.0.0.1:9/desk"
  allow_private_network: true
plan:
  - id: open
    navigate: "{start_url}"
  - id: read
    agent:
      task: "Read the desk"
      tools: [browser_click]
      max_steps: 2
      done_when:
        - text_includes: "read"
"""

# Records, for each provider SDK, whether its first import ran on the main thread: the thread
# whose asyncio.run drives the plan's event loop here, as in `verity run`.
PROBE = """\
import asyncio, json, sys, threading
SDKS = ("google.genai", "openai", "anthropic")
seen = {}
def record(event, args):
    if event == "import" and args[0] in SDKS and args[0] not in seen:
        seen[args[0]] = "event loop" if threading.current_thread() is threading.main_thread() else "worker"
sys.addaudithook(record)
from runtime.execute.context.model_access import ModelAccess
from runtime.plan.compiler import compile_recipe
from runtime.recipe.load import load_recipe_text
plan = compile_recipe(load_recipe_text(sys.stdin.read()))
access = ModelAccess(plan)
async def open_and_close():
    gateway = await access.open_gateway(access.agent_states[0])
    await gateway.aclose()
asyncio.run(open_and_close())
print(json.dumps(seen))
"""


@given("a fresh Python process that records the thread of every provider SDK import", target_fixture="probe")
def _probe() -> dict[str, Any]:
    # The default provider (Gemini) with a key; nothing is sent, so no server is needed.
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("VERITY_MODEL", "GEMINI_", "GOOGLE_", "OPENAI_", "ANTHROPIC_"))}
    environment["GEMINI_API_KEY"] = FIXTURE_API_KEY
    return {"environment": environment}


@when("it compiles an agent recipe and opens the agent step's gateway from the plan's event loop")
def _open(probe: dict[str, Any]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], input=AGENT_RECIPE, capture_output=True, text=True, cwd=REPO, env=probe["environment"], timeout=300,
    )
    assert done.returncode == 0, done.stderr
    probe["seen"] = json.loads(done.stdout.strip().splitlines()[-1])


@then("google.genai was imported, and not on the event loop's thread")
def _off_loop(probe: dict[str, Any]) -> None:
    assert probe["seen"] == {"google.genai": "worker"}, probe["seen"]
