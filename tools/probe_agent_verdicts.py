"""Probes of the agent step's verdicts (waves 8 to 11): tests/fixtures/agent_corpus/probes.yaml,
probes-frames.yaml (a model's page script writing inside frames) and probes-wave11.yaml (values in
markup a person is not shown, another item's price, tabs, redirects, echoes), each a scripted model on the
loopback Gemini server driving a real run in Chromium against the agent corpus site, with the
verdict written before the probe first ran. They live here rather than in
the suite (its CPU budget); each class a probe found broken has a labelled page
(tests/verdict/blocker_cases.py) or an agent corpus row (cases.yaml) in the suite. A probe with
`left` is a defect found and left as it is: it is reported as an expected failure; `allow` names
tools the probe's recipe offers besides the corpus's own (browser_evaluate).

    uv run --frozen --no-sync python tools/probe_agent_verdicts.py [-k ID]

It is a pytest module run as a script: one test per probe, and a table of what each ended with.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from runtime.events import ToolUsed
from tests.execute.conftest import ExecRunner, corpus_site, runner  # noqa: F401 - fixtures for this module
from tests.fixtures.agent_corpus.cases import CORPUS, RECIPE, model_turn
from tests.fixtures.agent_corpus.site import AgentCorpusSite
from tests.fixtures.gemini_server import GeminiServer

PROBES: dict[str, dict[str, Any]] = {
    case["id"]: case
    for name in ("probes.yaml", "probes-frames.yaml", "probes-wave11.yaml")
    for case in YAML(typ="safe").load((CORPUS / name).read_text(encoding="utf-8"))["cases"]
}
WRONG_VALUES = ("999.99", "618.10", "7.812")
EXTRA_TOOLS = ("browser_tabs", "browser_wait_for", "browser_type", "browser_press_key")


def _allows(expected: Any, seen: str | None) -> bool:
    if expected == "any":
        return True
    return seen in expected if isinstance(expected, list) else seen == expected


@pytest.mark.parametrize("probe_id", list(PROBES))
def test_probe(probe_id: str, corpus_site: AgentCorpusSite, gemini: GeminiServer, gemini_env: dict[str, str], runner: ExecRunner, tmp_path: Path) -> None:  # noqa: F811
    probe = PROBES[probe_id]
    gemini.enqueue(*(model_turn(step, corpus_site) for step in probe["model"]))
    inputs = {**corpus_site.inputs, **({"start": probe["start"]} if probe.get("start") else {})}
    # The corpus recipe, offering the tools the probes' models call besides the corpus's own.
    recipe = YAML(typ="safe").load((CORPUS / probe.get("recipe", RECIPE.name)).read_text(encoding="utf-8"))
    if any("agent" in step for step in recipe["plan"]):
        extra = [*EXTRA_TOOLS, *probe.get("allow", [])]
        recipe["tools"]["allow"] += [tool for tool in extra if tool not in recipe["tools"]["allow"]]
        if probe.get("allow"):
            # A client tool (browser_evaluate) is offered only when the step's tool list names it.
            [agent] = [step for step in recipe["plan"] if "agent" in step]
            agent["agent"]["tools"] = [tool for tool in recipe["tools"]["allow"] if tool != "close"]
    if probe.get("done_when"):
        # A probe of what the step's done_when holds on: the plan ends after the agent step.
        [agent] = [step for step in recipe["plan"] if "agent" in step]
        agent["agent"]["done_when"] = probe["done_when"]
        recipe.pop("output", None)
    path = tmp_path / "probe.yaml"
    path.write_text(json.dumps(recipe, ensure_ascii=False), encoding="utf-8")  # JSON is YAML
    record = runner.wait(runner.start(path, inputs), timeout=90)
    verdict = record.verdict
    assert verdict is not None
    kind = verdict.blocker_kind.value if verdict.blocker_kind else None
    output = record.file("output.json") if (record.run_dir / "output.json").exists() else {}
    seen = f"{verdict.stop_reason.value} / {kind} / output {json.dumps(output.get('data'))}"
    failed_calls = [f"{used.tool}: {used.summary[:160]}" for used in record.payloads(ToolUsed) if used.phase == "error"]
    print(f"\nPROBE {probe_id}: {seen}\n  {verdict.summary[:400]}" + "".join(f"\n  failed call {call}" for call in failed_calls))
    expect = probe["expect"]
    if probe.get("left") and not (_allows(expect["stop_reason"], verdict.stop_reason.value) and _allows(expect["blocker_kind"], kind)):
        pytest.xfail(f"left as found: {probe['left']}")
    assert _allows(expect["stop_reason"], verdict.stop_reason.value) and _allows(expect["blocker_kind"], kind), seen
    if expect["output"] == "any":
        pass  # a recipe without an output: the stop reason says it all
    elif expect["output"] is None:
        assert verdict.stop_reason.value != "completed" and not output.get("valid"), seen
    else:
        assert output.get("data") == expect["output"], seen
    results = json.dumps(output) + json.dumps(verdict.evidence.get("output"), default=str)
    assert not any(wrong in results for wrong in WRONG_VALUES), results


if __name__ == "__main__":
    plugins = ["-p", "tests.fixtures.browser_loop", "-p", "tests.fixtures.gemini_fixtures", "-p", "no:cacheprovider"]
    sys.exit(pytest.main([str(Path(__file__)), *plugins, "-q", "-s", "-o", "python_files=probe_*.py", *sys.argv[1:]]))
