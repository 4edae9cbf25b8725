"""`verity bdd gate --live` (seed 004 §7): the release gate's smoke run with a real model.

The scenarios tagged `@live` run against the model the environment names, configured exactly as
a run's would be (runtime/llm/settings.py: VERITY_MODEL, and the provider's own key and base-URL
variables), so any provider the gateway speaks will do. The gate refuses before pytest starts when
no model is configured, naming what is missing. The pytest it runs gets VERITY_LIVE_GATE=1, which
tells a @live scenario's test to use that model instead of a scripted one on loopback; offline,
the same scenarios run against the scripted servers like every other test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from runtime.llm.errors import LlmError
from runtime.llm.settings import MODEL_CHOICE_VARIABLE, PROVIDERS, ModelSettings

LIVE_TAG = "live"
# Set in the environment of the pytest a live gate runs; read by the @live scenarios' tests.
LIVE_VARIABLE = "VERITY_LIVE_GATE"


class LiveGateRefused(Exception):
    """No model is configured for a live gate; the message says what to set."""


def live_model(env: Mapping[str, str]) -> ModelSettings:
    """The model the @live scenarios will meet, as the environment names it, or LiveGateRefused."""
    try:
        return ModelSettings.from_env(env)
    except LlmError as missing:
        raise LiveGateRefused(
            f"no model to run the @{LIVE_TAG} scenarios against: {missing.message}. "
            f"Name one with {MODEL_CHOICE_VARIABLE}=provider:model (provider: {', '.join(PROVIDERS)}) and set that "
            "provider's key (and its base URL for a server of your own) in the environment."
        ) from None


def live_pytest_args(pytest_args: Sequence[str]) -> list[str]:
    """The pytest arguments of a live gate: only @live scenarios, within any -m selection given."""
    args = list(pytest_args)
    for index, arg in enumerate(args):
        if arg == "-m" and index + 1 < len(args):
            args[index + 1] = f"{LIVE_TAG} and ({args[index + 1]})"
            return args
        if arg.startswith("-m") and len(arg) > 2:
            args[index] = f"-m{LIVE_TAG} and ({arg[2:]})"
            return args
    return ["-m", LIVE_TAG, *args]


def described(settings: ModelSettings) -> str:
    """The model a live gate runs against, as safe to print: never its key."""
    facts = settings.describe()
    return f"{facts['provider']}:{facts['model']} at {facts['base_url']}"
