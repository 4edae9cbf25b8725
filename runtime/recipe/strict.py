"""What every mapping of the recipe language shares: unknown keys are errors, values are frozen;
and the field types several of them use."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

StepId = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,63}$", description="A step id: lowercase letters, digits, '-' or '_'.")]
Milliseconds = Annotated[int, Field(ge=100, le=600_000, description="A duration in milliseconds (100 to 600000).")]
TabName = Annotated[
    str,
    Field(
        pattern=r"^[a-z][a-z0-9_-]{0,63}$",
        description="A tab: `new` (the tab opened most recently), `primary`, or a name a step gave with `as` (lowercase letters, digits, '-' or '_').",
    ),
]
VarName = Annotated[str, Field(pattern=r"^[a-z_][a-z0-9_]{0,63}$", description="A variable name: lowercase letters, digits and '_'.")]


class Strict(BaseModel):
    """Base for every recipe mapping: unknown keys are errors (reported with a did-you-mean)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
