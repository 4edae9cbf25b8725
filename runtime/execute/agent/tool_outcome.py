"""`ToolOutcome`: what one tool call of the model came to (agent/tool_calls.py, agent/tab_tool.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runtime.browser import ActionResult
from runtime.outcomes import BlockerKind

ERROR_MESSAGE_CHARS = 300


@dataclass
class ToolOutcome:
    """One tool call's result: `response` goes back to the model, `summary` into events."""

    ok: bool
    response: dict[str, Any]
    summary: str
    error_code: str = ""
    # The fence refused where the call would have taken the tab (an URL, a link, a form's action).
    refused: BlockerKind | None = None

    @classmethod
    def failed(cls, code: str, message: str, refused: BlockerKind | None = None) -> ToolOutcome:
        message = message[:ERROR_MESSAGE_CHARS]
        return cls(False, {"ok": False, "error": {"code": code, "message": message}}, f"{code}: {message}", code, refused)

    @classmethod
    def from_error(cls, result: ActionResult) -> ToolOutcome:
        assert result.error is not None
        kind = result.error.details.get("blocker_kind")
        return cls.failed(result.error.code.value, result.error.message, BlockerKind(kind) if kind else None)
