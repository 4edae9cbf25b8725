"""Where the gateway talks to and with which key, read from the environment only.

The key lives in an `ApiKey` whose str/repr are masked, so printing settings, a gateway or an
error never shows it; `GeminiSettings.redact` scrubs it from any text we did not write.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from runtime.llm.errors import LlmError, LlmErrorCode

# Checked in this order; google-genai itself prefers GOOGLE_API_KEY when both are set, and so do we.
API_KEY_VARIABLES = ("GOOGLE_API_KEY", "GEMINI_API_KEY")
BASE_URL_VARIABLE = "VERITY_GEMINI_BASE_URL"
# google-genai's own variable, honoured when ours is unset. We resolve it as the SDK would and pass
# the result, so the client, our error messages and the chat spans all name the same server.
SDK_BASE_URL_VARIABLE = "GOOGLE_GEMINI_BASE_URL"
MODEL_VARIABLE = "VERITY_GEMINI_MODEL"
API_VERSION_VARIABLE = "VERITY_GEMINI_API_VERSION"
TIMEOUT_VARIABLE = "VERITY_GEMINI_TIMEOUT_MS"
MAX_ATTEMPTS_VARIABLE = "VERITY_GEMINI_MAX_ATTEMPTS"
RETRY_DELAY_VARIABLE = "VERITY_GEMINI_RETRY_DELAY_MS"

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/"
DEFAULT_API_VERSION = "v1beta"
DEFAULT_MODEL = "gemini-2.5-flash"
DEFAULT_TIMEOUT_MS = 60_000
# HTTP 408, 429 and 5xx (and connection failures and timeouts) are retried with exponential
# backoff and jitter (google-genai's HttpRetryOptions): 4 attempts wait about 1, 2 and 4 s between.
DEFAULT_MAX_ATTEMPTS = 4
DEFAULT_RETRY_DELAY_MS = 1_000
MAX_RETRY_DELAY_MS = 30_000


class ApiKey:
    """A secret string that does not print itself."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "ApiKey('***')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ApiKey) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


@dataclass(frozen=True)
class GeminiSettings:
    api_key: ApiKey
    model: str = DEFAULT_MODEL
    base_url: str = DEFAULT_BASE_URL
    api_version: str = DEFAULT_API_VERSION
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    retry_delay_ms: int = DEFAULT_RETRY_DELAY_MS
    # Where the base URL came from: ours, the SDK's GOOGLE_GEMINI_BASE_URL, or the default.
    base_url_source: str = "default"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> GeminiSettings:
        env = os.environ if env is None else env
        key = next((env[name].strip() for name in API_KEY_VARIABLES if env.get(name, "").strip()), "")
        if not key:
            raise LlmError(
                LlmErrorCode.MISSING_API_KEY,
                f"no Gemini API key: set {' or '.join(reversed(API_KEY_VARIABLES))} in the environment "
                "(keys are never read from recipes or files)",
            )
        timeout_ms = _positive_int(env, TIMEOUT_VARIABLE, DEFAULT_TIMEOUT_MS, "milliseconds")
        max_attempts = _positive_int(env, MAX_ATTEMPTS_VARIABLE, DEFAULT_MAX_ATTEMPTS, "attempts (1 turns retries off)")
        retry_delay_ms = _positive_int(env, RETRY_DELAY_VARIABLE, DEFAULT_RETRY_DELAY_MS, "milliseconds")
        base_url, source = DEFAULT_BASE_URL, "default"
        for variable in (BASE_URL_VARIABLE, SDK_BASE_URL_VARIABLE):
            if env.get(variable, "").strip():
                base_url, source = env[variable].strip(), variable
                break
        return cls(
            api_key=ApiKey(key),
            model=env.get(MODEL_VARIABLE, "").strip() or DEFAULT_MODEL,
            base_url=base_url,
            api_version=env.get(API_VERSION_VARIABLE, "").strip() or DEFAULT_API_VERSION,
            timeout_ms=timeout_ms,
            max_attempts=max_attempts,
            retry_delay_ms=retry_delay_ms,
            base_url_source=source,
        )

    def redact(self, text: str) -> str:
        secret = self.api_key.reveal()
        return text.replace(secret, "***") if secret else text

    def describe(self) -> dict[str, str]:
        """What is safe to record in events and spans."""
        return {"provider": "gemini", "model": self.model, "base_url": self.base_url, "api_version": self.api_version}


def _positive_int(env: Mapping[str, str], variable: str, default: int, unit: str) -> int:
    text = env.get(variable, "").strip()
    try:
        value = int(text) if text else default
    except ValueError:
        value = -1
    if value <= 0:
        raise LlmError(LlmErrorCode.INVALID_SETTINGS, f"{variable} must be a positive integer of {unit}, got {text!r}")
    return value
