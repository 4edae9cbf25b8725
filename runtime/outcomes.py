"""The user-visible vocabulary of a run: task states, stop reasons and blocker kinds.

These names are a public contract (events, gRPC, exit codes, reports). They carry over unchanged
from the design notes in shared/seeds; add new members, never rename existing ones.
"""

from __future__ import annotations

from enum import Enum


class TaskState(str, Enum):
    """Seed 003's task state machine, plus `stopped` for a manual or server stop."""

    CREATED = "created"
    RUNNING = "running"
    WAITING_FOR_USER_CONFIRMATION = "waiting_for_user_confirmation"
    # Queued for a browser (none suitable is free) or for a run slot (--max-concurrent-runs).
    WAITING_FOR_BROWSER_SELECTION = "waiting_for_browser_selection"
    ONGOING = "ongoing"
    COMPLETED = "completed"
    ERROR = "error"
    STOPPED = "stopped"

    @property
    def is_final(self) -> bool:
        return self in (TaskState.COMPLETED, TaskState.ERROR, TaskState.STOPPED)


class StopReason(str, Enum):
    """Why a run ended. Only `completed` is a success; every other reason is a controlled failure."""

    COMPLETED = "completed"
    VERIFICATION_FAILED = "verification_failed"
    TOOL_POLICY_BLOCKED = "tool_policy_blocked"
    INTENT_EXECUTION_FAILED = "intent_execution_failed"
    NO_PROGRESS = "no_progress"
    REPLANS_EXHAUSTED = "replans_exhausted"
    MAX_STEPS_EXCEEDED = "max_steps_exceeded"
    TIMEOUT = "timeout"
    OUTPUT_INVALID = "output_invalid"
    APPROVAL_DENIED = "approval_denied"
    MANUAL_STOP = "manual_stop"
    BROWSER_CRASHED = "browser_crashed"
    EXECUTE_ERROR = "execute_error"
    INTERRUPTED = "interrupted"
    INVALID_INPUT = "invalid_input"
    # No browser the run may use could be had: none matches its pin, the queue was full, or the
    # wait for one outlasted the operator's bound.
    BROWSER_UNAVAILABLE = "browser_unavailable"
    # A conversation (RunOptions.conversation) waited in `ongoing` for its next message longer
    # than the server's conversation idle timeout.
    CONVERSATION_IDLE = "conversation_idle"

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self]

    @property
    def final_state(self) -> TaskState:
        if self is StopReason.COMPLETED:
            return TaskState.COMPLETED
        if self in (StopReason.MANUAL_STOP, StopReason.INTERRUPTED, StopReason.CONVERSATION_IDLE):
            return TaskState.STOPPED
        return TaskState.ERROR


# `verity run` exit codes, documented in the README. 1 and 2 stay free for Python/argparse errors.
EXIT_CODES: dict[StopReason, int] = {
    StopReason.COMPLETED: 0,
    StopReason.INVALID_INPUT: 3,
    StopReason.VERIFICATION_FAILED: 10,
    StopReason.TOOL_POLICY_BLOCKED: 11,
    StopReason.INTENT_EXECUTION_FAILED: 12,
    StopReason.NO_PROGRESS: 13,
    StopReason.REPLANS_EXHAUSTED: 14,
    StopReason.MAX_STEPS_EXCEEDED: 15,
    StopReason.TIMEOUT: 16,
    StopReason.OUTPUT_INVALID: 17,
    StopReason.APPROVAL_DENIED: 18,
    StopReason.BROWSER_CRASHED: 19,
    StopReason.EXECUTE_ERROR: 20,
    StopReason.INTERRUPTED: 21,
    StopReason.BROWSER_UNAVAILABLE: 22,
    StopReason.CONVERSATION_IDLE: 23,
    StopReason.MANUAL_STOP: 130,
}


class BlockerKind(str, Enum):
    """What stood between an observation and the target (seed 001's machine-readable blocker_kind)."""

    PAGE_NOT_FOUND = "page_not_found"
    ACCESS_DENIED = "access_denied"
    ACCESS_BLOCKED = "access_blocked"
    SERVER_ERROR = "server_error"
    STATUS_MISMATCH = "status_mismatch"
    DOMAIN_NOT_ALLOWED = "domain_not_allowed"
    KEYWORDS_MISSING = "keywords_missing"
    NAVIGATION_FAILED = "navigation_failed"
    NO_SEARCH_RESULTS = "no_search_results"
    EXTRACTION_FAILED = "extraction_failed"
    QUOTE_FETCH_FAILED = "quote_fetch_failed"
    SCHEME_NOT_ALLOWED = "scheme_not_allowed"
    LOGIN_REQUIRED = "login_required"
    CAPTCHA = "captcha"
    RATE_LIMITED = "rate_limited"
