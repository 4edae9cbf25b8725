"""What an agent's model put into the page itself is not a value the page shows.

A model that types "612.35" into a field (whole, or key by key with browser_press_key; or into a
contenteditable box, or picks it in a select) and then extracts that field reads back its own
words: the document holds them, but nothing on the page said them. So a field is not kept when it
was read from an element the model could have typed into (a form control that is not read-only,
or contenteditable content) and holds text the model typed or chose in this execution of the step;
the model is told why, and the step can complete only with a value read where the page states it.
A page that echoes the typed text elsewhere ("Results for 612.35"), or shows a result in a
read-only field, is read as the page says it. A typed text shorter than SHORT_TEXT_CHARS ("1" in a
quantity box) counts only as a field's whole value: as a part of one it says nothing.
"""

from __future__ import annotations

from typing import Any

from runtime.execute.context.run_context import RunContext
from runtime.execute.judges.sent_data import SHORT_TEXT_CHARS, normal

# The acts that put the model's own text into an element, and the argument that carries it.
TYPING_TOOLS = {"browser_type": "text", "browser_select_option": "values"}


class TypedValues:
    """The text one agent step's model typed or chose, and the check of its extracts against it."""

    def __init__(self, ctx: RunContext, timeout_ms: int) -> None:
        self.ctx = ctx
        self.timeout_ms = timeout_ms
        self.texts: set[str] = set()
        # Characters pressed one key at a time since the last key that is not one (Enter, Tab ...).
        self.pressed = ""

    def note(self, tool: str, arguments: dict[str, Any]) -> None:
        """After a typing act ran: remember what it put in (a secret as the value it typed)."""
        if tool == "browser_press_key":
            pressed = str(arguments.get("key") or "")
            self.pressed = self.pressed + pressed if len(pressed) == 1 else ""
            if self.pressed.strip():
                self.texts.add(normal(self.pressed))
                self.ctx.browser.sent_data.put(self.pressed)  # what key by key typed, for EXEC-101
            return
        key = TYPING_TOOLS.get(tool)
        if key is None:
            return
        given = arguments.get(key)
        for text in given if isinstance(given, list) else [given]:
            typed = normal(self.ctx.secrets.reveal(str(text or "")))
            if typed:
                self.texts.add(typed)

    async def own(self, requested: dict[str, dict[str, Any]], fields: dict[str, Any]) -> list[str]:
        """The fields that hold typed text and were read from an editable element."""
        holding = [name for name, value in fields.items() if isinstance(value, str) and self._holds_typed(normal(value))]
        if not holding:
            return []
        # Asked of the same targets: a control's current value (None for any other element), its
        # readonly attribute and the contenteditable attribute.
        parts = (("control", {"value": True}), ("readonly", {"attr": "readonly"}), ("editable", {"attr": "contenteditable"}))
        asked = {f"{name}.{part}": {"target": requested[name]["target"], **how} for name in holding for part, how in parts}
        verbs = await self.ctx.browser.verbs()
        found = await verbs.extract(fields=asked, action_id=self.ctx.browser.new_action_id("typed_value"), timeout_ms=self.timeout_ms)
        if not found.ok:
            return holding  # cannot tell where it was read: not kept
        seen = found.data.get("fields") or {}
        return [name for name in holding if _typed_into(seen, name)]

    def _holds_typed(self, value: str) -> bool:
        return any(value == text or (len(text) >= SHORT_TEXT_CHARS and text in value) for text in self.texts)


def _typed_into(seen: dict[str, Any], name: str) -> bool:
    """Whether the field `name` was read from an element the model can type into: a control that
    is not read-only, or contenteditable content."""
    control = seen.get(f"{name}.control") is not None and seen.get(f"{name}.readonly") is None
    return control or seen.get(f"{name}.editable") not in (None, "false")
