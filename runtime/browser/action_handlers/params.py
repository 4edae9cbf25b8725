"""Reading an action's params: each reader names the field it rejects and says what it wants."""

from __future__ import annotations

from enum import Enum
from typing import Any, TypeVar

from runtime.browser.vocabulary.actions import Target
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError

Choice = TypeVar("Choice", bound=Enum)


def invalid(message: str) -> BrowserActionError:
    return BrowserActionError(ActionErrorCode.INVALID_PARAMS, message)


def str_param(params: dict[str, Any], key: str, *, required: bool = True) -> str | None:
    value = params.get(key)
    if value is None:
        if required:
            raise invalid(f"params.{key} is required (a string)")
        return None
    if not isinstance(value, str):
        raise invalid(f"params.{key} must be a string, got {type(value).__name__}")
    return value


def required_str(params: dict[str, Any], key: str) -> str:
    value = str_param(params, key)
    assert value is not None
    return value


def int_param(params: dict[str, Any], key: str, default: int, *, minimum: int = 0) -> int:
    value = params.get(key, default)
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise invalid(f"params.{key} must be an integer >= {minimum}, got {value!r}")
    return value


def target_param(params: dict[str, Any], key: str = "target") -> Target:
    if params.get(key) is None:
        raise invalid(f"params.{key} is required: {{'ref': 's1:e2'}}, {{'role': 'button', 'name': 'Save'}}, "
                      "{'text': ...}, {'css': ...} or {'xpath': ...}")
    return Target.from_params(params[key], field_path=f"params.{key}")


def enum_param(params: dict[str, Any], key: str, choices: type[Choice]) -> Choice:
    try:
        return choices(params.get(key))
    except ValueError:
        listed = [choice.value for choice in choices]
        raise invalid(f"params.{key} must be one of {listed}, got {params.get(key)!r}") from None
