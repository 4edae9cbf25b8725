"""An MCP session's browser: one served run whose one agent step is driven by the MCP client.

The client is the step's model (a `DrivenModel`): each browser tool it calls is the model's next
tool call, run by the agent's own tool-call path (runtime/execute/agent/) with everything a
recipe's agent step has: the network fence on the session's allowed domains, every act proven by
its effect (`page_changed`, what changed or why it is unproven), each new page target-checked
(its blocker kind), secrets typed by marker and redacted from everything sent back, the no-progress
guard, the store, traces and the report. The answer to a call is the tool's result as the agent
gets it, and the page as the agent's next prompt shows it (the aria-YAML tree with its refs).

    sessions = BrowserSessions(supervisor, BrowserToolset(allowed_domains=("127.0.0.1",)))
    answer = await sessions.call("stdio", "browser_navigate", {"url": "http://127.0.0.1:8000/"})

Each MCP session gets its own run, so its own isolated browser context on the server's one
browser. The run ends when the client calls `browser_close`, when its time or step guards run out,
or when the server stops; the next call then starts a new run (new context, nothing kept).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from typing import Any

from runtime.events import FinalVerdict
from runtime.execute.agent.client_tools import EVALUATE_TOOL, SCREENSHOT_TOOL
from runtime.execute.agent.page_view import KEEP_SAME_PARAM
from runtime.events.model import payload_to_dict
from runtime.llm import LlmDone, LlmError, LlmErrorCode, LlmEvent, LlmReply, LlmToolCall
from runtime.llm.providers.model_client import ChatRequest, DrivenModel
from runtime.llm.settings import ApiKey, ModelSettings
from runtime.mcp.shown_pages import FULL, INCREMENTAL, ShownPage
from runtime.plan.order import prepare_run
from runtime.plan.state_kinds import AGENT
from runtime.recipe import load_recipe_with_registry
from runtime.recipe.tool_registry import AGENT_DEFAULT_TOOLS, UPLOAD_TOOL
from runtime.service.runs.supervisor import RunSupervisor

_log = logging.getLogger(__name__)

SESSION_RECIPE_NAME = "mcp-browser-session"
# The agent step's own completion tool: the session's run ends when the client (or its end) calls it.
CLOSE_CALL = "close"
# An MCP session's browser calls at most: the run's own guard (guards.max_steps' ceiling).
SESSION_MAX_CALLS = 1000
SESSION_RUN_MS = 1_800_000
# How long a session's browser waits for its client's next call before it is closed.
DEFAULT_IDLE_SECONDS = 600.0
IDLE_CLOSE = "the MCP client called no browser tool for its session's idle time: its browser was closed"
_PAGE_SECTION = re.compile(r"<page>\n(?P<page>.*?)\n</page>", re.DOTALL)


def session_tools(toolset: BrowserToolset) -> list[str]:
    """The tools a session's agent step offers its client: a model's default set (no file upload:
    a session declares no files), the client's own tools, and `close`."""
    defaults = [name for name in AGENT_DEFAULT_TOOLS if name not in (UPLOAD_TOOL, CLOSE_CALL)]
    return [*defaults, SCREENSHOT_TOOL, *([EVALUATE_TOOL] if toolset.evaluate else []), CLOSE_CALL]


def session_recipe(toolset: BrowserToolset) -> str:
    """The recipe every MCP browser session runs: one agent step the client drives, fenced to the
    toolset's allowed domains. Its page check has no keywords: any allowed page without a blocker is valid.
    With browser_evaluate, the recipe names its tools in tools.allow, as any recipe running page scripts must."""
    tools = session_tools(toolset)
    allowed = f"tools:\n  allow: {json.dumps(tools)}\n" if toolset.evaluate else ""
    if toolset.secrets:
        declared = ", ".join(f"{name}: {{type: string, secret: true}}" for name in toolset.secret_names)
        allowed += f"inputs: {{{declared}}}\n"
    return f"""\
name: {SESSION_RECIPE_NAME}
goal: use the browser as the MCP client directs, on the allowed domains only
target:
  start_url: "about:blank"
  allowed_domains: {json.dumps(list(toolset.allowed_domains))}
guards:
  max_steps: {SESSION_MAX_CALLS}
  no_progress_window: 50
  timeouts: {{run_ms: {SESSION_RUN_MS}}}
{allowed}plan:
  - id: browse
    agent:
      task: do what the MCP client asks, one tool call at a time
      tools: {json.dumps(tools)}
      done_when: [{{url_matches: ".*"}}]
"""


@dataclass(frozen=True)
class BrowserToolset:
    """`verity mcp`'s browser tools: the sessions' allowed domains (none: no browser tools), and
    how long a session's browser waits for its client's next call before it is closed."""

    allowed_domains: tuple[str, ...] = ()
    idle_seconds: float = DEFAULT_IDLE_SECONDS
    # browser_evaluate offered (`verity mcp --allow-evaluate`): page scripts are never implicit.
    evaluate: bool = False
    # Secrets a client may type by name (`--secret NAME=@env:VAR`): NAME -> "@env:VAR", never a
    # value. Each is a secret input of every session's run, read from the environment as an
    # `@env:` input of any run is, so it is redacted wherever the run writes or answers.
    secrets: tuple[tuple[str, str], ...] = ()
    # `verity mcp --snapshot-mode`: incremental leaves out a tree the client was already sent
    # (shown_pages.py); full sends every answer's whole page, for clients that keep no context.
    snapshot_mode: str = INCREMENTAL

    @property
    def secret_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.secrets)


@dataclass(frozen=True)
class TurnAnswer:
    """What one browser tool call comes to: the agent's tool result and the page its next prompt
    shows; or, when the session's run ended instead, its verdict."""

    result: dict[str, Any] = field(default_factory=dict)
    page: str = ""
    ended: dict[str, Any] | None = None
    # The snapshot whose trees the page section left out: the client was last sent them, and
    # their refs still act (shown_pages.py). `page` then holds only what changed, if anything.
    unchanged: str = ""


class ClientTurns:
    """The agent step's model (a `ModelClient`): asked for a turn, it hands the step the client's
    next call, and hands the client the result of its previous call with the page as this turn's
    prompt shows it. The gateway around it redacts what it is given: no secret reaches the client."""

    def __init__(self, idle_seconds: float = DEFAULT_IDLE_SECONDS) -> None:
        self.idle_seconds = idle_seconds
        self._calls: asyncio.Queue[tuple[LlmToolCall, asyncio.Future[TurnAnswer]]] = asyncio.Queue()
        self._answering: tuple[LlmToolCall, asyncio.Future[TurnAnswer]] | None = None
        self._count = 0
        self.ended: dict[str, Any] | None = None

    async def ask(self, tool: str, arguments: dict[str, Any]) -> TurnAnswer:
        if self.ended is not None:
            return TurnAnswer(ended=self.ended)
        self._count += 1
        answered: asyncio.Future[TurnAnswer] = asyncio.get_running_loop().create_future()
        await self._calls.put((LlmToolCall(f"mcp-{self._count}", tool, arguments), answered))
        return await answered

    def end(self, verdict: dict[str, Any]) -> None:
        """The run ended: every call still waiting is answered with its verdict."""
        self.ended = verdict
        waiting = [self._answering] if self._answering else []
        while not self._calls.empty():
            waiting.append(self._calls.get_nowait())
        for _, answered in waiting:
            if not answered.done():
                answered.set_result(TurnAnswer(ended=verdict))

    async def stream(self, request: ChatRequest) -> AsyncIterator[LlmEvent]:
        self._answer_previous(request)
        try:
            call, answered = await asyncio.wait_for(self._calls.get(), self.idle_seconds)
        except asyncio.TimeoutError:
            # A client that went away (an HTTP session is never told to end) must not hold a
            # browser context and a run slot: the step is closed for it, and the run ends.
            yield LlmToolCall("mcp-idle", CLOSE_CALL, {"summary": f"{IDLE_CLOSE} ({self.idle_seconds:g} s)"})
            yield LlmDone(finish_reason="tool_call", model="mcp-client")
            return
        self._answering = (call, answered)
        yield call
        yield LlmDone(finish_reason="tool_call", model="mcp-client")

    def _answer_previous(self, request: ChatRequest) -> None:
        if self._answering is None:
            return
        call, answered = self._answering
        self._answering = None
        result = next((m.result for m in reversed(request.messages) if m.answers is not None and m.answers.tool_call_id == call.tool_call_id), None)
        found = _PAGE_SECTION.search(request.system)
        if not answered.done():
            answered.set_result(TurnAnswer(dict(result or {}), found["page"] if found else ""))

    async def complete(self, request: ChatRequest) -> LlmReply:
        raise LlmError(LlmErrorCode.INVALID_SETTINGS, "an MCP client drives agent steps turn by turn; it answers no whole requests")

    def map_error(self, error: Exception, attempts: int, request: ChatRequest) -> LlmError:
        raise error

    async def aclose(self) -> None:
        """The agent step closes its gateway; the session's turns outlive it until the run ends."""


@dataclass
class BrowserSession:
    run_id: str
    turns: ClientTurns
    follower: asyncio.Task[None] | None = None
    shown: ShownPage = field(default_factory=ShownPage)


class BrowserSessions:
    """The browser sessions of this server, one per MCP session key, each a served run."""

    def __init__(self, supervisor: RunSupervisor, toolset: BrowserToolset) -> None:
        self._supervisor = supervisor
        self.toolset = toolset
        self._idle_seconds = toolset.idle_seconds
        recipe, registry = load_recipe_with_registry(session_recipe(toolset), f"<{SESSION_RECIPE_NAME}>")
        # The named secrets are read from this environment now, as `@env:` inputs of any run are.
        secrets = dict(toolset.secrets)
        order = prepare_run(recipe, secrets, registry=registry, labels={"mcp": "browser-session"}, environ=os.environ, source="--secret")
        # The client, not a model, chooses each call: the step's turns are bounded by the run's
        # guards (guards.max_steps, the run's time), not by a model's per-step allowance.
        # Its trees keep their snapshot id while the page reads the same, so a client told a
        # page is unchanged still holds refs that act (shown_pages.py).
        params = {"max_steps": SESSION_MAX_CALLS, KEEP_SAME_PARAM: True}
        states = [s.model_copy(update={"params": {**s.params, **params}}) if s.kind == AGENT else s for s in order.plan.states]
        self._order = replace(order, plan=order.plan.model_copy(update={"states": states}))
        self._sessions: dict[str, BrowserSession] = {}
        self._opening = asyncio.Lock()

    async def call(self, key: str, tool: str, arguments: dict[str, Any], full: bool = False) -> tuple[str, TurnAnswer]:
        """Run one browser tool in `key`'s session (started if it has none running): its run id and
        answer, whose page leaves out trees the client was already sent unless `full` (or the
        toolset's snapshot mode is full)."""
        session = await self._session(key)
        answer = await session.turns.ask(tool, arguments)
        if answer.ended is not None or not answer.page:
            return session.run_id, answer
        page, unchanged = session.shown.fold(answer.page, full or self.toolset.snapshot_mode == FULL)
        return session.run_id, replace(answer, page=page, unchanged=unchanged) if unchanged else answer

    async def _session(self, key: str) -> BrowserSession:
        async with self._opening:
            session = self._sessions.get(key)
            if session is not None and session.turns.ended is None:
                return session
            turns = ClientTurns(self._idle_seconds)
            settings = ModelSettings(api_key=ApiKey(""), provider="mcp_client", model="mcp-client", base_url="mcp://client")
            live = await self._supervisor.start(self._order, raw_inputs={}, driven_model=DrivenModel(turns, settings))
            session = BrowserSession(live.run_id, turns)
            session.follower = asyncio.ensure_future(self._follow(session))
            self._sessions[key] = session
            return session

    async def _follow(self, session: BrowserSession) -> None:
        """Ends the session's turns with its run's verdict, however the run ended."""
        verdict: dict[str, Any] = {"stop_reason": "interrupted", "summary": "the session's run could not be followed"}
        try:
            async with aclosing(self._supervisor.follow(session.run_id, 0)) as batches:
                async for batch in batches:
                    for event in batch:
                        if isinstance(event.payload, FinalVerdict):
                            verdict = payload_to_dict(event.payload)
        except Exception:  # noqa: BLE001 - the session ends either way; its calls must be answered
            _log.exception("browser session %s: following its run failed", session.run_id)
        finally:
            session.turns.end({"run_id": session.run_id, **verdict})

    async def end(self, key: str, summary: str) -> None:
        """The MCP session `key` ended: its browser is closed (its run ends completed, with
        `summary`), as browser_close would; a session with no run has nothing to close."""
        async with self._opening:
            session = self._sessions.pop(key, None)
        if session is not None and session.turns.ended is None:
            await session.turns.ask(CLOSE_CALL, {"summary": summary})

    async def close(self, key: str) -> None:
        """`browser_close` for a session that has no run: nothing to close."""
        self._sessions.pop(key, None)
