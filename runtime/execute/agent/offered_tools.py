"""The tools an agent step offers the model, as Gemini function declarations (JSON Schema).

Names are the registry's (seed 002's minimal set plus verify); every target is one object with
exactly one of ref | role (+ name) | text | css | xpath, the same forms plan steps and the driver
accept. Only tools the executor can run are declared; the step's tool list picks among them.
"""

from __future__ import annotations

from typing import Any

from runtime.llm import ToolSpec

TARGET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": (
        "Which element: give exactly one of ref (from the latest snapshot, e.g. 's2:e7'), role (+ name), text, css or xpath."
    ),
    "properties": {
        "ref": {"type": "string", "description": "A ref from the latest snapshot, like 's2:e7'."},
        "role": {"type": "string", "description": "An ARIA role as shown in snapshots: button, link, textbox, ..."},
        "name": {"type": "string", "description": "The accessible name, with role."},
        "text": {"type": "string", "description": "The element's visible text."},
        "css": {"type": "string", "description": "A CSS selector."},
        "xpath": {"type": "string", "description": "An XPath expression."},
        "index": {"type": "integer", "description": "Which match when several elements match (0-based)."},
    },
}


def _object(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


AGENT_TOOL_SPECS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            "open_url",
            "Open a URL in the tab and prepare the page (load, screenshot, readable text). Only the recipe's allowed domains.",
            _object({"url": {"type": "string", "description": "An absolute http(s) URL."}}, ["url"]),
        ),
        ToolSpec(
            "browser_snapshot",
            "Rewrite the page tree: depth; ref: only its part, from child start.",
            _object({"ref": {"type": "string"}, "depth": {"type": "integer"}, "start": {"type": "integer"}}),
        ),
        ToolSpec(
            "browser_find",
            "Find tree nodes by text or /regex/i, with paths and refs.",
            _object({"text": {"type": "string"}}, ["text"]),
        ),
        ToolSpec("browser_click", "Click an element.", _object({"target": TARGET_SCHEMA}, ["target"])),
        ToolSpec(
            "browser_type",
            "Replace the text of an input or textarea, optionally pressing Enter afterwards.",
            _object({"target": TARGET_SCHEMA, "text": {"type": "string"}, "submit": {"type": "boolean"}}, ["target", "text"]),
        ),
        ToolSpec(
            "browser_select",
            "Choose an option of a select element by its value or its visible label.",
            _object({"target": TARGET_SCHEMA, "value": {"type": "string"}, "label": {"type": "string"}}, ["target"]),
        ),
        ToolSpec(
            "browser_press",
            "Press a key such as Enter, Tab, Escape or ArrowDown, optionally in an element.",
            _object({"key": {"type": "string"}, "target": TARGET_SCHEMA}, ["key"]),
        ),
        ToolSpec(
            "browser_scroll",
            "Scroll the page, or scroll an element into view.",
            _object({"direction": {"type": "string", "enum": ["up", "down", "left", "right", "top", "bottom"]}, "target": TARGET_SCHEMA}),
        ),
        ToolSpec(
            "browser_wait",
            "Wait until the page has loaded, a text appears, the URL contains a value, or some milliseconds passed.",
            _object(
                {"kind": {"type": "string", "enum": ["load", "text_includes", "url", "timeout"]}, "value": {"type": "string"}},
                ["kind"],
            ),
        ),
        ToolSpec(
            "browser_extract",
            "Read fields from the page (each through a target, as text or an attribute), or its readable text.",
            _object(
                {
                    "fields": {
                        "type": "array",
                        "items": _object(
                            {"name": {"type": "string"}, "target": TARGET_SCHEMA, "attr": {"type": "string"}}, ["name", "target"]
                        ),
                    },
                    "readable": {"type": "boolean", "description": "Read the page's readable text instead of fields."},
                }
            ),
        ),
        ToolSpec(
            "browser_verify",
            "Check one condition on the page: text_includes, title_includes, url_matches (a regular expression) or element_visible.",
            _object(
                {
                    "text_includes": {"type": "string"},
                    "title_includes": {"type": "string"},
                    "url_matches": {"type": "string"},
                    "element_visible": TARGET_SCHEMA,
                }
            ),
        ),
        ToolSpec(
            "close",
            "Finish this step with a short summary of what you did and the result, or of what blocked you.",
            _object({"summary": {"type": "string"}}, ["summary"]),
        ),
    )
}

# Tools that change the page: their effect is awaited and fingerprinted before the result goes back.
PAGE_CHANGING_TOOLS = frozenset({"open_url", "browser_click", "browser_type", "browser_select", "browser_press", "browser_scroll", "browser_wait"})

SCROLL_STEP_PX = 600
SCROLL_TO_END_PX = 1_000_000


def scroll_motion(direction: str) -> tuple[str, int]:
    """A recipe's or model's scroll direction as the driver's: top/bottom scroll all the way."""
    if direction in ("top", "bottom"):
        return ("up" if direction == "top" else "down"), SCROLL_TO_END_PX
    return direction, SCROLL_STEP_PX


NUDGE = (
    "You answered without calling a tool. Call exactly one of the tools now; call `close` with a summary "
    "when the task is done or you are blocked."
)


def offered_tools(step_tools: list[str] | None) -> list[ToolSpec]:
    """The declarations for a step's tool list, in its order; names the executor cannot run are left out."""
    names = step_tools if step_tools is not None else list(AGENT_TOOL_SPECS)
    return [AGENT_TOOL_SPECS[name] for name in names if name in AGENT_TOOL_SPECS]


def target_argument(arguments: dict[str, Any], key: str = "target") -> dict[str, Any] | str | None:
    """A target as the model sent it; the driver validates its shape and names what is wrong."""
    value = arguments.get(key)
    if isinstance(value, dict):
        # Gemini may send integral numbers as floats (1.0); the driver wants an int index.
        return {k: (int(v) if k == "index" and isinstance(v, float) and v.is_integer() else v) for k, v in value.items()}
    return value
