"""verity.v1.AgentService over `RunSupervisor`: request checking and message mapping only."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from dataclasses import replace
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import grpc

from runtime.events import Event
from runtime.outcomes import TaskState
from runtime.plan.order import prepare_run
from runtime.plan.switches import SwitchInvalid
from runtime.recipe import RecipeInvalid
from runtime.service.api.proto_mapping import (
    artifact_to_proto,
    browser_to_proto,
    confirmation_to_proto,
    enum_from_proto,
    event_to_proto,
    run_info_to_proto,
)
from runtime.service.api.rich_errors import load_or_report, recipe_invalid, reports_errors
from runtime.service.config.webhook_settings import on_allowlist, webhook_url_problem
from runtime.service.gen.verity.v1 import agent_service_pb2 as agent_pb
from runtime.service.gen.verity.v1 import agent_service_pb2_grpc as agent_grpc
from runtime.service.gen.verity.v1 import events_pb2 as events_pb
from runtime.service.runs.artifact_reader import chunk_size, read_chunks
from runtime.service.runs.conversations import TurnCompiler
from runtime.service.runs.errors import InvalidRequest
from runtime.service.runs.live_run import LiveRun
from runtime.service.runs.recipe_catalog import RecipeCatalog, RecipeRequest
from runtime.service.runs.sent_recipes import SERVER_ENV_PREFIX
from runtime.service.runs.supervisor import RunSupervisor, StartedBefore
from runtime.store import ArtifactRecord, RunCursor, RunFilter
from runtime.store.run_keys import RunKey

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
MAX_IDEMPOTENCY_KEY_CHARS = 128


class AgentServicer(agent_grpc.AgentServiceServicer):
    def __init__(self, supervisor: RunSupervisor, catalog: RecipeCatalog, *, max_response_bytes: int) -> None:
        self._supervisor = supervisor
        self._catalog = catalog
        # Responses stay well under the client's receive limit; one run record within half of that.
        self._max_response_bytes = max(1024, max_response_bytes // 2)
        self._max_record_bytes = self._max_response_bytes // 2

    @reports_errors
    async def StartRun(self, request: agent_pb.StartRunRequest, context: grpc.aio.ServicerContext) -> agent_pb.StartRunResponse:
        live = await self._start(request)
        return agent_pb.StartRunResponse(run_id=live.run_id, trace_id=live.record.trace_id)

    @reports_errors
    async def StreamRun(
        self, request: agent_pb.StreamRunRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[agent_pb.StreamRunResponse]:
        _require("run_id", request.run_id)
        async for batch in self._supervisor.follow(request.run_id, request.after_seq):
            for events in self._split_by_size(batch):
                yield agent_pb.StreamRunResponse(events=events)

    @reports_errors
    async def Run(self, request: agent_pb.RunRequest, context: grpc.aio.ServicerContext) -> AsyncIterator[agent_pb.RunResponse]:
        live = await self._start(request)
        async for batch in self._supervisor.follow(live.run_id, 0):
            for events in self._split_by_size(batch):
                yield agent_pb.RunResponse(events=events)

    @reports_errors
    async def ConfirmAction(
        self, request: agent_pb.ConfirmActionRequest, context: grpc.aio.ServicerContext
    ) -> agent_pb.ConfirmActionResponse:
        _require("run_id", request.run_id)
        _require("request_id", request.request_id)
        record = await self._supervisor.confirm(request.run_id, request.request_id, request.approve, request.reason)
        return agent_pb.ConfirmActionResponse(run=run_info_to_proto(record, self._max_record_bytes))

    @reports_errors
    async def StopRun(self, request: agent_pb.StopRunRequest, context: grpc.aio.ServicerContext) -> agent_pb.StopRunResponse:
        _require("run_id", request.run_id)
        record = await self._supervisor.stop(request.run_id)
        return agent_pb.StopRunResponse(run=run_info_to_proto(record, self._max_record_bytes))

    @reports_errors
    async def GetRun(self, request: agent_pb.GetRunRequest, context: grpc.aio.ServicerContext) -> agent_pb.GetRunResponse:
        _require("run_id", request.run_id)
        record, artifacts, pending = await self._supervisor.get(request.run_id)
        response = agent_pb.GetRunResponse(
            run=run_info_to_proto(record, self._max_record_bytes),
            pending_confirmations=[confirmation_to_proto(c) for c in pending],
        )
        figures = await self._supervisor.verdict_figures(record)
        if figures is not None:
            response.verdict_figures.update(figures)  # JSON values, as verdict.json holds them
            if response.ByteSize() > self._max_response_bytes // 2:
                response.ClearField("verdict_figures")  # GetRunFile serves verdict.json whole
        size = response.ByteSize()
        for index, artifact in enumerate(artifacts):
            message = artifact_to_proto(artifact)
            size += message.ByteSize() + 8
            if size > self._max_response_bytes:
                response.artifacts_omitted = len(artifacts) - index
                break
            response.artifacts.append(message)
        return response

    @reports_errors
    async def GetArtifact(
        self, request: agent_pb.GetArtifactRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[agent_pb.GetArtifactResponse]:
        _require("run_id", request.run_id)
        _require("artifact_id", request.artifact_id)
        record, source = await self._supervisor.artifact(request.run_id, request.artifact_id)
        async for message in self._artifact_messages(record, source, request.chunk_bytes, agent_pb.GetArtifactResponse):
            yield message

    async def _artifact_messages(self, record: ArtifactRecord, source: Path | bytes, chunk_bytes: int, response: Any) -> AsyncIterator[Any]:
        """`response` messages (GetArtifactResponse, GetRunFileResponse: one shape) carrying the
        bytes in chunks, the first one describing them."""
        size = chunk_size(chunk_bytes, self._max_response_bytes)
        first = True
        async for offset, data in read_chunks(source, record, size):
            message = response(offset=offset, data=data)
            if first:
                message.artifact.CopyFrom(artifact_to_proto(record))
                first = False
            yield message
        if first:  # an empty artifact still tells the client what it is
            yield response(artifact=artifact_to_proto(record))

    @reports_errors
    async def GetRunFile(
        self, request: agent_pb.GetRunFileRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[agent_pb.GetRunFileResponse]:
        _require("run_id", request.run_id)
        _require("name", request.name)
        record, path = await self._supervisor.run_file(request.run_id, request.name)
        async for message in self._artifact_messages(record, path, request.chunk_bytes, agent_pb.GetRunFileResponse):
            yield message

    @reports_errors
    async def ListRuns(self, request: agent_pb.ListRunsRequest, context: grpc.aio.ServicerContext) -> agent_pb.ListRunsResponse:
        statuses: list[TaskState] = []
        for index, number in enumerate(request.statuses):
            state = enum_from_proto(TaskState, number) if number in events_pb.TaskState.values() else None
            if state is None:
                raise InvalidRequest(f"statuses[{index}]", f"{number} is not a task state (TASK_STATE_UNSPECIFIED is not a filter)")
            statuses.append(state)
        if request.page_size < 0:
            raise InvalidRequest("page_size", f"must be 0 (default {DEFAULT_PAGE_SIZE}) or more, got {request.page_size}")
        page_size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        cursor = decode_page_token(request.page_token) if request.page_token else None
        run_filter = RunFilter(statuses=tuple(statuses), recipe_name=request.recipe_name)
        records = await self._supervisor.list(run_filter, page_size + 1, cursor)
        response = agent_pb.ListRunsResponse()
        size = 0
        for record in records[:page_size]:
            info = run_info_to_proto(record, self._max_record_bytes)
            size += info.ByteSize() + 8
            if response.runs and size > self._max_response_bytes:
                break  # the page ends early to fit the message limit; the token continues from here
            response.runs.append(info)
            last = record
        if len(records) > len(response.runs):
            response.next_page_token = encode_page_token(RunCursor(last.created_ns, last.run_id))
        return response

    @reports_errors
    async def ListBrowsers(self, request: agent_pb.ListBrowsersRequest, context: grpc.aio.ServicerContext) -> agent_pb.ListBrowsersResponse:
        browsers, waiting = self._supervisor.browsers()
        return agent_pb.ListBrowsersResponse(browsers=[browser_to_proto(b) for b in browsers], runs_waiting=waiting)

    @reports_errors
    async def SendMessage(self, request: agent_pb.SendMessageRequest, context: grpc.aio.ServicerContext) -> agent_pb.SendMessageResponse:
        _require("run_id", request.run_id)
        try:
            record, turn = await self._supervisor.send_message(request.run_id, text=request.text, steps_yaml=request.steps_yaml)
        except RecipeInvalid as error:
            raise recipe_invalid(error, "the message") from None
        return agent_pb.SendMessageResponse(run=run_info_to_proto(record, self._max_record_bytes), turn=turn)

    @reports_errors
    async def EndRun(self, request: agent_pb.EndRunRequest, context: grpc.aio.ServicerContext) -> agent_pb.EndRunResponse:
        _require("run_id", request.run_id)
        record = await self._supervisor.end_run(request.run_id)
        return agent_pb.EndRunResponse(run=run_info_to_proto(record, self._max_record_bytes))

    @reports_errors
    async def ListMessages(self, request: agent_pb.ListMessagesRequest, context: grpc.aio.ServicerContext) -> agent_pb.ListMessagesResponse:
        _require("run_id", request.run_id)
        if request.page_size < 0:
            raise InvalidRequest("page_size", f"must be 0 (default {DEFAULT_PAGE_SIZE}) or more, got {request.page_size}")
        page_size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        after_seq = decode_message_token(request.page_token, request.run_id) if request.page_token else 0
        messages = await self._supervisor.messages(request.run_id, after_seq, page_size + 1)
        response = agent_pb.ListMessagesResponse()
        size = 0
        for event in messages[:page_size]:
            shown = event_to_proto(event)
            size += shown.ByteSize() + 8
            if response.messages and size > self._max_response_bytes:
                break  # the page ends early to fit the message limit; the token goes on from here
            response.messages.append(shown)
        if len(messages) > len(response.messages):
            response.next_page_token = encode_message_token(request.run_id, response.messages[-1].seq)
        return response

    async def _start(self, request: agent_pb.StartRunRequest | agent_pb.RunRequest) -> LiveRun | StartedBefore:
        key = self._run_key(request)
        # A retry is answered before anything else is checked: the run exists whatever the server's
        # recipes or load are now.
        if key is not None and (before := await self._supervisor.started_with(key)) is not None:
            return before
        loaded = load_or_report(self._catalog, request.WhichOneof("recipe"), request.recipe_yaml, request.recipe_name)
        raw_inputs = dict(request.inputs)
        try:
            # An input `@env:NAME` is read from the server's environment (only VERITY_SECRET_*
            # names: a client may not read the server's own keys); such an input is secret.
            order = prepare_run(
                loaded.recipe, raw_inputs, registry=loaded.registry, labels=dict(request.options.labels), environ=os.environ, env_prefix=SERVER_ENV_PREFIX,
                switches=dict(request.options.switches),
            )  # fmt: skip
        except RecipeInvalid as error:
            raise recipe_invalid(error, "the run inputs") from None
        except SwitchInvalid as error:
            raise InvalidRequest("options.switches", str(error)) from None
        order = replace(order, browser_id=request.options.browser_id, browser_label=request.options.browser_label)
        timeout_seconds: float | None = None
        if request.options.HasField("timeout"):
            timeout_seconds = request.options.timeout.ToTimedelta().total_seconds()
            if timeout_seconds <= 0:
                raise InvalidRequest("options.timeout", f"must be positive, got {timeout_seconds}s")
        return await self._supervisor.start(
            order,
            raw_inputs=raw_inputs,
            timeout_seconds=timeout_seconds,
            source=RecipeRequest(request.WhichOneof("recipe"), request.recipe_yaml, request.recipe_name),
            key=key,
            webhook_url=self._run_webhook(request.options.webhook_url),
            turns=TurnCompiler(loaded, self._catalog.registry_root) if request.options.conversation else None,
        )

    def _run_webhook(self, url: str) -> str | None:
        """A run's own webhook URL, when the operator's allowlist has it (and the policy would)."""
        if not url:
            return None
        webhooks = self._supervisor.webhooks
        if webhooks is None or not webhooks.settings.allowed_urls:
            raise InvalidRequest("options.webhook_url", "this server lets no run name a webhook (its webhook_allowed_urls is empty)")
        if not on_allowlist(url, webhooks.settings.allowed_urls):
            raise InvalidRequest("options.webhook_url", "is not on the server's webhook_allowed_urls; ask its operator to add it")
        if problem := webhook_url_problem(url, webhooks.settings.allow_private_network):
            raise InvalidRequest("options.webhook_url", problem)
        return url

    def _run_key(self, request: agent_pb.StartRunRequest | agent_pb.RunRequest) -> RunKey | None:
        key = request.idempotency_key
        if not key:
            return None
        if len(key) > MAX_IDEMPOTENCY_KEY_CHARS or not all(" " <= char <= "~" for char in key):
            raise InvalidRequest("idempotency_key", f"must be at most {MAX_IDEMPOTENCY_KEY_CHARS} printable ASCII characters (a UUID fits)")
        return self._supervisor.run_key(key, request_fingerprint(request))

    def _split_by_size(self, batch: Iterable[Event]) -> Iterable[list[events_pb.Event]]:
        """Group converted events into responses below the size limit (one event always fits)."""
        group: list[events_pb.Event] = []
        size = 0
        for event in batch:
            message = event_to_proto(event)
            message_size = message.ByteSize() + 8
            if group and size + message_size > self._max_response_bytes:
                yield group
                group, size = [], 0
            group.append(message)
            size += message_size
        if group:
            yield group


def request_fingerprint(request: agent_pb.StartRunRequest | agent_pb.RunRequest) -> str:
    """What makes two starts the same request: every field but the key, serialized
    deterministically (maps sorted), so StartRun and Run of one request agree. Hashed with the key,
    so a stored fingerprint tells nothing about an input's value."""
    fields = type(request)()
    fields.CopyFrom(request)
    fields.ClearField("idempotency_key")
    digest = hashlib.sha256(request.idempotency_key.encode())
    digest.update(b"\0")
    digest.update(fields.SerializeToString(deterministic=True))
    return digest.hexdigest()


def _require(field_path: str, value: Any) -> None:
    if not value:
        raise InvalidRequest(field_path, "is required")


def encode_page_token(cursor: RunCursor) -> str:
    raw = json.dumps({"created_ns": cursor.created_ns, "run_id": cursor.run_id}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def encode_message_token(run_id: str, after_seq: int) -> str:
    raw = json.dumps({"run_id": run_id, "after_seq": after_seq}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_message_token(token: str, run_id: str) -> int:
    """The seq a ListMessages page token goes on after; refused when it is not one, or is another run's."""
    try:
        padded = token + "=" * (-len(token) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        token_run, after_seq = str(data["run_id"]), int(data["after_seq"])
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise InvalidRequest("page_token", "is not a token returned by ListMessages; start over with an empty page_token") from None
    if token_run != run_id or after_seq < 0:
        raise InvalidRequest("page_token", f"was returned for another run's messages, not {run_id}'s; start over with an empty page_token")
    return after_seq


def decode_page_token(token: str) -> RunCursor:
    try:
        padded = token + "=" * (-len(token) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        return RunCursor(created_ns=int(data["created_ns"]), run_id=str(data["run_id"]))
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise InvalidRequest("page_token", "is not a token returned by ListRuns; start over with an empty page_token") from None
