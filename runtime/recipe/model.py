"""The recipe language: what a person writes in YAML, as pydantic models.

The same models produce `recipes/recipe.schema.json` (for editors) and validate loaded YAML, so the
editor's view of the language and the runtime's cannot drift apart. This module holds the recipe
and its top-level sections; a plan's steps are steps.py (the step kinds, one row each, and their
bodies in step_bodies.py), the conditions they judge conditions.py, the elements they find
locators.py. Semantic checks that need the whole recipe (placeholders, reachability, regexes,
wildcards) live in checks.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, PrivateAttr, field_validator, model_validator

from runtime.recipe.repair import Repair
from runtime.recipe.step_bodies import FileName
from runtime.recipe.switches import Switches
from runtime.recipe.steps import Step
from runtime.recipe.strict import Milliseconds, Strict
from runtime.recipe.tool_names import canonical_tools


# --- identity -------------------------------------------------------------------------------------


class InputSpec(Strict):
    type: Literal["string", "integer", "number", "boolean"] = Field(default="string", description="The input's type; `--input` text is converted to it.")
    description: str = Field(default="", description="What the input is for, for people running the recipe.")
    default: str | int | float | bool | None = Field(default=None, description="The value used when the input is not given; must be of `type`.")
    required: bool = Field(default=True, description="An input without a default must be given at run time.")
    secret: bool = Field(
        default=False,
        description="The value is a secret (a password, an API key): it is used where the recipe types it and shown as «secret:<name>» everywhere else (events, run files, report, traces, logs, model requests).",
    )


# --- intent and guards ------------------------------------------------------------------------------


class Intent(Strict):
    kind: Literal["auto", "browser_access", "general"] = Field(
        default="auto",
        description="`auto` detects the intent from the goal with `keywords` / `patterns` (or the model detector).",
    )
    keywords: list[str] = Field(
        default_factory=lambda: ["用浏览器", "浏览器访问", "open in browser", "use the browser", "in the browser"],
        description="Phrases that mark a browser task (matched case-insensitively in the goal).",
    )
    patterns: list[str] = Field(default_factory=list, description="Python regular expressions that mark a browser task.")


class IntentGuardBrowser(Strict):
    noFallback: bool = Field(default=True, description="Fail at preflight with intent_execution_failed when no browser tool is available.")
    networkAdjacentOnly: bool = Field(default=True, description="Allow only network-adjacent tools besides the browser, and only softBlockAfter times.")
    failTaskIfUnmet: bool = Field(default=True, description="Fail with intent_execution_failed when no browser tool succeeded by completion.")


class IntentGuard(Strict):
    enabled: bool = Field(default=True, description="Turn the intent guard on or off.")
    detector: Literal["heuristic", "model"] = Field(
        default="heuristic", description="How a browser task is detected: `heuristic` (keywords and patterns) or `model` (Gemini, falling back to the heuristic)."
    )
    softBlockAfter: int = Field(default=2, ge=0, le=100, description="How many network-adjacent tool calls a browser task may make.")
    browser: IntentGuardBrowser = Field(default_factory=IntentGuardBrowser, description="What the guard enforces once a task is a browser task.")


class Timeouts(Strict):
    step_ms: Milliseconds = Field(default=15_000, description="How long one step may take, in milliseconds (a step's `timeout_ms` overrides it).")
    verify_ms: Milliseconds = Field(default=5_000, description="How long a verification or a target check may take, in milliseconds.")
    click_result_ms: Milliseconds = Field(default=60_000, description="How long a search result click may take to reach an allowed domain.")
    run_ms: Annotated[int, Field(ge=1_000, le=3_600_000)] = Field(
        default=300_000, description="How long the whole run may take, in milliseconds (1000 to 3600000); then it stops with `timeout`."
    )


class Guards(Strict):
    max_steps: int = Field(default=50, ge=1, le=1000, description="Executed states at most, replans included.")
    max_replans: int = Field(default=3, ge=0, le=20, description="Searches for another page (the fallback ladder) before the run stops with replans_exhausted.")
    no_progress_window: int = Field(
        default=3, ge=2, le=50, description="Stop with no_progress when the last N actions repeat one signature or alternate A-B-A-B."
    )
    timeouts: Timeouts = Field(default_factory=Timeouts, description="Time limits for steps, verifications, search result clicks and the whole run.")
    intentGuard: IntentGuard = Field(default_factory=IntentGuard, description="The intent guard: detect browser tasks and keep them on browser tools.")


# --- target -----------------------------------------------------------------------------------------


class Target(Strict):
    start_url: str = Field(description="Where the run starts; may use {placeholders}.")
    allowed_domains: list[str] = Field(
        default_factory=list,
        description="Hosts the run may visit. `*.example.com` matches subdomains only, not example.com itself.",
    )
    validation_keywords: list[str] = Field(default_factory=list, description="Words the target page must contain (title or text).")
    expected_status: int = Field(default=200, ge=100, le=599, description="The HTTP status the target page must answer with.")
    allow_private_network: bool = Field(
        default=False,
        description=(
            "Let the run reach private addresses (loopback, RFC 1918, link-local, cloud metadata) that allowed_domains admits. "
            "An allowed_domains entry that is itself an IP literal or a localhost name needs no switch. "
            "Over gRPC the server's allow_private_network decides instead."
        ),
    )


# --- tools ------------------------------------------------------------------------------------------


class Tools(Strict):
    allow: list[str] | None = Field(
        default=None, description="Tools the run may use; all registered tools when omitted. Old names (open_url, browser_select, browser_press, browser_wait) mean their new ones."
    )
    needs_approval: list[str] = Field(default_factory=list, description="Tools that wait for a person's confirmation.")
    registry: str | None = Field(default=None, description="A directory of JSON/YAML tool descriptors, relative to the recipe.")

    @field_validator("allow", "needs_approval", mode="after")
    @classmethod
    def _new_names(cls, names: list[str] | None) -> list[str] | None:
        return canonical_tools(names)


# --- fallback and output ----------------------------------------------------------------------------


class SearchWait(Strict):
    """One signal that a search page has drawn its results."""

    text: str | None = Field(default=None, description="The results page shows this text; may use {placeholders}.")
    selector: str | None = Field(default=None, description="An element matching this CSS selector is visible.")
    network_idle: bool | None = Field(default=None, description="The page has loaded and fetched nothing new for half a second.")

    @model_validator(mode="after")
    def _one_signal(self) -> SearchWait:
        given = [k for k in ("text", "selector", "network_idle") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of text, selector, network_idle (got {', '.join(given) or 'none'})")
        return self


class Fallback(Strict):
    search_url: str | None = Field(default=None, description="A search page URL template containing {query}.")
    queries: list[str] | None = Field(default=None, description="The query ladder, strict to loose; generated when omitted.")
    max_results: int = Field(default=5, ge=1, le=50, description="Search results considered per query.")
    result_selector: str | None = Field(
        default=None, description="A CSS selector for the result links (`a` elements or elements containing one); every link of the page when omitted."
    )
    wait_for: SearchWait | None = Field(
        default=None, description="What shows that the results are there before links are read; by default the result links must stop changing."
    )


class Session(Strict):
    """Cookies and localStorage carried between runs, in Playwright's storageState JSON shape
    ({cookies: [...], origins: [{origin, localStorage: [{name, value}]}]}). Both files are
    secrets: only counts and the path ever reach events, run files or reports."""

    storage_state: str | None = Field(
        default=None,
        description="A storage-state file loaded before the run (relative to the recipe); cookies and origins outside allowed_domains are left out.",
    )
    save_storage_state: str | None = Field(
        default=None,
        description="Where a completed run writes its cookies and localStorage (relative to the recipe; created owner-only, 0600).",
    )


# The output schema of a recipe that names none: any object.
ANY_OBJECT_SCHEMA: dict[str, Any] = {"type": "object"}


class Output(Strict):
    schema_: dict[str, Any] = Field(
        default_factory=lambda: dict(ANY_OBJECT_SCHEMA), alias="schema", description="A JSON Schema the structured result must satisfy."
    )
    values: dict[Annotated[str, Field(min_length=1, max_length=100)], Any] | None = Field(
        default=None,
        description=(
            "The result, key by key: each value may use {placeholders} such as `{steps.read.price}` (one placeholder as the whole "
            "string keeps the value's type). Every extracted field when omitted."
        ),
    )


# --- the recipe -------------------------------------------------------------------------------------


class Recipe(Strict):
    name: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9._-]{0,99}$", description="Lowercase name, used to start runs by name.")]
    version: str = Field(default="1", description="The recipe's own version, recorded in every plan.")
    description: str = Field(default="", description="What the recipe does, for people choosing one.")
    goal: str = Field(description="What the run is for, in the user's words; may use {placeholders}.")
    inputs: dict[Annotated[str, Field(pattern=r"^[a-z_][a-z0-9_]*$")], InputSpec] = Field(
        default_factory=dict, description="Named inputs, given with `--input name=value`; {name} uses one in a templated field."
    )
    intent: Intent = Field(default_factory=Intent, description="How a browser task is recognised in the goal.")
    target: Target = Field(description="Where the run starts and which pages count as the right ones.")
    guards: Guards = Field(default_factory=Guards, description="Limits and guardrails: steps, replans, no-progress, timeouts, the intent guard.")
    tools: Tools = Field(default_factory=Tools, description="Which tools the run may use and which need a person's approval.")
    plan: Annotated[list[Step], Field(min_length=1)] = Field(description="The steps, run in order unless `next` or `on_failure` say otherwise.")
    repair: Repair | None = Field(
        default=None,
        description="Let an agent repair any step that can be repaired (act with `expect`, verify, agent) when it ends in execute_error, verification_failed or no_progress.",
    )
    switches: Switches = Field(
        default_factory=Switches, description="Roll a strategy back: no_progress, auto_repair, sticky_tab, verify (strict or lenient for named act kinds); run options override them."
    )
    fallback: Fallback = Field(default_factory=Fallback, description="The search used to find another page when the target is blocked.")
    output: Output = Field(default_factory=Output, description="The structured result the run brings back.")
    session: Session = Field(default_factory=Session, description="Cookies and localStorage loaded before the run and saved after it.")
    files: dict[FileName, str] = Field(
        default_factory=dict,
        description=(
            "Files a run may upload (an act's `upload`, an agent's browser_file_upload), name -> path relative to the recipe's directory, "
            "which each must stay inside. Steps and models name them, never a path."
        ),
    )
    # The directory of the recipe's file, when it came from one: relative session files resolve there.
    _directory: Path | None = PrivateAttr(default=None)

    @property
    def directory(self) -> Path | None:
        return self._directory

    def step_ids(self) -> list[str]:
        """Every step's id: its own, or `step-N` (1-based) when it has none."""
        return [step.id or f"step-{i + 1}" for i, step in enumerate(self.plan)]
