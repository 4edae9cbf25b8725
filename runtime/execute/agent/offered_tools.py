"""The tools an agent step offers the model, as function declarations (JSON Schema), and the one
note the prompt adds about them: how to write a target.

Names and argument shapes are Playwright MCP's where it has the tool (`browser_navigate`,
`browser_click`, `browser_type` with `slowly`, `browser_select_option` with `values`,
`browser_wait_for` with `time`/`text`/`textGone` ...); Verity's own keep plain names
(`browser_extract`, `browser_verify`, `close`). Every element is one string, `target`: a ref or a
one-line locator (plan/agent_vocabulary.py), explained once in the prompt (TARGET_HELP), never per
tool. Declarations stay terse: every byte here goes with every request (BENCHMARKS.md, "The fixed
part of an agent request"). Only tools the executor can run are declared; the step's tool list
picks among them.
"""

from __future__ import annotations

from typing import Any

from runtime.llm import ToolSpec
from runtime.plan.agent_vocabulary import UPLOAD_TOOL

_S: dict[str, Any] = {"type": "string"}
_B: dict[str, Any] = {"type": "boolean"}
_I: dict[str, Any] = {"type": "integer"}
_N: dict[str, Any] = {"type": "number"}
_LIST: dict[str, Any] = {"type": "array", "items": _S}


def _args(properties: dict[str, Any], *required: str) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


def _on_target(description: str, **extra: Any) -> tuple[str, dict[str, Any]]:
    return description, _args({"target": _S, **extra}, "target")


_DECLARED: dict[str, tuple[str, dict[str, Any]]] = {
    "browser_navigate": ("Open a URL.", _args({"url": _S}, "url")),
    "browser_navigate_back": ("Go back.", _args({})),
    "browser_snapshot": ("Rewrite the page tree: depth; ref: only its part, from child start.", _args({"ref": _S, "depth": _I, "start": _I})),
    "browser_find": ("Find tree nodes by text or /regex/i, with paths and refs.", _args({"text": _S}, "text")),
    "browser_click": _on_target("Click."),
    "browser_type": _on_target("Replace a field's text; slowly: key by key; submit: Enter after.", text=_S, slowly=_B, submit=_B),
    "browser_press_key": ("Press a key (Enter, Control+a), in target if given.", _args({"key": _S, "target": _S}, "key")),
    "browser_select_option": _on_target("Choose options (value or label); mode add/remove keeps others.", values=_LIST, mode=_S),
    "browser_check": _on_target("Check a box, radio or switch."),
    "browser_uncheck": _on_target("Uncheck a box or switch."),
    "browser_hover": _on_target("Hover."),
    "browser_drag": ("Drag one element onto another.", _args({"startTarget": _S, "endTarget": _S}, "startTarget", "endTarget")),
    "browser_select_text": _on_target("Select text (or all) in target.", text=_S),
    "browser_scroll": ("Scroll up/down/left/right/top/bottom, or target into view.", _args({"direction": _S, "target": _S})),
    UPLOAD_TOOL: _on_target("Put files into a file input:", files=_LIST),
    "browser_wait_for": (
        "Wait for one: text, textGone, url (part), selector (CSS; state: hidden|attached|detached), load, time (s).",
        _args({"text": _S, "textGone": _S, "url": _S, "selector": _S, "state": _S, "load": _B, "time": _N}),
    ),
    "browser_extract": (
        "Read fields, or the readable text.",
        _args({"fields": {"type": "array", "items": _args({"name": _S, "target": _S, "attr": _S}, "name", "target")}, "readable": _B}),
    ),
    "browser_verify": (
        "Check one condition; url_matches is a regex.",
        _args({"text_includes": _S, "title_includes": _S, "url_matches": _S, "element_visible": _S}),
    ),
    "browser_tabs": ("Tabs: list, select (index), close (index; default current), new (blank).", _args({"action": _S, "index": _I}, "action")),
    "close": ("End the step: the result, or what blocked you.", _args({"summary": _S}, "summary")),
    # Offered only when a step's tool list names them (client_tools.py): an MCP client's tools.
    "browser_screenshot": (
        "Take a screenshot: the viewport, fullPage, or one target element; type png (default) or jpeg.",
        _args({"type": {"type": "string", "enum": ["png", "jpeg"]}, "fullPage": _B, "target": _S}),
    ),
    "browser_evaluate": ("Run a JavaScript function in the page; its JSON result comes back: '() => document.title'.", _args({"function": _S}, "function")),
}
# The tools a step's tool list must name to offer (a model is offered the others by default).
CLIENT_TOOL_NAMES: tuple[str, ...] = ("browser_screenshot", "browser_evaluate")
AGENT_TOOL_NAMES: tuple[str, ...] = tuple(name for name in _DECLARED if name not in CLIENT_TOOL_NAMES)

# Said once in the prompt's <tools> section, for every tool that takes a target.
TARGET_HELP = (
    'A target is a snapshot ref (s3:e12) or role=button[name="Buy"], text=Buy, label=Email, placeholder=, alt=, title=, '
    'testid=, css=#q, xpath=//a; "quoted" matches exactly. A >> B: B inside A; frame=#f >> B: in iframe #f; '
    ">> nth=1 or >> first: which match."
)

# Tools after which the page may differ: their result says whether it did (page_changed).
PAGE_CHANGING_TOOLS = frozenset(
    {"browser_navigate", "browser_navigate_back", "browser_wait_for", "browser_click", "browser_type", "browser_select_option",
     "browser_check", "browser_uncheck", "browser_press_key", "browser_hover", "browser_drag", "browser_select_text", "browser_scroll",
     UPLOAD_TOOL, "browser_evaluate"}
)  # fmt: skip

NUDGE = (
    "You answered without calling a tool. Call exactly one of the tools now; call `close` with a summary "
    "when the task is done or you are blocked."
)


def tool_spec(name: str, upload_files: list[str] | None = None) -> ToolSpec:
    """One tool's declaration; the upload tool names the files the recipe declares."""
    description, schema = _DECLARED[name]
    if name == UPLOAD_TOOL:
        description = f"{description} {', '.join(upload_files or []) or '(none declared)'}."
    return ToolSpec(name, description, schema)


def offered_tools(step_tools: list[str] | None, upload_files: list[str] | None = None) -> list[ToolSpec]:
    """The declarations for a step's tool list, in its order; names the executor cannot run are left out."""
    names = step_tools if step_tools is not None else list(AGENT_TOOL_NAMES)
    return [tool_spec(name, upload_files) for name in names if name in _DECLARED]
