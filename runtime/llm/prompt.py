"""Seed 002's structured system prompt for the browser agent, as a pure function.

Sections, in order: <goal>, <page> (URL, tab, then the compressed observations), <tools>,
<strategy> (observe before act, structured actions only), <completion> (end by calling close).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from runtime.llm.messages import ToolSpec

if TYPE_CHECKING:
    from runtime.browser.vocabulary.observation_context import ObservationContext

SECTIONS = ("goal", "page", "tools", "strategy", "completion")
_SECTION_TAG = re.compile(r"</?\s*(" + "|".join(SECTIONS) + r")\s*>", re.IGNORECASE)

STRATEGY = (
    "- The page section is the page's tree, rewritten when the page changes; act on its refs. `…` lines say how to see more.\n"
    "- Act with structured tool arguments (refs, roles, names), never with free-text instructions.\n"
    "- Make at most one tool call per step and read its result before the next one.\n"
    "- After an action, verify its effect on the page; if nothing changed, try another approach instead of repeating it.\n"
    "- Stay on the target site; do not invent URLs or data the page does not show."
)


@dataclass(frozen=True)
class PageContext:
    url: str = ""
    tab_id: str = ""
    title: str = ""


def build_agent_prompt(
    goal: str,
    tools: Sequence[ToolSpec],
    page: PageContext | None = None,
    observations: ObservationContext | None = None,
    completion_tool: str = "close",
) -> str:
    """The system prompt. Page text and goal cannot close or open our sections (tags are neutralised)."""
    page_lines = []
    if page is not None:
        page_lines += [f"url: {page.url or '(none yet)'}", f"tab: {page.tab_id or '(none yet)'}"]
        if page.title:
            page_lines.append(f"title: {page.title}")
    else:
        page_lines.append("No page is open yet.")
    if observations is not None:
        for entry in observations.render():
            page_lines.append(f"[{entry.kind} {entry.label}]\n{entry.text}")
    tool_lines = [f"- {tool.name}: {tool.description}" for tool in tools] or ["(no tools available)"]
    completion = (
        f"When the goal is reached and verified on the page, call `{completion_tool}` with a short summary of what you did "
        "and the result. A task only counts as done when the last action succeeded and its verification passed. "
        f"If you cannot reach the goal, call `{completion_tool}` and say what blocked you."
    )
    bodies = {
        "goal": _neutralise(goal),
        "page": _neutralise("\n".join(page_lines)),
        "tools": _neutralise("\n".join(tool_lines)),
        "strategy": STRATEGY,
        "completion": completion,
    }
    return "\n\n".join(f"<{name}>\n{bodies[name]}\n</{name}>" for name in SECTIONS) + "\n"


def _neutralise(text: str) -> str:
    # Untrusted text (goal, page content) must not be able to end a section and start its own.
    return _SECTION_TAG.sub(lambda m: m.group(0).replace("<", "&lt;"), text)
