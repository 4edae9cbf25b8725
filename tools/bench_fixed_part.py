"""The fixed part of every agent request (tool declarations plus instructions), in bytes, for the
tool set an agent step offers by default and for every tool the executor can declare.

    uv run python tools/bench_fixed_part.py

No browser and no model: the figures are those of runtime/execute/agent/fixed_part.py, which
tests/execute/test_execute_agent_vocabulary.py compares with the request a Gemini server receives.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from runtime.execute.agent.fixed_part import FIXED_PART_BUDGET, fixed_part  # noqa: E402
from runtime.execute.agent.offered_tools import AGENT_TOOL_NAMES  # noqa: E402
from runtime.recipe.tool_registry import AGENT_DEFAULT_TOOLS, UPLOAD_TOOL  # noqa: E402


def main() -> int:
    sets = {
        "default (no files declared)": ([name for name in AGENT_DEFAULT_TOOLS if name != UPLOAD_TOOL], None),
        "full (two files declared)": (list(AGENT_TOOL_NAMES), ["resume", "photo"]),
    }
    print(f"{'tool set':<30}{'tools':>6}{'declarations':>14}{'instructions':>14}{'total':>8}  budget {FIXED_PART_BUDGET}")
    over = False
    for label, (names, files) in sets.items():
        part = fixed_part(names, files)
        over |= part.total > FIXED_PART_BUDGET
        print(f"{label:<30}{part.tools:>6}{part.declarations:>14}{part.instructions:>14}{part.total:>8}")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
