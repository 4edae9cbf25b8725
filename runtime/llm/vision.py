"""Whether an agent step's model is sent the page's screenshot (`agent.vision: auto | on | off`).

`auto` turns images on for models known to take them, by provider and model name: every Gemini
model; OpenAI's gpt-4o*, gpt-4.1*, gpt-5*, o3* and o4*; Anthropic's claude-3* and later (every
claude-* name but claude-2* and claude-instant*). Any other name (a local model behind an
OpenAI-compatible server) is unknown, and `auto` leaves images off. VERITY_MODEL_VISION=on|off
(ModelSettings.vision_override) forces what `auto` decides. `on` with a model known to take no
images (gpt-3.5*, gpt-4 without a vision suffix, o1-mini, o3-mini, claude-2*, claude-instant*) is
an error before the run starts.
"""

from __future__ import annotations

import re

from runtime.llm.errors import LlmError, LlmErrorCode
from runtime.llm.settings import ModelSettings

VISION_SETTINGS = ("auto", "on", "off")

_TAKES_IMAGES = {
    "gemini": re.compile(r"^(models/)?gemini"),
    "openai": re.compile(r"^(gpt-4o|gpt-4\.1|gpt-5|o3(?!-mini)|o4|gpt-4-turbo|gpt-4-vision)"),
    "anthropic": re.compile(r"^claude-(?!2|instant)"),
}
_NO_IMAGES = re.compile(r"^(gpt-3\.5|gpt-4(-0613|-32k)?$|o1-mini|o3-mini|claude-2|claude-instant)")


def takes_images(provider: str, model: str) -> bool | None:
    """True for a model known to take images, False for one known not to, None when unknown."""
    name = model.strip().lower()
    if _NO_IMAGES.match(name):
        return False
    pattern = _TAKES_IMAGES.get(provider)
    return True if pattern is not None and pattern.match(name) else None


def vision_on(setting: str, settings: ModelSettings) -> bool:
    """Whether images go to the model, for a step's `agent.vision` and its model's settings."""
    chosen = settings.vision_override or setting or "auto"
    known = takes_images(settings.provider, settings.model)
    if chosen == "on":
        if known is False:
            forced = " (VERITY_MODEL_VISION=on)" if settings.vision_override else ""
            raise LlmError(
                LlmErrorCode.INVALID_SETTINGS,
                f"vision is on{forced} but {settings.provider} model {settings.model} takes no images: "
                "set agent.vision: off (or auto), or name a model that takes images",
            )
        return True
    if chosen == "off":
        return False
    return known is True
