"""pytest plugin for the BDD gate (`pytest -p runtime.gate.pytest_plugin --verity-gate-report=PATH`).

It records, without changing how tests run or report:
- every collected test and, for pytest-bdd tests, the feature file, scenario name and line it binds;
- steps no visible step definition matches, by pytest-bdd's own rules: pytest decides which step
  fixtures a test sees, pytest-bdd's step context its type and parser (pytest-bdd's own lookup asks
  pytest about every fixture name for every step; here that is asked once per module or class);
- collection errors (a module whose `scenario()` names a missing scenario, a broken feature file...);
- each test's outcome as pytest's summary names it, and a short message when it did not pass;
- step definitions bound to Then steps that check nothing (`runtime.gate.then_checks`).
It also creates the directory of a `--cucumberjson` report, which pytest-bdd does not do.
The report is written at session finish, which pytest reaches even after collection errors.

Under pytest-xdist (`-n`) the workers collect and run the tests, and the controller sees only their
reports: each worker hands what it collected and judged to the controller in its `workeroutput`,
and the controller, which receives every test's report and every failed collection, merges them and
writes the one report. pytest-bdd keeps a test's scenario for the Cucumber JSON beside the report
in process memory, so it is carried across with the serialized report.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd.parser import ScenarioTemplate, Step
from pytest_bdd.reporting import ReportContext, test_report_context_registry
from pytest_bdd.compat import get_fixture_names, getfixturedefs
from pytest_bdd.scenario import iterparentnodeids, scenario_wrapper_template_registry
from pytest_bdd.steps import step_function_context_registry
from pytest_bdd.utils import registry_get_safe

from runtime.gate.collect import (
    REPORT_OPTION,
    CollectedTest,
    CollectionError,
    PytestReport,
    UncheckedThenStep,
    UndefinedStep,
)
from runtime.gate.then_checks import ThenStepJudge, definition_site

_EXAMPLE_PARAMETER = "_pytest_bdd_example"  # the parametrize name pytest-bdd gives Scenario Outline rows
_MESSAGE_LINES = 5
_MESSAGE_CHARS = 600
# What an xdist worker hands the controller: its collected tests and judged steps, and a report's scenario.
_WORKER_OUTPUT_KEY = "verity_gate"
_SCENARIO_KEY = "verity_gate_bdd_context"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        REPORT_OPTION,
        dest="verity_gate_report",
        default=None,
        metavar="PATH",
        help="write the Verity BDD gate's JSON report (collected scenarios, undefined steps, outcomes) to PATH",
    )


def pytest_configure(config: pytest.Config) -> None:
    cucumber_json = getattr(config.option, "cucumber_json_path", None)
    if cucumber_json:
        # pytest-bdd opens the file at session finish and fails if its directory is missing.
        Path(cucumber_json).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
    report_path = config.getoption("verity_gate_report")
    if report_path:
        # An xdist worker has `workeroutput`; it reports to the controller instead of the file.
        recorder = GateRecorder(Path(report_path), config.rootpath, worker_output=getattr(config, "workeroutput", None))
        recorder.report.narrowed_by_paths = config.args_source == pytest.Config.ArgsSource.ARGS
        config.pluginmanager.register(recorder, "verity-gate-recorder")


class GateRecorder:
    def __init__(self, report_path: Path, rootpath: Path, *, worker_output: dict[str, Any] | None = None) -> None:
        self.report_path = report_path
        self._worker_output = worker_output
        self.rootpath = rootpath
        self.report = PytestReport()
        self._deselected: set[str] = set()
        self._undefined_seen: set[tuple[str, int, str]] = set()
        self._then_judge = ThenStepJudge(rootpath)
        self._then_steps_seen: set[object] = set()  # code objects of step functions already judged
        # The step definitions a module's (or class's) tests can see, by that node's id.
        self._visible_steps: dict[str, list[Any]] = {}

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        # Under xdist every worker's failed collection reaches the controller: keep each once.
        if report.failed and all(error.node_id != report.nodeid for error in self.report.collection_errors):
            self.report.collection_errors.append(_collection_error(report, self.rootpath))

    # tryfirst: see every item before `-k` / `-m` deselect some of them.
    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, items: list[pytest.Item]) -> None:
        for item in items:
            self.report.collected.append(self._describe(item))

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self._deselected.update(item.nodeid for item in items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        previous = self.report.outcomes.get(report.nodeid)
        outcome = _phase_outcome(report)
        if outcome is None:
            return
        if report.when == "teardown" and previous not in (None, "passed"):
            return  # a teardown error after a failure does not hide the failure
        self.report.outcomes[report.nodeid] = outcome
        if outcome == "passed":
            self.report.messages.pop(report.nodeid, None)
        else:
            self.report.messages[report.nodeid] = _short_message(report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.report.exit_status = int(exitstatus)
        self.report.collected = [
            replace(test, deselected=test.node_id in self._deselected) for test in self.report.collected
        ]
        if self._worker_output is not None:
            # The controller has every outcome and collection error; it needs what only workers saw.
            seen = self.report.to_json()
            self._worker_output[_WORKER_OUTPUT_KEY] = {key: seen[key] for key in ("collected", "undefined_steps", "unchecked_then_steps")}
            return
        self.report_path.write_text(json.dumps(self.report.to_json(), indent=1), encoding="utf-8")

    # --- under pytest-xdist, on the controller ---------------------------------------------------

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """A worker finished: merge what it collected and judged (every worker collects the whole
        selection, so each test, undefined step and unchecked Then step is kept once)."""
        seen = getattr(node, "workeroutput", {}).get(_WORKER_OUTPUT_KEY)
        if seen is None:
            return  # the worker died before its session finished; another one reports the collection
        worker = PytestReport.from_json(seen)
        known = {test.node_id for test in self.report.collected}
        self.report.collected += [test for test in worker.collected if test.node_id not in known]
        self.report.undefined_steps += [step for step in worker.undefined_steps if step not in self.report.undefined_steps]
        self.report.unchecked_then_steps += [step for step in worker.unchecked_then_steps if step not in self.report.unchecked_then_steps]
        self._deselected.update(test.node_id for test in worker.collected if test.deselected)

    @pytest.hookimpl(wrapper=True)
    def pytest_report_to_serializable(self, config: pytest.Config, report: Any) -> Any:
        data = yield
        context = test_report_context_registry.get(report) if isinstance(report, pytest.TestReport) else None
        if data is not None and context is not None:
            data[_SCENARIO_KEY] = {"scenario": context.scenario, "name": context.name}
        return data

    @pytest.hookimpl(wrapper=True)
    def pytest_report_from_serializable(self, config: pytest.Config, data: dict[str, Any]) -> Any:
        context = data.pop(_SCENARIO_KEY, None)
        report = yield
        if context is not None and report is not None:
            test_report_context_registry[report] = ReportContext(scenario=context["scenario"], name=context["name"])
        return report

    def _describe(self, item: pytest.Item) -> CollectedTest:
        # Doctests and non-Python items have no function object, or one that cannot be weak-referenced.
        template = registry_get_safe(scenario_wrapper_template_registry, getattr(item, "obj", None))
        if template is None:
            return CollectedTest(node_id=item.nodeid)
        feature_file = str(Path(template.feature.filename).resolve())
        self._record_steps(item, template, feature_file)
        return CollectedTest(
            node_id=item.nodeid,
            feature_file=feature_file,
            scenario_name=template.name,
            scenario_line=template.line_number,
        )

    def _record_steps(self, item: pytest.Item, template: ScenarioTemplate, feature_file: str) -> None:
        callspec = getattr(item, "callspec", None)
        example = callspec.params.get(_EXAMPLE_PARAMETER, {}) if callspec is not None else {}
        # Outline steps are matched after <placeholders> are filled in, exactly as at run time.
        scenario = template.render(example)
        visible = self._step_definitions_visible_to(item)
        for step in scenario.steps:
            definitions = [definition for definition in visible if _defines(definition, step)]
            if not definitions:
                self._record_undefined_step(item, step, feature_file)
            elif step.type == "then":
                # pytest-bdd uses the last definition ordered by scope (the closest to the test); judge that one.
                chosen = sorted(definitions, key=lambda definition: list(iterparentnodeids(definition.baseid)))[-1]
                self._judge_then_step(chosen.func, step, feature_file)

    def _step_definitions_visible_to(self, item: pytest.Item) -> list[Any]:
        """Every step definition (a pytest-bdd step fixture) that `item` can use, in the order
        pytest-bdd's own lookup finds them: pytest's visibility rules decide, asked once for all
        the tests of the module or class that holds `item` (they see the same fixtures)."""
        holder = item.parent.nodeid if item.parent is not None else item.nodeid
        visible = self._visible_steps.get(holder)
        if visible is None:
            fixture_manager = item.session._fixturemanager
            visible = [
                definition
                for name in get_fixture_names(fixturemanager=fixture_manager)
                for definition in getfixturedefs(fixture_manager, name, item) or []
                if step_function_context_registry.get(definition.func) is not None
            ]
            self._visible_steps[holder] = visible
        return visible

    def _record_undefined_step(self, item: pytest.Item, step: Step, feature_file: str) -> None:
        key = (feature_file, step.line_number, step.name)
        if key in self._undefined_seen:
            return
        self._undefined_seen.add(key)
        self.report.undefined_steps.append(
            UndefinedStep(
                node_id=item.nodeid,
                feature_file=feature_file,
                line=step.line_number,
                keyword=step.keyword,
                text=step.name,
            )
        )

    def _judge_then_step(self, marker: object, step: Step, feature_file: str) -> None:
        context = step_function_context_registry.get(marker)
        if context is None:
            return
        function = context.step_func
        code = getattr(function, "__code__", function)
        if code in self._then_steps_seen:
            return
        self._then_steps_seen.add(code)
        if not self._then_judge.is_project_code(function) or self._then_judge.checks_something(function):
            return
        path, line, name = definition_site(function)
        self.report.unchecked_then_steps.append(
            UncheckedThenStep(
                path=path,
                line=line,
                function=name,
                step_text=f"{step.keyword} {step.name}",
                feature_file=feature_file,
                step_line=step.line_number,
            )
        )


def _defines(definition: Any, step: Step) -> bool:
    """Does step fixture `definition` define `step` (pytest-bdd's type and parser rules)?"""
    context = step_function_context_registry[definition.func]
    if context.type is not None and context.type != step.type:
        return False
    return bool(context.parser.is_matching(step.name))


def _phase_outcome(report: pytest.TestReport) -> str | None:
    expected_failure = hasattr(report, "wasxfail")
    if report.when == "setup":
        if report.failed:
            return "error"
        if report.skipped:
            return "xfailed" if expected_failure else "skipped"
        return None
    if report.when == "call":
        if report.failed:
            return "failed"
        if report.skipped:
            return "xfailed" if expected_failure else "skipped"
        return "xpassed" if expected_failure else "passed"
    return "error" if report.failed else None


def _collection_error(report: pytest.CollectReport, rootpath: Path) -> CollectionError:
    node_path = report.nodeid.split("::", 1)[0]
    text = report.longreprtext or ""
    line_match = re.search(rf"^{re.escape(node_path)}:(\d+):", text, flags=re.MULTILINE) if node_path else None
    error_lines = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    message = "\n".join(error_lines[-4:]) or next(
        (line.strip() for line in reversed(text.splitlines()) if line.strip()), "collection failed"
    )
    return CollectionError(
        node_id=report.nodeid,
        path=str((rootpath / node_path).resolve()) if node_path else str(rootpath),
        line=int(line_match.group(1)) if line_match else 0,
        message=message,
    )


def _short_message(report: pytest.TestReport) -> str:
    """Why the test did not pass, in a few lines: the crash message, or the skip or xfail reason."""
    longrepr = report.longrepr
    if hasattr(report, "wasxfail"):
        reason = str(report.wasxfail).removeprefix("reason: ")
        prefix = "unexpectedly passed" if report.passed else "expected to fail"
        text = f"{prefix}: {reason}" if reason else prefix
    elif isinstance(longrepr, tuple) and len(longrepr) == 3:
        text = str(longrepr[2])  # a skip: (path, line, "Skipped: reason")
    elif getattr(longrepr, "reprcrash", None) is not None:
        text = longrepr.reprcrash.message
    else:
        text = str(longrepr or "")
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()][:_MESSAGE_LINES]
    shortened = "\n".join(lines)
    return shortened if len(shortened) <= _MESSAGE_CHARS else shortened[: _MESSAGE_CHARS - 1] + "…"
