"""Details of the then-step rule (runtime.gate.then_checks), judged in process on functions defined here."""

from __future__ import annotations

from pathlib import Path

from runtime.gate.then_checks import ThenStepJudge, definition_site

REPO_ROOT = Path(__file__).resolve().parents[2]
JUDGE = ThenStepJudge(REPO_ROOT)


class Ledger:
    def __init__(self, total: int) -> None:
        self.total = total

    def balanced(self) -> None:
        self._must_be_zero()

    def _must_be_zero(self) -> None:
        if self.total:
            raise AssertionError(self.total)

    def describe(self) -> str:
        return f"total {self.total}"


def _ping(depth: int) -> None:
    _pong(depth)  # mutual recursion that never checks anything


def _pong(depth: int) -> None:
    _ping(depth - 1)


def _countdown(depth: int) -> None:
    if depth:
        _countdown(depth - 1)
    assert depth == 0


def test_a_method_reached_through_self_counts() -> None:
    def then_step(ledger: Ledger) -> None:
        ledger.balanced()

    assert JUDGE.checks_something(then_step)


def test_a_method_that_only_describes_does_not_count() -> None:
    def then_step(ledger: Ledger) -> None:
        ledger.describe()

    assert not JUDGE.checks_something(then_step)


def test_recursion_ends_and_only_a_real_check_counts() -> None:
    def mutual() -> None:
        _ping(3)

    def recursive() -> None:
        _countdown(3)

    assert not JUDGE.checks_something(mutual)
    assert JUDGE.checks_something(recursive)


def test_a_nested_function_the_body_never_refers_to_does_not_count() -> None:
    def then_step(total: int) -> None:
        def unused() -> None:
            assert total == 5

        print(total)

    assert not JUDGE.checks_something(then_step)


def test_library_code_is_not_project_code() -> None:
    import json

    assert JUDGE.is_project_code(_countdown)
    assert not JUDGE.is_project_code(json.loads)


def test_the_definition_site_is_the_def_line_below_its_decorators() -> None:
    path, line, name = definition_site(_decorated)
    assert (Path(path), name) == (Path(__file__).resolve(), "_decorated")
    source_lines = Path(__file__).read_text(encoding="utf-8").splitlines()
    assert source_lines[line - 1].startswith("def _decorated(")


def _identity(function):  # a decorator that keeps the function
    return function


@_identity
@_identity
def _decorated() -> None:
    assert True


def _first_half(depth: int) -> None:
    assert depth >= 0
    _second_half(depth)


def _second_half(depth: int) -> None:
    if depth:
        _first_half(depth - 1)  # checks only through _first_half, which is mid-judgement when this is reached


def test_a_function_judged_inside_a_cycle_is_judged_again_from_the_top() -> None:
    judge = ThenStepJudge(REPO_ROOT)
    assert judge.checks_something(_first_half)
    assert judge.checks_something(_second_half)
