"""Which model the gateway talks to, where, and with which key: read from the environment only.

Three providers, each configured by its own SDK's conventions so a team's existing setup works:

| provider | key | server |
| --- | --- | --- |
| `gemini` (the default) | `GOOGLE_API_KEY` or `GEMINI_API_KEY` | `VERITY_GEMINI_BASE_URL`, else `GOOGLE_GEMINI_BASE_URL` |
| `openai` (OpenAI and any server speaking its Chat Completions API) | `OPENAI_API_KEY` | `OPENAI_BASE_URL` |
| `anthropic` | `ANTHROPIC_API_KEY` | `ANTHROPIC_BASE_URL` |

`VERITY_MODEL=provider:name` names the default model of every agent step; a step's own
`agent.model` wins over it. `VERITY_GEMINI_MODEL` still names the default Gemini model.
The key lives in an `ApiKey` whose str/repr are masked, so printing settings, a gateway or an
error never shows it; `ModelSettings.redact` scrubs it from any text we did not write.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, get_args

from runtime.llm.errors import LlmError, LlmErrorCode

Provider = Literal["gemini", "openai", "anthropic"]
PROVIDERS: tuple[str, ...] = get_args(Provider)

MODEL_CHOICE_VARIABLE = "VERITY_MODEL"

# Checked in this order; google-genai itself prefers GOOGLE_API_KEY when both are set, and so do we.
API_KEY_VARIABLES = ("GOOGLE_API_KEY", "GEMINI_API_KEY")
BASE_URL_VARIABLE = "VERITY_GEMINI_BASE_URL"
# google-genai's own variable, honoured when ours is unset. We resolve it as the SDK would and pass
# the result, so the client, our error messages and the chat spans all name the same server.
SDK_BASE_URL_VARIABLE = "GOOGLE_GEMINI_BASE_URL"
MODEL_VARIABLE = "VERITY_GEMINI_MODEL"
API_VERSION_VARIABLE = "VERITY_GEMINI_API_VERSION"

# How long to wait and how often to try, for every provider. The VERITY_GEMINI_* names are older
# and still honoured (for every provider) when the VERITY_MODEL_* one is unset.
TIMEOUT_VARIABLES = ("VERITY_MODEL_TIMEOUT_MS", "VERITY_GEMINI_TIMEOUT_MS")
MAX_ATTEMPTS_VARIABLES = ("VERITY_MODEL_MAX_ATTEMPTS", "VERITY_GEMINI_MAX_ATTEMPTS")
RETRY_DELAY_VARIABLES = ("VERITY_MODEL_RETRY_DELAY_MS", "VERITY_GEMINI_RETRY_DELAY_MS")
MAX_TOKENS_VARIABLE = "VERITY_MODEL_MAX_TOKENS"
VISION_VARIABLE = "VERITY_MODEL_VISION"

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/"
DEFAULT_API_VERSION = "v1beta"
DEFAULT_MODEL = "gemini-2.5-flash"
DEFAULT_TIMEOUT_MS = 60_000
# HTTP 408, 429 and 5xx (and connection failures and timeouts) are retried with exponential
# backoff by each SDK (a Retry-After header is honoured): 4 attempts wait about 1, 2 and 4 s between.
DEFAULT_MAX_ATTEMPTS = 4
DEFAULT_RETRY_DELAY_MS = 1_000
MAX_RETRY_DELAY_MS = 30_000
# Anthropic's Messages API needs an upper bound on the answer; an agent's turn is one tool call.
DEFAULT_MAX_TOKENS = 4_096


@dataclass(frozen=True)
class ProviderConvention:
    """Where one provider's SDK reads its key and server from, and what it calls itself in spans."""

    key_variables: tuple[str, ...]
    base_url_variables: tuple[str, ...]
    default_base_url: str
    default_model: str | None
    span_name: str  # gen_ai.provider.name in the GenAI conventions


CONVENTIONS: dict[str, ProviderConvention] = {
    "gemini": ProviderConvention(API_KEY_VARIABLES, (BASE_URL_VARIABLE, SDK_BASE_URL_VARIABLE), DEFAULT_BASE_URL, DEFAULT_MODEL, "gcp.gemini"),
    "openai": ProviderConvention(("OPENAI_API_KEY",), ("OPENAI_BASE_URL",), "https://api.openai.com/v1", None, "openai"),
    "anthropic": ProviderConvention(("ANTHROPIC_API_KEY",), ("ANTHROPIC_BASE_URL",), "https://api.anthropic.com", None, "anthropic"),
}


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
class ModelChoice:
    """A model named by a recipe or by VERITY_MODEL: `provider` None means the default provider."""

    provider: str | None = None
    name: str | None = None

    @classmethod
    def parse(cls, text: str) -> ModelChoice:
        """`openai:gpt-4.1-mini`, `anthropic:claude-sonnet-4-5`, `gemini`, or a bare model name."""
        text = text.strip()
        head, colon, tail = text.partition(":")
        if colon and head in PROVIDERS:
            return cls(head, tail.strip() or None)
        if text in PROVIDERS:
            return cls(text, None)
        return cls(None, text or None)

    def over(self, fallback: ModelChoice) -> ModelChoice:
        """This choice, its gaps filled from `fallback` (a model name only carries over within one provider)."""
        provider = self.provider or fallback.provider
        if self.name:
            return ModelChoice(provider, self.name)
        same_provider = (fallback.provider or "gemini") == (provider or "gemini")
        return ModelChoice(provider, fallback.name if same_provider else None)

    def describe(self) -> str:
        return f"{self.provider or 'gemini'}:{self.name or '(default)'}"


@dataclass(frozen=True)
class ModelSettings:
    api_key: ApiKey
    provider: str = "gemini"
    model: str = DEFAULT_MODEL
    base_url: str = DEFAULT_BASE_URL
    api_version: str = DEFAULT_API_VERSION  # Gemini only
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    retry_delay_ms: int = DEFAULT_RETRY_DELAY_MS
    max_tokens: int = DEFAULT_MAX_TOKENS
    # Where the base URL came from: the variable that set it, or "default".
    base_url_source: str = "default"
    # VERITY_MODEL_VISION: "on"/"off" forces what `agent.vision: auto` decides; "" leaves it to the model's name.
    vision_override: str = ""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, choice: ModelChoice | None = None) -> ModelSettings:
        """The settings for `choice` (a step's model) over VERITY_MODEL over the Gemini default."""
        env = os.environ if env is None else env
        configured = ModelChoice.parse(env.get(MODEL_CHOICE_VARIABLE, ""))
        if configured.provider is None and configured.name is None and env.get(MODEL_VARIABLE, "").strip():
            configured = ModelChoice("gemini", env[MODEL_VARIABLE].strip())
        chosen = (choice or ModelChoice()).over(configured)
        provider = chosen.provider or "gemini"
        convention = CONVENTIONS[provider]
        name = chosen.name or (env.get(MODEL_VARIABLE, "").strip() if provider == "gemini" else "") or convention.default_model
        if not name:
            raise LlmError(
                LlmErrorCode.INVALID_SETTINGS,
                f"no {provider} model named: write agent.model: {{provider: {provider}, name: ...}} in the recipe "
                f"or set {MODEL_CHOICE_VARIABLE}={provider}:<model name>",
            )
        key = next((env[variable].strip() for variable in convention.key_variables if env.get(variable, "").strip()), "")
        if not key:
            raise LlmError(
                LlmErrorCode.MISSING_API_KEY,
                f"no {provider} API key: set {' or '.join(reversed(convention.key_variables))} in the environment "
                "(keys are never read from recipes or files; a local server that checks none takes any value)",
            )
        base_url, source = convention.default_base_url, "default"
        for variable in convention.base_url_variables:
            if env.get(variable, "").strip():
                base_url, source = env[variable].strip(), variable
                break
        vision = env.get(VISION_VARIABLE, "").strip().lower()
        if vision not in ("", "on", "off"):
            raise LlmError(LlmErrorCode.INVALID_SETTINGS, f"{VISION_VARIABLE} must be on or off, got {vision!r}")
        return cls(
            api_key=ApiKey(key),
            provider=provider,
            model=name,
            base_url=base_url,
            api_version=env.get(API_VERSION_VARIABLE, "").strip() or DEFAULT_API_VERSION,
            timeout_ms=_positive_int(env, TIMEOUT_VARIABLES, DEFAULT_TIMEOUT_MS, "milliseconds"),
            max_attempts=_positive_int(env, MAX_ATTEMPTS_VARIABLES, DEFAULT_MAX_ATTEMPTS, "attempts (1 turns retries off)"),
            retry_delay_ms=_positive_int(env, RETRY_DELAY_VARIABLES, DEFAULT_RETRY_DELAY_MS, "milliseconds"),
            max_tokens=_positive_int(env, (MAX_TOKENS_VARIABLE,), DEFAULT_MAX_TOKENS, "tokens"),
            base_url_source=source,
            vision_override=vision,
        )

    @property
    def span_provider(self) -> str:
        # A driven model (DrivenModel) is no provider of ours: its spans carry its own name.
        return CONVENTIONS[self.provider].span_name if self.provider in CONVENTIONS else self.provider

    def redact(self, text: str) -> str:
        secret = self.api_key.reveal()
        return text.replace(secret, "***") if secret else text

    def describe(self) -> dict[str, str]:
        """What is safe to record in events and spans."""
        described = {"provider": self.provider, "model": self.model, "base_url": self.base_url}
        if self.provider == "gemini":
            described["api_version"] = self.api_version
        return described


def _positive_int(env: Mapping[str, str], variables: tuple[str, ...], default: int, unit: str) -> int:
    variable = next((name for name in variables if env.get(name, "").strip()), variables[0])
    text = env.get(variable, "").strip()
    try:
        value = int(text) if text else default
    except ValueError:
        value = -1
    if value <= 0:
        raise LlmError(LlmErrorCode.INVALID_SETTINGS, f"{variable} must be a positive integer of {unit}, got {text!r}")
    return value
