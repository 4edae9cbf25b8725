"""The tool registry (seed 001): built-in descriptors merged with every JSON/YAML file of a directory.

Registries are read once, when a recipe is loaded; edit the files and run again to pick changes up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from runtime.recipe.problems import Problem, RecipeInvalid, format_path
from runtime.recipe.source import read_yaml
from runtime.recipe.tool_names import canonical_tool
from runtime.recipe.steps import ACT, ACT_TOOLS, AGENT, AGENT_CLOSE_TOOL, EVALUATE, STEP_KIND_ROWS, TABS_TOOL


class ToolScope(str, Enum):
    """Seed 000's scope classes for the intent guard, plus `internal` for the runtime's own
    bookkeeping steps (close, validate-target, evaluate): always allowed, and never counted as a
    successful browser call, so they cannot satisfy a browser task's completion check."""

    BROWSER = "browser"
    NETWORK_ADJACENT = "network_adjacent"
    OUT_OF_SCOPE = "out_of_scope"
    INTERNAL = "internal"


_BROWSER_NAMES = re.compile(r"browser|playwright|puppeteer|pyppeteer|selenium|chromium|cdp", re.IGNORECASE)
_NETWORK_NAMES = re.compile(r"webfetch|web_fetch|fetch|http|url|page|search", re.IGNORECASE)


def classify_tool_name(name: str) -> ToolScope:
    """Classify a tool by its name, as seed 000 does for tools that do not declare a scope (an
    old name as the tool it now names: open_url is browser_navigate, a browser tool)."""
    name = canonical_tool(name)
    if _BROWSER_NAMES.search(name):
        return ToolScope.BROWSER
    if _NETWORK_NAMES.search(name):
        return ToolScope.NETWORK_ADJACENT
    return ToolScope.OUT_OF_SCOPE


@dataclass(frozen=True)
class ToolDescriptor:
    name: str
    description: str
    scope: ToolScope
    needs_approval: bool = False
    keywords: tuple[str, ...] = ()
    prompt: str = ""
    source: str = "built-in"


def _builtin(name: str, description: str, scope: ToolScope = ToolScope.BROWSER, needs_approval: bool = False) -> ToolDescriptor:
    return ToolDescriptor(name=name, description=description, scope=scope, needs_approval=needs_approval)


# The tools of the plan's own checks: a state kind named after its tool.
TARGET_CHECK_TOOL = "data.validate-target"
EVALUATION_TOOL = "agent.evaluate"

BUILTIN_TOOLS: tuple[ToolDescriptor, ...] = (
    _builtin("session_start", "Open a browser session with its own context and primary tab."),
    _builtin("session_stop", "Close the session's context and tabs."),
    _builtin("browser_navigate", "Navigate the tab to a URL."),
    _builtin("browser_navigate_back", "Go back to the tab's previous page."),
    _builtin("browser_wait_for_loaded", "Wait until the page has loaded."),
    _builtin("browser_screenshot", "Capture the page as a PNG artifact."),
    _builtin("browser_readability_extract", "Reduce the page to its readable text."),
    _builtin("browser_xpath_scan", "List interactive elements with their XPath."),
    _builtin("browser_get_html", "Store the page or an element's HTML as an artifact."),
    _builtin("browser_snapshot", "Observe the page: elements with refs bound to this tab and snapshot."),
    _builtin("browser_find", "Search the page's accessibility tree for a text or pattern."),
    _builtin("browser_click", "Click an element."),
    _builtin("browser_hover", "Put the pointer on an element."),
    _builtin("browser_type", "Type text into an element."),
    _builtin("browser_select_option", "Choose, add or remove options of a select element."),
    _builtin("browser_check", "Check a checkbox, radio or switch."),
    _builtin("browser_uncheck", "Uncheck a checkbox or switch."),
    _builtin("browser_press_key", "Press a key or a chord."),
    _builtin("browser_scroll", "Scroll the page."),
    _builtin("browser_drag", "Drag an element onto another with the mouse."),
    _builtin("browser_select_text", "Select text in an element by dragging the mouse over it."),
    _builtin("browser_file_upload", "Put files the recipe declares into a file input."),
    _builtin("browser_wait_for", "Wait for load, text (or its going), URL, a selector or a time."),
    _builtin("browser_extract", "Extract fields or readable text from the page."),
    _builtin("browser_verify", "Check conditions on the page and the extracted data."),
    _builtin("browser_search", "Search with the recipe's search page and follow a result on an allowed domain."),
    _builtin("browser_evaluate", "Run a script in the page (an isolated world unless the step says main) and return its JSON result."),
    _builtin(TABS_TOOL, "List, select, open or close tabs (a recipe's switch_tab and close_tab steps, an agent's browser_tabs)."),
    _builtin(AGENT_CLOSE_TOOL, "End the run with a summary.", ToolScope.INTERNAL),
    _builtin("agent.act", "Let the model choose browser actions for an agent step; each call it makes is checked on its own.", ToolScope.INTERNAL),
    _builtin(TARGET_CHECK_TOOL, "Check the latest observation against the target: status, domain, keywords, blocks.", ToolScope.INTERNAL),
    _builtin(EVALUATION_TOOL, "Record a human-readable evaluation of the latest observation.", ToolScope.INTERNAL),
)

# Which tool each plan step kind (and act action) uses, read from the table of step kinds
# (steps.py): the plan compiler (so the run-time tool gate, the intent guard and approvals), the
# recipe validator's tools.allow check, the schema's step descriptions and the README's step
# table all read it. `search` is the fallback search an observation's replan runs.
SEARCH_TOOL = "browser_search"
STEP_TOOLS: dict[str, str] = {
    **{kind.name: kind.tool for kind in STEP_KIND_ROWS if kind.tool is not None},
    **{f"{ACT}.{action}": tool for action, tool in ACT_TOOLS.items()},
    "search": SEARCH_TOOL,
}

# Page scripts are never allowed implicitly: a recipe must name this tool in tools.allow.
EVALUATE_TOOL = STEP_TOOLS[EVALUATE]

# Plan machinery that reads what the run already observed; it touches neither browser nor network,
# so tools.allow and the intent guard do not apply to it. An agent state's own tool (agent.act) is
# bookkeeping too: each call its model makes is authorized on its own.
PLAN_CHECK_TOOLS = frozenset({TARGET_CHECK_TOOL, EVALUATION_TOOL})
UNGATED_STEP_TOOLS = PLAN_CHECK_TOOLS | {STEP_TOOLS[AGENT]}

# What an agent step's model is offered when the step names no tools: every act a recipe has,
# plus observing, waiting, reading and closing, as far as the recipe allows them.
AGENT_DEFAULT_TOOLS: tuple[str, ...] = (
    "browser_navigate",
    "browser_navigate_back",
    "browser_snapshot",
    "browser_find",
    "browser_click",
    "browser_type",
    "browser_select_option",
    "browser_check",
    "browser_uncheck",
    "browser_press_key",
    "browser_hover",
    "browser_drag",
    "browser_select_text",
    "browser_scroll",
    "browser_file_upload",
    "browser_wait_for",
    "browser_extract",
    "browser_verify",
    TABS_TOOL,
    AGENT_CLOSE_TOOL,
)
# Offered by default only when the recipe declares files it may upload (`files:`).
UPLOAD_TOOL = "browser_file_upload"

_DESCRIPTOR_KEYS = {"name", "description", "scope", "needs_approval", "keywords", "prompt"}


@dataclass(frozen=True)
class ToolRegistry:
    tools: dict[str, ToolDescriptor] = field(default_factory=dict)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and canonical_tool(name) in self.tools

    def get(self, name: str) -> ToolDescriptor:
        return self.tools[canonical_tool(name)]

    def scope_of(self, name: str) -> ToolScope:
        descriptor = self.tools.get(canonical_tool(name))
        return descriptor.scope if descriptor else classify_tool_name(name)

    @property
    def names(self) -> list[str]:
        return sorted(self.tools)


REGISTRY_SUFFIXES = (".json", ".yaml", ".yml")


def registry_files(directory: Path) -> list[Path]:
    """The descriptor files of a registry directory, in the order they are read (sorted)."""
    return sorted(p for p in directory.iterdir() if p.suffix in REGISTRY_SUFFIXES and p.is_file())


def load_tool_registry(directory: Path | None) -> ToolRegistry:
    """Built-ins, then each *.json / *.yaml / *.yml file in `directory` (sorted), later files winning."""
    tools = {tool.name: tool for tool in BUILTIN_TOOLS}
    if directory is None:
        return ToolRegistry(tools)
    try:
        if not directory.is_dir():
            raise RecipeInvalid([Problem(str(directory), 0, 0, "tools.registry", "tool registry directory does not exist", "registry_missing")])
        files = registry_files(directory)
        texts = [(file, file.read_text(encoding="utf-8", errors="replace")) for file in files]
    except (OSError, ValueError) as error:  # too long a name, no permission, a NUL in the name
        reason = getattr(error, "strerror", None) or str(error)
        raise RecipeInvalid([Problem(str(directory), 0, 0, "tools.registry", f"cannot read the tool registry directory: {reason}", "registry_unreadable")]) from None
    problems: list[Problem] = []
    for file, text in texts:
        doc, file_problems = read_yaml(text, str(file), what="tool descriptor")
        problems.extend(file_problems)
        if file_problems:
            continue
        entries = doc.data.get("tools") if isinstance(doc.data, dict) and "tools" in doc.data else [doc.data]
        base: tuple[str | int, ...] = ("tools",) if isinstance(doc.data, dict) and "tools" in doc.data else ()
        if not isinstance(entries, list):
            line, col = doc.position(base)
            problems.append(Problem(str(file), line, col, format_path(base), "`tools` must be a list of descriptors", "bad_descriptor"))
            continue
        for index, entry in enumerate(entries):
            path = base + (index,) if base else ()
            descriptor, entry_problems = _descriptor(entry, path, doc, str(file))
            problems.extend(entry_problems)
            if descriptor:
                tools[descriptor.name] = descriptor
    if problems:
        raise RecipeInvalid(problems)
    return ToolRegistry(tools)


def _descriptor(entry: object, path: tuple[str | int, ...], doc, source: str) -> tuple[ToolDescriptor | None, list[Problem]]:
    def problem(at: tuple[str | int, ...], message: str) -> Problem:
        line, col = doc.position(at)
        return Problem(source, line, col, format_path(at), message, "bad_descriptor")

    if not isinstance(entry, dict):
        return None, [problem(path, "a tool descriptor is a mapping with at least `name` and `description`")]
    problems = [problem(path + (key,), f"unknown descriptor key {key!r}") for key in entry if key not in _DESCRIPTOR_KEYS]
    name, description = entry.get("name"), entry.get("description", "")
    if not isinstance(name, str) or not name:
        problems.append(problem(path, "a tool descriptor needs a `name`"))
    scope_text = entry.get("scope")
    scope = classify_tool_name(name) if isinstance(name, str) else ToolScope.OUT_OF_SCOPE
    if scope_text is not None:
        try:
            scope = ToolScope(scope_text)
        except ValueError:
            problems.append(problem(path + ("scope",), f"scope must be one of {', '.join(s.value for s in ToolScope)}"))
    keywords = entry.get("keywords", [])
    if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
        problems.append(problem(path + ("keywords",), "keywords must be a list of strings"))
        keywords = []
    if problems:
        return None, problems
    return (
        ToolDescriptor(
            name=canonical_tool(name),  # a descriptor under an old name describes the tool it now means
            description=str(description),
            scope=scope,
            needs_approval=bool(entry.get("needs_approval", False)),
            keywords=tuple(keywords),
            prompt=str(entry.get("prompt", "")),
            source=source,
        ),
        [],
    )
