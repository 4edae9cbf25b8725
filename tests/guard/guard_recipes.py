"""Guards built the way the executor builds them: recipe text -> loaded recipe -> compiled plan -> guard."""

from __future__ import annotations

import json
from typing import Any

from runtime.guard import IntentGuard
from runtime.plan.compiler import compile_recipe
from runtime.recipe import load_recipe_with_registry


def compiled_guard(goal: str, *, patterns: list[str] | None = None, guard_settings: dict[str, Any] | None = None) -> IntentGuard:
    lines = [
        "name: guard-test",
        f"goal: {json.dumps(goal, ensure_ascii=False)}",
        f"intent: {json.dumps({'patterns': patterns or []})}",
        "target: {start_url: 'http://127.0.0.1:9/'}",
        "plan:",
        "  - navigate: 'http://127.0.0.1:9/'",
    ]
    if guard_settings:
        lines.insert(3, f"guards: {json.dumps({'intentGuard': guard_settings})}")
    recipe, registry = load_recipe_with_registry("\n".join(lines) + "\n", "guard-test.yaml")
    return IntentGuard.from_plan(compile_recipe(recipe, registry))
