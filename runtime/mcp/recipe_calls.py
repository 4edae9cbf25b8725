"""One MCP tool call of a recipe: a run started and followed through the server's supervisor.

    calls = RecipeCalls(supervisor, catalog, runs_dir=Path(".verity/runs"), max_bytes=4 << 20)
    result = await calls.call(ctx, "site-search", {"site": "http://127.0.0.1:8000"})

The run is the same as a gRPC `Run`: prepared by `prepare_run` (inputs resolved, `@env:` read
from the server's environment, VERITY_SECRET_* names only), started by the supervisor, so it is
in the store, has its run directory, trace and report. While it runs, each state it enters or
finishes is a progress notification; a confirmation it asks for is put to the client as an MCP
elicitation (an `elicitation/create` request before protocol 2026-07-28; from it on, an
InputRequiredResult whose retry of the call brings the answer, the run waiting meanwhile), or
denied, saying why, when the client cannot be asked; a cancelled call stops the run (manual_stop)
and waits for its verdict to be recorded.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from runtime.events import ConfirmationRequested, Event, FinalVerdict, StatusChanged, StepFinished, StepStarted
from runtime.events.model import payload_to_dict
from runtime.mcp.recipe_tools import RunResult, recipe_tool
from runtime.mcp.run_resources import run_file_links
from runtime.plan.order import prepare_run
from runtime.recipe import Recipe, RecipeInvalid
from runtime.run_layout import OUTPUT_FILE
from runtime.service.runs.errors import RecipeNotFound, RunLimitReached, ServerShuttingDown
from runtime.service.runs.ledger import recorded_inputs
from runtime.service.runs.recipe_catalog import RecipeCatalog
from runtime.service.runs.sent_recipes import SERVER_ENV_PREFIX
from runtime.service.runs.supervisor import RunSupervisor

_log = logging.getLogger(__name__)

ToolAnswer = types.CallToolResult | types.InputRequiredResult

# What the client is asked when a run waits for a person's approval.
APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "title": "Approve", "description": "Let the run do this"},
        "reason": {"type": "string", "title": "Reason", "description": "Why (recorded with the run)"},
    },
    "required": ["approve"],
}
APPROVAL_KEY = "approval"
NO_ELICITATION = "the MCP client cannot answer approvals (it declared no elicitation capability); the run was not allowed to continue"


@dataclass(frozen=True)
class AwaitedApproval:
    """A run waiting for the answer a 2026-07-28 client was asked for in an InputRequiredResult:
    its retry of the same call brings it, with the state it was handed."""

    tool: str
    recipe: Recipe
    run_id: str
    request: ConfirmationRequested
    seq: int


class RecipeCalls:
    """The recipes of the catalog as tools, and their calls as runs of the supervisor."""

    def __init__(self, supervisor: RunSupervisor, catalog: RecipeCatalog, *, runs_dir: Path) -> None:
        self._supervisor = supervisor
        self._catalog = catalog
        self._runs_dir = runs_dir
        # Keyed by a random token only this server hands out: a client's echoed request_state
        # names nothing else (the spec has it treated as attacker-controlled).
        self._awaited: dict[str, AwaitedApproval] = {}

    def tools(self) -> list[types.Tool]:
        """One tool per valid recipe (an invalid file is left out, as ListRecipes marks it)."""
        return [recipe_tool(entry.recipe) for entry in self._catalog.entries() if entry.recipe is not None]

    async def call(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> ToolAnswer:
        if params.request_state is not None:
            return await self._resume(ctx, params)
        name, arguments = params.name, dict(params.arguments or {})
        try:
            loaded = self._catalog.load(name)
        except RecipeNotFound as error:
            raise MCPError(types.INVALID_PARAMS, str(error)) from None
        except RecipeInvalid as error:
            return _error_result(f"the recipe {name!r} is invalid", [str(problem) for problem in error.problems])
        try:
            order = prepare_run(
                loaded.recipe, arguments, registry=loaded.registry, environ=os.environ, env_prefix=SERVER_ENV_PREFIX, source="arguments"
            )
        except RecipeInvalid as error:
            # The caller (often a model) can correct its arguments: a tool error, not a protocol one.
            return _error_result("the arguments are not valid inputs of the recipe; nothing ran", [str(problem) for problem in error.problems])
        try:
            live = await self._supervisor.start(order, raw_inputs=recorded_inputs(order.plan, _as_text(arguments)))
        except (RunLimitReached, ServerShuttingDown) as error:
            return _error_result(f"the run was not started: {error}", [])
        return await self._follow(ctx, name, loaded.recipe, live.run_id, 0)

    async def _resume(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> ToolAnswer:
        awaited = self._awaited.get(params.request_state or "")
        if awaited is None or awaited.tool != params.name:
            raise MCPError(types.INVALID_PARAMS, "request_state is not one this server handed out for this tool, or it was answered already")
        del self._awaited[params.request_state or ""]
        answer = (params.input_responses or {}).get(APPROVAL_KEY)
        if isinstance(answer, types.ElicitResult):
            await self._answer(awaited.run_id, awaited.request, *_approval_of(answer))
        else:
            await self._answer(awaited.run_id, awaited.request, False, "the MCP client retried without answering the approval")
        return await self._follow(ctx, awaited.tool, awaited.recipe, awaited.run_id, awaited.seq)

    async def _follow(self, ctx: ServerRequestContext[Any], tool: str, recipe: Recipe, run_id: str, after_seq: int) -> ToolAnswer:
        """Follow the run to its verdict (or to a question a 2026-07-28 client answers in its retry)."""
        verdict: dict[str, Any] | None = None
        handed_over = False
        try:
            async with aclosing(self._supervisor.follow(run_id, after_seq)) as batches:
                async for batch in batches:
                    for event in batch:
                        await _report_progress(ctx, run_id, event)
                        payload = event.payload
                        if isinstance(payload, ConfirmationRequested):
                            if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS and _can_elicit(ctx):
                                handed_over = True
                                return self._question(AwaitedApproval(tool, recipe, run_id, payload, event.seq))
                            await self._ask_approval(ctx, run_id, payload)
                        elif isinstance(payload, FinalVerdict):
                            verdict = payload_to_dict(payload)
        finally:
            if verdict is None and not handed_over:
                # The call was cancelled (or its connection went): the run must not go on unwatched.
                with anyio.CancelScope(shield=True):
                    await self._supervisor.stop(run_id)
        run_dir = self._runs_dir / run_id
        return RunResult(run_id, verdict or {}, _read_output(run_dir), run_file_links(run_id, run_dir)).tool_result(recipe)

    def _question(self, awaited: AwaitedApproval) -> types.InputRequiredResult:
        token = secrets.token_urlsafe(24)
        self._awaited[token] = awaited
        request = types.ElicitRequest(params=types.ElicitRequestFormParams(message=_approval_message(awaited.run_id, awaited.request), requested_schema=APPROVAL_SCHEMA))
        return types.InputRequiredResult(input_requests={APPROVAL_KEY: request}, request_state=token)

    async def _ask_approval(self, ctx: ServerRequestContext[Any], run_id: str, request: ConfirmationRequested) -> None:
        """Put the run's confirmation to the client as an elicitation request (clients before
        2026-07-28); deny it, saying why, when nobody can be asked."""
        if not _can_elicit(ctx) or not ctx.session.can_send_request:
            await self._answer(run_id, request, False, NO_ELICITATION)
            return
        try:
            answer = await ctx.session.elicit_form(_approval_message(run_id, request), APPROVAL_SCHEMA, related_request_id=ctx.request_id)
        except MCPError as error:
            await self._answer(run_id, request, False, f"the MCP client could not be asked for approval: {error}")
            return
        await self._answer(run_id, request, *_approval_of(answer))

    async def _answer(self, run_id: str, request: ConfirmationRequested, approve: bool, reason: str) -> None:
        try:
            await self._supervisor.confirm(run_id, request.request_id, approve, reason)
        except Exception as error:  # noqa: BLE001 - the run ended or moved on meanwhile; its verdict says how
            _log.info("run %s: confirmation %s not answered: %s", run_id, request.request_id, error)


def _can_elicit(ctx: ServerRequestContext[Any]) -> bool:
    capabilities = ctx.session.client_capabilities
    return capabilities is not None and capabilities.elicitation is not None


def _approval_message(run_id: str, request: ConfirmationRequested) -> str:
    return f"Run {run_id} asks for approval: {request.summary} (tool {request.tool})"


def _approval_of(answer: types.ElicitResult) -> tuple[bool, str]:
    content = answer.content or {}
    approved = answer.action == "accept" and content.get("approve") is True
    return approved, str(content.get("reason") or "") or f"{answer.action} over MCP elicitation"


async def _report_progress(ctx: ServerRequestContext[Any], run_id: str, event: Event) -> None:
    """A state entered or finished, or a status change, as a progress notification (a no-op when
    the call asked for none). The event's seq is the progress: it only grows. A status change
    names the run, so a client that cancels the call still knows which run it stopped."""
    payload = event.payload
    if isinstance(payload, StepStarted):
        message = f"{payload.state_id}: started ({payload.step_kind})"
    elif isinstance(payload, StepFinished):
        message = f"{payload.state_id}: {payload.outcome}" + (f" ({payload.blocker_kind.value})" if payload.blocker_kind else "")
    elif isinstance(payload, StatusChanged):
        message = f"run {run_id} {payload.status.value}" + (f": {payload.detail}" if payload.detail else "")
    else:
        return
    await ctx.session.report_progress(float(event.seq), None, message)


def _as_text(arguments: dict[str, Any]) -> dict[str, str]:
    """Arguments as a run record keeps inputs (text, as gRPC sends them)."""
    return {name: value if isinstance(value, str) else json.dumps(value) for name, value in arguments.items()}


def _read_output(run_dir: Path) -> dict[str, Any] | None:
    try:
        return json.loads((run_dir / OUTPUT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _error_result(headline: str, problems: list[str]) -> types.CallToolResult:
    text = "\n".join([headline, *problems])
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
