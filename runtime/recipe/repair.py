"""`repair:` (seed 004 decision 5, the auto-repair boundary): when a plan step ends in
`execute_error`, `verification_failed` or `no_progress`, and only then, an agent gets one more try
at the step, judged by the step's own verification.

A recipe may say it once for every step that can be repaired, a step for itself (the step's own
`repair` wins). A step can be repaired when it has a verification that can judge the page after
someone else acted: a verify step's conditions, an agent step's `done_when`, an act's `expect`
(its page conditions; an act's own effect or `page_changed` belongs to its own gesture and cannot
judge another's).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal

from pydantic import Field

from runtime.recipe.strict import Strict

EXECUTE_ERROR = "execute_error"
VERIFICATION_FAILED = "verification_failed"
NO_PROGRESS = "no_progress"
# The ADR's three triggers, and nothing else: a page blocker (login_required, domain_not_allowed
# ...) has its own path (the replan), a guard its own stop.
REPAIR_TRIGGERS = (EXECUTE_ERROR, VERIFICATION_FAILED, NO_PROGRESS)
Trigger = Literal["execute_error", "verification_failed", "no_progress"]

# The expectation keys of an act that judge a page (not its own gesture), as conditions.
_PAGE_EXPECTATIONS = ("url_includes", "url_matches", "text_includes", "element", "not")


class Repair(Strict):
    """Let an agent repair a failed step, within the step's guards; the step's own verification judges it."""

    with_: Literal["agent"] = Field(alias="with", description="Who repairs: `agent` (the run's model, VERITY_MODEL or the default).")
    on: Annotated[list[Trigger], Field(min_length=1)] = Field(
        default_factory=lambda: list(REPAIR_TRIGGERS),
        description="The failures that start a repair, among execute_error, verification_failed and no_progress (all three when omitted). Page blockers never do.",
    )
    max_attempts: int = Field(default=1, ge=1, le=5, description="Agent attempts at most (1 to 5); each is judged by the step's own verification.")
    max_steps: int = Field(default=8, ge=1, le=50, description="Tool calls each attempt may make at most (1 to 50).")


def repair_conditions(kind: str, body: Any) -> list[dict[str, Any]] | None:
    """The conditions that judge a repair of a step of `kind` with `body` (recipe keys), or None
    when the step has no verification that could judge another's work."""
    if kind == "verify":
        return [_condition(c) for c in body]
    if kind == "agent":
        return [_condition(c) for c in body.done_when]
    if kind == "act" and body.expect is not None:
        expect = body.expect.model_dump(mode="json", exclude_none=True, by_alias=True)
        conditions = [{key: expect[key]} for key in _PAGE_EXPECTATIONS if key in expect]
        return conditions or None
    return None


def _condition(condition: Any) -> dict[str, Any]:
    return dict(condition.model_dump(mode="json", exclude_none=True, by_alias=True))


def repair_of(recipe_repair: Repair | None, step: Any) -> Repair | None:
    """The repair a step has: its own, else the recipe's when the step can be repaired."""
    if step.repair is not None:
        return step.repair  # type: ignore[no-any-return]
    if recipe_repair is not None and repair_conditions(step.kind, getattr(step, step.kind)) is not None:
        return recipe_repair
    return None


def check_repairs(steps: Iterator[tuple[tuple[str | int, ...], Any]]) -> Iterator[tuple[tuple[str | int, ...], str, str]]:
    """A step's own `repair` needs a verification that can judge it (see the module docstring)."""
    for path, step in steps:
        if step.repair is None:
            continue
        if repair_conditions(step.kind, getattr(step, step.kind)) is not None:
            continue
        if step.kind == "act":
            why = "an act is judged after a repair by its `expect` (url_includes, url_matches, text_includes, element or not): give it one"
        else:
            why = f"{'an' if step.kind[0] in 'aeiou' else 'a'} {step.kind} step has no verification to judge a repair; act (with `expect`), verify and agent steps can be repaired"
        yield path + ("repair",), f"this step cannot be repaired: {why}", "repair_unjudged"
