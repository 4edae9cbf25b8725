"""The fixed part of every agent request: the tool declarations and the instructions that travel
with each turn whatever the page holds. Issue 32 measured it at 10.7 KB and asked for half;
tools/bench_fixed_part.py prints it and BENCHMARKS.md records it.

Declarations are counted as compact JSON of each tool's name, description and parameters, the
content every provider sends (Gemini, OpenAI and Anthropic only wrap it in their own key names).
Instructions are the system prompt built for an empty goal and no page: what remains is the same
in every request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from runtime.execute.agent.offered_tools import TARGET_HELP, offered_tools
from runtime.llm import ToolSpec, build_agent_prompt

# Half of the 10.7 KB (10,700 bytes) issue 32 measured before its vocabulary.
FIXED_PART_BUDGET = 5_350


@dataclass(frozen=True)
class FixedPart:
    tools: int
    declarations: int
    instructions: int

    @property
    def total(self) -> int:
        return self.declarations + self.instructions


def declaration_payload(specs: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """The declarations as the provider-neutral JSON the measure counts."""
    return [{"name": spec.name, "description": spec.description, "parameters": spec.schema} for spec in specs]


def compact_bytes(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def fixed_part(step_tools: list[str] | None, upload_files: list[str] | None = None) -> FixedPart:
    """The fixed part of a request for an agent step offering `step_tools` (all when None)."""
    specs = offered_tools(step_tools, upload_files)
    instructions = build_agent_prompt("", specs, tool_notes=TARGET_HELP)
    return FixedPart(len(specs), compact_bytes(declaration_payload(specs)), len(instructions.encode()))
