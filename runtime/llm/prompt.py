"""Seed 002's structured system prompt for the browser agent, as a pure function.

Sections, in order: <goal>, <page> (URL, tab, then the compressed observations), <tools> (what
the tools' declarations do not say: how to write a target), <strategy> (observe before act,
structured actions only), <completion> (end by calling close). The tools themselves travel as
declarations beside the prompt; nothing of theirs is repeated here, so the fixed part of every
request stays small (BENCHMARKS.md).
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
    "- One call per turn. Its result says if an act had an effect; if not, try another way.\n"
    "- Stay on the site; never invent URLs or data."
)


@dataclass(frozen=True)
class PageContext:
    url: str = ""
    tab_id: str = ""
    title: str = ""
    # The run's open tabs, one line each ("1: <url> (current)"), when there is more than one.
    open_tabs: tuple[str, ...] = ()


def build_agent_prompt(
    goal: str,
    tools: Sequence[ToolSpec],
    page: PageContext | None = None,
    observations: ObservationContext | None = None,
    completion_tool: str = "close",
    tool_notes: str = "",
) -> str:
    """The system prompt. Page text and goal cannot close or open our sections (tags are neutralised).
    `tool_notes` is what the tools section says beyond the declarations (none repeats them)."""
    page_lines = []
    if page is not None:
        page_lines += [f"url: {page.url or '(none yet)'}", f"tab: {page.tab_id or '(none yet)'}"]
        if page.title:
            page_lines.append(f"title: {page.title}")
        if page.open_tabs:
            page_lines.append("open tabs (browser_tabs index: url):\n" + "\n".join(page.open_tabs))
    else:
        page_lines.append("No page is open yet.")
    if observations is not None:
        for entry in observations.render():
            page_lines.append(f"[{entry.kind} {entry.label}]\n{entry.text}")
    completion = (
        f"When the goal holds, call {completion_tool} with the result; if blocked, say why in {completion_tool}."
    )
    bodies = {
        "goal": _neutralise(goal),
        "page": _neutralise("\n".join(page_lines)),
        "tools": _neutralise(tool_notes if tools else "(no tools available)"),
        "strategy": STRATEGY,
        "completion": completion,
    }
    return "\n\n".join(f"<{name}>\n{bodies[name]}\n</{name}>" for name in SECTIONS) + "\n"


def _neutralise(text: str) -> str:
    # Untrusted text (goal, page content) must not be able to end a section and start its own.
    return _SECTION_TAG.sub(lambda m: m.group(0).replace("<", "&lt;"), text)
