"""Whether spans may carry content (prompts, model text, tool arguments, page-derived details).

The GenAI conventions' switch, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT, off unless it
says `true`. Keys are never content: nothing records them, whatever the switch says.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

CAPTURE_CONTENT_VARIABLE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


def capture_message_content(env: Mapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    return env.get(CAPTURE_CONTENT_VARIABLE, "").strip().lower() == "true"
