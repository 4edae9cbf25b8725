"""A recipe as an MCP tool declaration, and a run's verdict as the tool's result.

The declaration says what a caller must know to call it and nothing it must not: the recipe's
name, its goal as the description, its inputs as a JSON Schema (a secret input is `writeOnly`,
and every input may be `@env:VERITY_SECRET_NAME`, read from the server's environment as over
gRPC), and its output schema as the tool's output schema. A run's output is always an object (its
fields), and MCP wants an object schema: a schema naming no type is given `type: object`, and one
naming another type (which no run's output can satisfy) is left out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import mcp_types as types

from runtime.recipe import Recipe
from runtime.service.runs.sent_recipes import SERVER_ENV_PREFIX

ENV_REFERENCE_PATTERN = f"^@env:{SERVER_ENV_PREFIX}[A-Za-z0-9_]+$"


def input_schema(recipe: Recipe) -> dict[str, Any]:
    """The recipe's declared inputs as the JSON Schema of the tool's arguments."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    env_reference = {"type": "string", "pattern": ENV_REFERENCE_PATTERN}
    for name, spec in recipe.inputs.items():
        described = spec.description or name
        hint = f" (or @env:{SERVER_ENV_PREFIX}NAME, read from the server's environment)"
        value: dict[str, Any] = {"type": spec.type} if spec.type == "string" else {"anyOf": [{"type": spec.type}, env_reference]}
        value["description"] = described + hint
        if spec.default is not None:
            value["default"] = spec.default
        if spec.secret:
            # A secret is written by the caller and never read back: every result shows its marker.
            value["writeOnly"] = True
            value["description"] = f"secret: {value['description']}; never shown back"
        properties[name] = value
        if spec.required and spec.default is None:
            required.append(name)
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def output_schema(recipe: Recipe) -> dict[str, Any] | None:
    schema = recipe.output.schema_
    if "type" not in schema:
        return {"type": "object", **schema}
    return schema if schema["type"] == "object" else None


def recipe_tool(recipe: Recipe) -> types.Tool:
    return types.Tool(
        name=recipe.name,
        title=recipe.description or None,
        description=recipe.goal,
        input_schema=input_schema(recipe),
        output_schema=output_schema(recipe),
        # A run drives a browser on the open web; it is never a pure read of the caller's world.
        annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True),
    )


@dataclass(frozen=True)
class RunResult:
    """What a tool call hands back: the run's verdict (as FinalVerdict reports it), its output
    file, and the run's files as resources."""

    run_id: str
    verdict: dict[str, Any]
    output: dict[str, Any] | None
    files: list[types.ResourceLink]

    def tool_result(self, recipe: Recipe) -> types.CallToolResult:
        verdict = {
            "run_id": self.run_id,
            "status": self.verdict.get("status"),
            "stop_reason": self.verdict.get("stop_reason"),
            "verified": bool(self.verdict.get("verified")),
            "blocker_kind": self.verdict.get("blocker_kind"),
            "summary": self.verdict.get("summary", ""),
        }
        content: list[types.ContentBlock] = [types.TextContent(text=json.dumps(verdict, ensure_ascii=False))]
        content.extend(self.files)
        completed = verdict["stop_reason"] == "completed"
        valid = bool(self.output and self.output.get("valid"))
        # Structured content only when it is what the output schema promises: a run that ended
        # otherwise is an error result, whose content the caller reads instead.
        structured = self.output.get("data") if completed and valid and self.output else None
        return types.CallToolResult(content=content, structured_content=structured, is_error=not completed)
