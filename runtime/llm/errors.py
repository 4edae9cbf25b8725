"""Typed LLM failures. Every message is built by us and redacted: the API key never leaves in one."""

from __future__ import annotations

from enum import Enum


class LlmErrorCode(str, Enum):
    MISSING_API_KEY = "missing_api_key"
    INVALID_SETTINGS = "invalid_settings"
    BAD_REQUEST = "bad_request"  # 400
    UNAUTHENTICATED = "unauthenticated"  # 401
    PERMISSION_DENIED = "permission_denied"  # 403
    NOT_FOUND = "not_found"  # 404, usually an unknown model name
    RATE_LIMITED = "rate_limited"  # 429
    SERVER_ERROR = "server_error"  # 5xx
    HTTP_ERROR = "http_error"  # any other non-2xx status
    TIMEOUT = "timeout"
    CONNECTION_FAILED = "connection_failed"
    MALFORMED_RESPONSE = "malformed_response"
    PROMPT_BLOCKED = "prompt_blocked"
    REFUSED = "refused"  # the model declined to answer (OpenAI's refusal, Anthropic's stop_reason refusal)
    TOOLS_UNSUPPORTED = "tools_unsupported"  # the server cannot call tools (a local server started without them)
    IMAGES_UNSUPPORTED = "images_unsupported"  # the model takes no image parts

    @property
    def retryable(self) -> bool:
        """Whether trying again later may help (the caller decides; the gateway never retries)."""
        return self in (LlmErrorCode.RATE_LIMITED, LlmErrorCode.SERVER_ERROR, LlmErrorCode.TIMEOUT, LlmErrorCode.CONNECTION_FAILED)


class LlmError(Exception):
    def __init__(self, code: LlmErrorCode, message: str, status: int | None = None) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.message = message
        self.status = status

    @property
    def retryable(self) -> bool:
        return self.code.retryable

    def to_dict(self) -> dict[str, object]:
        return {"code": self.code.value, "message": self.message, "status": self.status, "retryable": self.retryable}


def code_for_status(status: int) -> LlmErrorCode:
    if status == 400:
        return LlmErrorCode.BAD_REQUEST
    if status == 401:
        return LlmErrorCode.UNAUTHENTICATED
    if status == 403:
        return LlmErrorCode.PERMISSION_DENIED
    if status == 404:
        return LlmErrorCode.NOT_FOUND
    if status == 408:
        return LlmErrorCode.TIMEOUT
    if status == 429:
        return LlmErrorCode.RATE_LIMITED
    if 500 <= status <= 599:
        return LlmErrorCode.SERVER_ERROR
    return LlmErrorCode.HTTP_ERROR
