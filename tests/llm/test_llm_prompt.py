"""Binds features/llm_prompt.feature: seed 002's prompt sections with the browser's ObservationContext."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pytest_bdd import given, parsers, scenarios, then, when

from runtime.browser import ObservationContext
from runtime.execute.agent.offered_tools import TARGET_HELP, offered_tools
from runtime.llm import PageContext, ToolSpec, build_agent_prompt

scenarios("llm_prompt.feature")

SECTION_TAG = re.compile(r"</?(goal|page|tools|strategy|completion)>")


@dataclass
class PromptInputs:
    goal: str
    page: PageContext | None = None
    observations: ObservationContext = field(default_factory=ObservationContext)
    specs: list[ToolSpec] = field(default_factory=list)
    prompt: str = ""

    def section(self, name: str) -> str:
        match = re.search(rf"<{name}>\n(.*?)\n</{name}>", self.prompt, re.DOTALL)
        assert match, f"no <{name}> section in:\n{self.prompt}"
        return match.group(1)


@given(parsers.parse('the goal "{goal}"'), target_fixture="inputs")
def _goal(goal: str) -> PromptInputs:
    return PromptInputs(goal=goal)


@given(parsers.parse('the page "{url}" in tab "{tab}"'))
def _page(inputs: PromptInputs, url: str, tab: str) -> None:
    inputs.page = PageContext(url=url, tab_id=tab, title="Shop")


@given(parsers.parse('observations "{labels}" were recorded'))
def _observations(inputs: PromptInputs, labels: str) -> None:
    for label in (item.strip() for item in labels.split(",")):
        text = f"{label} body: button 'Add to cart' ref s1:e4"
        if label.startswith("observe"):
            inputs.observations.add_observe(label, text)
        else:
            inputs.observations.add_snapshot(label, text)


@when(parsers.parse('I build the agent prompt with the tools "{tools}"'))
def _build(inputs: PromptInputs, tools: str) -> None:
    # The declarations and the note an agent step sends (execute/agent/offered_tools.py).
    inputs.specs = offered_tools([name.strip() for name in tools.split(",")])
    inputs.prompt = build_agent_prompt(inputs.goal, inputs.specs, page=inputs.page, observations=inputs.observations, tool_notes=TARGET_HELP)


@then(parsers.parse('the prompt\'s sections are "{names}" in that order'))
def _sections(inputs: PromptInputs, names: str) -> None:
    expected = [name.strip() for name in names.split(",")]
    tags = SECTION_TAG.findall(inputs.prompt)
    # Each name twice in a row: its opening and its closing tag, and no other tag anywhere.
    assert tags == [name for name in expected for _ in (0, 1)], tags
    # The goal is all there, only its section-like tags defused.
    assert inputs.section("goal").replace("&lt;", "<") == inputs.goal


@then(parsers.parse('the page section holds the URL and tab "{tab}"'))
def _page_section(inputs: PromptInputs, tab: str) -> None:
    page = inputs.section("page")
    assert inputs.page is not None and inputs.page.url in page and f"tab: {tab}" in page


@then(parsers.parse('the page section holds "{newest}" and "{second}" verbatim and "{oldest}" as a placeholder'))
def _compressed(inputs: PromptInputs, newest: str, second: str, oldest: str) -> None:
    page = inputs.section("page")
    assert f"{newest} body:" in page and f"{second} body:" in page
    assert f"{oldest} body:" not in page and f"[older snapshot {oldest} omitted]" in page
    assert page.index(second) < page.index(newest)


@then("the tools section says how to write a target and repeats no tool's declaration")
def _tools(inputs: PromptInputs) -> None:
    tools = inputs.section("tools")
    assert 'role=button[name="Buy"]' in tools and "label=" in tools and "frame=" in tools and ">> nth=" in tools, tools
    for spec in inputs.specs:
        assert spec.name not in tools and spec.description not in tools, spec


@then(parsers.parse('the completion section asks to call "{tool}"'))
def _completion(inputs: PromptInputs, tool: str) -> None:
    assert f"call {tool} " in inputs.section("completion")
