"""`switches:` (seed 004 section 6): each of the run's newer strategies can be rolled back on its
own, by the recipe or by a run option, without a new release. The defaults are the strategies
as they are; a switch set differently is recorded in the run's events and verdict."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from runtime.recipe.step_bodies import ACT_KINDS
from runtime.recipe.strict import Strict

ActKind = Literal[ACT_KINDS]  # type: ignore[valid-type]


class LenientVerify(Strict):
    lenient: Annotated[list[ActKind], Field(min_length=1)] = Field(
        description="Act kinds (click, hover, scroll ...) that count as done once their gesture ran, without an effect of their own; an act's explicit `expect` is still judged."
    )


class Switches(Strict):
    no_progress: bool = Field(default=True, description="Stop a run whose actions repeat without changing the page (no_progress); false turns the detector off.")
    auto_repair: bool = Field(default=True, description="Let `repair` run; false leaves every failure as it is, as if no step had `repair`.")
    sticky_tab: bool = Field(
        default=True, description="The primary tab moves only by a `switch_tab` step; false: a tab a step opens becomes the primary tab, as an active tab would."
    )
    verify: Literal["strict"] | LenientVerify = Field(
        default="strict", description="`strict`: every act must show an effect of its own (or its `expect`); `{lenient: [kinds]}` relaxes that for the act kinds named."
    )
    cache: Literal["use", "bypass", "refresh"] = Field(
        default="use",
        description="The verified action cache: `use` replays an agent step's cached path (and learns one after a verified run); `bypass` neither reads nor writes it; `refresh` learns afresh without replaying.",
    )
