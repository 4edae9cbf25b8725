"""Binds features/guard_no_progress.feature: the detector fed with signatures the executor would build."""

from __future__ import annotations

from dataclasses import dataclass, field

from pytest_bdd import given, parsers, scenarios, then, when

from runtime.guard import NoProgressDetector, NoProgressVerdict, action_signature

scenarios("guard_no_progress.feature")


@dataclass
class ProgressRun:
    detector: NoProgressDetector
    verdicts: list[NoProgressVerdict] = field(default_factory=list)

    def act(self, tool: str, target: str, before: str, after: str) -> None:
        verdict = self.detector.record(action_signature(tool, target, before, after))
        if verdict is not None:
            self.verdicts.append(verdict)


@given(parsers.parse("a no-progress window of {window:d}"), target_fixture="run")
def _window(window: int) -> ProgressRun:
    return ProgressRun(NoProgressDetector(window))


@when(parsers.parse('the run clicks "{name}" on page "{before}" leading to page "{after}" {times:d} times'))
def _repeat(run: ProgressRun, name: str, before: str, after: str, times: int) -> None:
    for _ in range(times):
        run.act("browser_click", f"button:{name}", before, after)


@when(parsers.re(r'the run goes back and forth between pages "(?P<a>[^"]+)" and "(?P<b>[^"]+)" (?P<times>\d+) times?'))
def _round_trips(run: ProgressRun, a: str, b: str, times: str) -> None:
    for _ in range(int(times)):
        run.act("browser_click", f"link:{b}", a, b)
        run.act("browser_click", "link:back", b, a)


@when(parsers.parse('the run clicks through pages "{pages}"'))
def _progress(run: ProgressRun, pages: str) -> None:
    names = [p.strip() for p in pages.split(",")]
    for before, after in zip(names, names[1:]):
        run.act("browser_click", f"link:{after}", before, after)


@then(parsers.parse('the run stops with no_progress pattern "{pattern}"'))
def _stops(run: ProgressRun, pattern: str) -> None:
    assert len(run.verdicts) == 1, run.verdicts
    assert run.verdicts[0].pattern == pattern


@then(parsers.parse('the evidence holds {count:d} identical "{tool}" signatures'))
def _identical(run: ProgressRun, count: int, tool: str) -> None:
    evidence = run.verdicts[0].signatures
    assert len(evidence) == count and len(set(evidence)) == 1
    assert evidence[0].startswith(f"{tool}:")
    assert evidence[0] in run.verdicts[0].detail


@then("the evidence alternates between two signatures")
def _alternates(run: ProgressRun) -> None:
    evidence = run.verdicts[0].signatures
    a, b = evidence[0], evidence[1]
    assert a != b
    assert list(evidence) == [a, b] * (len(evidence) // 2)
    assert a in run.verdicts[0].detail and b in run.verdicts[0].detail


@then("the run goes on")
def _goes_on(run: ProgressRun) -> None:
    assert run.verdicts == []
