"""The intent guard's model detector on the configured model: ask for seed 000's JSON label, return the raw answer.

`runtime.guard.parse_intent_answer` reads the answer tolerantly; anything unusable (or an
LlmError) makes the guard fall back to its heuristic.
"""

from __future__ import annotations

from runtime.llm.gateway import LlmGateway
from runtime.llm.messages import ChatMessage

INTENT_INSTRUCTION = (
    "You classify a user's task for a browser agent. Decide whether the task needs a real web browser "
    "(opening pages, clicking, reading what a website shows) or not.\n"
    'Answer with one JSON object and nothing else: {"label": "browser_access" | "general", '
    '"confidence": a number from 0 to 1, "reason": "a short reason"}.'
)


class GatewayIntentModel:
    """Implements runtime.guard.IntentModel."""

    def __init__(self, gateway: LlmGateway) -> None:
        self.gateway = gateway

    async def classify_intent(self, goal: str) -> str:
        reply = await self.gateway.complete(
            [ChatMessage.system(INTENT_INSTRUCTION), ChatMessage.user(f"<goal>\n{goal}\n</goal>")],
            temperature=0.0,
            json_output=True,
        )
        return reply.text
