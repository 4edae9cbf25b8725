"""What one tool call comes to: `response` goes back to the model, `summary` into events."""

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
    # What the call did, as a deterministic step can do it again (plan/learned_steps.py): the
    # params of the act or wait it ran, with how each locator resolved; None for a read.
    performed: dict[str, Any] | None = None

    @classmethod
    def failed(cls, code: str, message: str, refused: BlockerKind | None = None) -> ToolOutcome:
        message = message[:ERROR_MESSAGE_CHARS]
        return cls(False, {"ok": False, "error": {"code": code, "message": message}}, f"{code}: {message}", code, refused)

    @classmethod
    def from_error(cls, result: ActionResult) -> ToolOutcome:
        assert result.error is not None
        kind = result.error.details.get("blocker_kind")
        return cls.failed(result.error.code.value, result.error.message, BlockerKind(kind) if kind else None)

    @classmethod
    def invalid(cls, message: str) -> ToolOutcome:
        """The model's arguments cannot be used: what is wrong, so it can call again."""
        return cls.failed("invalid_params", message)
