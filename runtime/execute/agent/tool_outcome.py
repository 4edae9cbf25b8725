"""`ToolOutcome`: what one tool call of the model came to (agent/tool_calls.py, agent/tab_tool.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runtime.browser import ActionResult

ERROR_MESSAGE_CHARS = 300


@dataclass
class ToolOutcome:
    """One tool call's result: `response` goes back to the model, `summary` into events."""

    ok: bool
    response: dict[str, Any]
    summary: str
    error_code: str = ""

    @classmethod
    def failed(cls, code: str, message: str) -> ToolOutcome:
        message = message[:ERROR_MESSAGE_CHARS]
        return cls(False, {"ok": False, "error": {"code": code, "message": message}}, f"{code}: {message}", code)

    @classmethod
    def from_error(cls, result: ActionResult) -> ToolOutcome:
        assert result.error is not None
        return cls.failed(result.error.code.value, result.error.message)
