"""Binds features/service_tabs.feature: tab events over a real gRPC channel, from a real run."""

from __future__ import annotations

import re
from typing import Any

from pytest_bdd import parsers, scenarios, then

from tests.service.run_steps import *  # noqa: F403 - the shared real-run steps
from tests.fixtures.tab_changes import describe_tab_change

scenarios("service_tabs.feature")

def _payloads(context: dict[str, Any], kind: str) -> list[tuple[int, Any]]:
    return [(event.seq, getattr(event, kind)) for event in context["events"] if event.WhichOneof("payload") == kind]



@then(parsers.re(r"the stream's tab events are (?P<said>.*)$"))
def _tab_events(context: dict[str, Any], said: str) -> None:
    changes = [change for _, change in _payloads(context, "tab")]
    assert [describe_tab_change(change) for change in changes] == re.findall(r'"([^"]*)"', said)
    opened = next(change for change in changes if change.change == "opened")
    assert opened.url.endswith("/target.html") and opened.name == "terms" and opened.primary_tab_id == "t1", opened
    seqs = [seq for seq, _ in _payloads(context, "tab")]
    assert seqs == sorted(seqs)


def _step_tabs(context: dict[str, Any]) -> dict[str, str]:
    return {started.state_id: started.tab_id for _, started in _payloads(context, "step_started")}


@then(parsers.parse('the stream says step "{first}" acts in tab "{first_tab}" and step "{second}" in tab "{second_tab}"'))
def _steps_in_tabs(context: dict[str, Any], first: str, first_tab: str, second: str, second_tab: str) -> None:
    tabs = _step_tabs(context)
    assert (tabs[first], tabs[second]) == (first_tab, second_tab), tabs


@then(parsers.parse('every tool the stream reports for step "{state_id}" acts in tab "{tab_id}"'))
def _tools_in_tab(context: dict[str, Any], state_id: str, tab_id: str) -> None:
    current, seen = "", []
    for event in context["events"]:
        kind = event.WhichOneof("payload")
        if kind == "step_started":
            current = event.step_started.state_id
        elif kind == "tool_used" and current == state_id:
            seen.append((event.tool_used.tool, event.tool_used.tab_id))
    assert seen and all(tab == tab_id for _, tab in seen), seen
