"""Tool names that changed: the old ones stay valid as aliases of the new.

Verity's browser tools take Playwright MCP's names where it has one (`browser_navigate`,
`browser_select_option`, `browser_press_key`, `browser_wait_for`), so a model's and a person's
habits carry over. The names they had before still work wherever a tool is named (tools.allow,
tools.needs_approval, agent.tools, a registry descriptor, a model's tool call) and mean the same
tool: the recipe's models turn them into the new name as they load, and the agent's dispatch
does the same for a model's call.
"""

from __future__ import annotations

from collections.abc import Sequence

TOOL_ALIASES: dict[str, str] = {
    "open_url": "browser_navigate",
    "browser_select": "browser_select_option",
    "browser_press": "browser_press_key",
    "browser_wait": "browser_wait_for",
}


def canonical_tool(name: str) -> str:
    """A tool's name as the runtime knows it: an old name becomes its new one."""
    return TOOL_ALIASES.get(name, name)


def canonical_tools(names: Sequence[str] | None) -> list[str] | None:
    """A list of tool names with each old name replaced, in place (positions stay the YAML's)."""
    if names is None:
        return None
    return [canonical_tool(name) if isinstance(name, str) else name for name in names]
