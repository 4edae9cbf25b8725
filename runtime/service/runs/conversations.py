"""Conversations a server hosts (RunOptions.conversation): each message a turn of its run.

A message becomes a turn's plan here, compiled from the run's own recipe with the message's steps
in place of its plan (`TurnCompiler`): the same target, allowed domains, guards, tools and inputs,
so the turn runs under the recipe's guards and fence, and in the run's context under its secrets
(runtime/execute/conversation.py). Steps a client sends are loaded by the policy for recipes sent
by clients (sent_recipes.py), whatever the run's recipe came from; the recipe's session files, files
to upload and output schema belong to its first turn only. Words go to one agent step, which needs
a model: without one, a text message is refused before anything runs.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import yaml

from runtime.events import ConversationMessage, Event
from runtime.execute.conversation import MODEL, TOOL, Conversation, NotOngoing, Turn
from runtime.llm.errors import LlmError
from runtime.llm.settings import ModelSettings
from runtime.plan.compiler import compile_recipe
from runtime.outcomes import StopReason
from runtime.plan.model import Plan
from runtime.service.runs.errors import InvalidRequest, NoModel, RunNotFound, RunNotOngoing
from runtime.service.runs.live_run import LiveRun
from runtime.service.runs.recipe_catalog import LoadedRecipe
from runtime.service.runs.registry_confinement import RegistryRoot
from runtime.service.runs.sent_recipes import load_sent_recipe
from runtime.store import BufferedRunStore, RunRecord

_log = logging.getLogger(__name__)
# Where the problems of a message's steps say they are.
MESSAGE_SOURCE = "<message>"
# Recipe sections that belong to the first turn: files on the server's disk, and its output schema.
FIRST_TURN_ONLY = ("session", "files", "output")
# Events read from the store at a time while collecting a conversation's messages.
MESSAGE_READ_BATCH = 1000


@dataclass(frozen=True)
class TurnCompiler:
    """How a conversation's messages become turn plans: its run's recipe, and where steps sent by
    clients may name tool registries."""

    loaded: LoadedRecipe
    registry_root: RegistryRoot

    def turn(self, number: int, *, text: str = "", steps_yaml: str = "") -> Turn:
        """Turn `number`'s plan for a message: `text` for the run's model, or recipe `steps_yaml`.
        InvalidRequest for steps that are not a list of steps, NoModel for words nobody can read,
        RecipeInvalid for steps the recipe language refuses."""
        if steps_yaml:
            try:
                steps = yaml.safe_load(steps_yaml)
            except yaml.YAMLError as error:
                raise InvalidRequest("steps_yaml", f"is not YAML: {error}") from None
            if not isinstance(steps, list) or not steps or not all(isinstance(step, dict) for step in steps):
                raise InvalidRequest("steps_yaml", "must be a YAML list of recipe steps, as a recipe's `plan:` is")
            return Turn(self._plan(steps), steps_yaml, TOOL)
        if not text.strip():
            raise InvalidRequest("message", "give text (words for the run's model) or steps_yaml (recipe steps)")
        try:
            ModelSettings.from_env()
        except LlmError as error:
            raise NoModel(error.message) from None
        # The user's words carry no condition to check: the turn is done when the model closes on a
        # page (any page the fence let it reach), and its close summary answers the message.
        agent = {"task": text, "done_when": [{"url_matches": "."}]}
        return Turn(self._plan([{"id": f"turn-{number}", "agent": agent}]), text, MODEL)

    def _plan(self, steps: list[dict[str, Any]]) -> Plan:
        data = self.loaded.recipe.model_dump(mode="json", by_alias=True, exclude_unset=True)
        for section in FIRST_TURN_ONLY:
            data.pop(section, None)
        data["plan"] = steps
        recipe, registry = load_sent_recipe(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), self.registry_root, MESSAGE_SOURCE)
        return compile_recipe(recipe, registry)


class ConversationHost:
    """SendMessage and EndRun over the runs a supervisor hosts (a mixin of RunSupervisor)."""

    _live: dict[str, LiveRun]
    _store: BufferedRunStore
    limits: Any

    def conversation_for(self, compiler: TurnCompiler | None) -> Conversation | None:
        """The inbox of a new run that is a conversation (None when it is not one)."""
        return Conversation(self.limits.conversation_idle_seconds) if compiler is not None else None

    async def send_message(self, run_id: str, *, text: str = "", steps_yaml: str = "") -> tuple[RunRecord, int]:
        """Start the next turn of a conversation that waits in `ongoing`; the run and the turn's number."""
        live, conversation = await self._waiting_conversation(run_id)
        compiler: TurnCompiler = live.turns
        turn = compiler.turn(conversation.turn + 1, text=text, steps_yaml=steps_yaml)
        try:
            number = conversation.send(turn)
        except NotOngoing:  # it ended (idle, stopped) while the message was compiled
            raise RunNotOngoing(run_id, live.record.status.value) from None
        return live.shown, number

    async def end_run(self, run_id: str) -> RunRecord:
        """End a conversation that waits in `ongoing`, and return its record once it has ended."""
        if run_id not in self._live:
            record = await self._store.get_run(run_id)
            if record is None:
                raise RunNotFound(run_id)
            return record  # ended already: ending is idempotent
        live, conversation = await self._waiting_conversation(run_id)
        try:
            conversation.end()
        except NotOngoing:
            raise RunNotOngoing(run_id, live.record.status.value) from None
        try:
            await asyncio.wait_for(live.ended.wait(), self.limits.stop_wait_seconds)
        except asyncio.TimeoutError:
            _log.warning("run %s: still ending %.1fs after EndRun", run_id, self.limits.stop_wait_seconds)
        return live.shown

    async def _waiting_conversation(self, run_id: str) -> tuple[LiveRun, Conversation]:
        live = self._live.get(run_id)
        if live is None:
            record = await self._store.get_run(run_id)
            if record is None:
                raise RunNotFound(run_id)
            raise RunNotOngoing(run_id, record.status.value)
        conversation = live.handle.conversation if live.handle is not None else None
        if conversation is None or live.turns is None:
            raise RunNotOngoing(run_id, live.record.status.value, conversation=False)
        if not conversation.ongoing:
            raise RunNotOngoing(run_id, live.record.status.value)
        return live, conversation

    async def messages(self, run_id: str, after_seq: int = 0, most: int | None = None) -> list[Event]:
        """A conversation's messages as stored: its ConversationMessage events in seq order, those
        after `after_seq`, at most `most` of them (None: all)."""
        if run_id not in self._live and await self._store.get_run(run_id) is None:
            raise RunNotFound(run_id)
        found: list[Event] = []
        after = after_seq
        while (most is None or len(found) < most) and (batch := await self._store.read_events(run_id, after, MESSAGE_READ_BATCH)):
            found.extend(event for event in batch if isinstance(event.payload, ConversationMessage))
            after = batch[-1].seq
        return found if most is None else found[:most]

    def end_waiting_conversations(self) -> None:
        """At shutdown: conversations that wait for a message end now (interrupted), instead of
        holding the drain's grace period; their browsers do not outlive the server."""
        for live in list(self._live.values()):
            conversation = live.handle.conversation if live.handle is not None else None
            if conversation is not None and conversation.ongoing:
                live.handle.stop(StopReason.INTERRUPTED)
