"""A small Python client for the Verity gRPC API.

    with VerityClient("127.0.0.1:50051", token) as client:
        run_id = client.start_run(recipe_name="demo-quote", inputs={"site": "..."}).run_id
        for event in client.stream_run(run_id):      # resumes by itself after a dropped connection
            print(event.seq, event.WhichOneof("payload"))

Streams track the last seq received and reconnect with `after_seq`, so a dropped connection or a
lagging cut-off loses no event and repeats none.

Beyond loopback, give `root_certificates=` (the server's CA, PEM bytes) or `tls=True` (the
system's CAs): the client refuses to send a token in plain text to another host unless
`insecure=True`.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, BinaryIO

import grpc
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from runtime.service.config.bind_safety import is_loopback_host
from runtime.client.channel_checks import is_handshake_failure, target_host
from runtime.client.conversation_calls import ConversationCalls
from runtime.service.gen.verity.v1 import agent_service_pb2 as agent_pb
from runtime.service.gen.verity.v1 import agent_service_pb2_grpc as agent_grpc
from runtime.service.gen.verity.v1 import events_pb2 as events_pb
from runtime.service.gen.verity.v1 import recipe_service_pb2 as recipe_pb
from runtime.service.gen.verity.v1 import recipe_service_pb2_grpc as recipe_grpc

# A dropped connection (UNAVAILABLE) or a lagging cut-off (ABORTED) is worth resuming; anything
# else (NOT_FOUND, OUT_OF_RANGE, UNAUTHENTICATED, ...) would fail the same way again.
RESUMABLE_CODES = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED})
# A keyed start whose reply may have been lost, sent again.
RETRIED_START_CODES = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})


@dataclass(frozen=True)
class Violation:
    field: str
    description: str


@dataclass
class VerityRpcError(Exception):
    """A failed call, with the rich error details the server attached."""

    code: grpc.StatusCode
    message: str
    field_violations: list[Violation] = field(default_factory=list)
    reason: str = ""
    metadata: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> VerityRpcError:
        code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
        message = error.details() if hasattr(error, "details") else str(error)
        failure = cls(code=code, message=message or "")
        try:
            status = rpc_status.from_call(error)  # type: ignore[arg-type]
        except ValueError:
            status = None
        for detail in status.details if status else ():
            if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad_request = error_details_pb2.BadRequest()
                detail.Unpack(bad_request)
                failure.field_violations.extend(Violation(v.field, v.description) for v in bad_request.field_violations)
            elif detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                failure.reason = info.reason
                failure.metadata.update(info.metadata)
        return failure


class VerityClient(ConversationCalls):
    def __init__(
        self,
        target: str,
        token: str | None = None,
        *,
        timeout: float = 30.0,
        max_message_bytes: int = 4 * 1024 * 1024,
        resume_attempts: int = 20,
        resume_backoff: float = 0.1,
        channel_options: Sequence[tuple[str, Any]] = (),
        root_certificates: bytes | None = None,
        tls: bool = False,
        insecure: bool = False,
    ) -> None:
        self.target = target
        self.uses_tls = tls or root_certificates is not None
        host = target_host(target)
        if token and not self.uses_tls and not insecure and host is not None and not is_loopback_host(host):
            raise ValueError(
                f"refusing to send the bearer token in plain text to {target}: connect with TLS "
                "(root_certificates= / --tls-ca FILE, or tls=True / --tls), or pass insecure=True / --insecure"
            )
        self._metadata: tuple[tuple[str, str], ...] = (("authorization", f"Bearer {token}"),) if token else ()
        self._timeout = timeout
        self._resume_attempts = resume_attempts
        self._resume_backoff = resume_backoff
        options = [
            ("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.max_send_message_length", max_message_bytes),
            # Resuming after a drop should take a moment, not gRPC's default 1s+ backoff.
            ("grpc.initial_reconnect_backoff_ms", 100),
            ("grpc.max_reconnect_backoff_ms", 2000),
            *channel_options,
        ]
        if self.uses_tls:
            credentials = grpc.ssl_channel_credentials(root_certificates=root_certificates)
            self.channel = grpc.secure_channel(target, credentials, options=options)
        else:
            self.channel = grpc.insecure_channel(target, options=options)
        self.agent = agent_grpc.AgentServiceStub(self.channel)
        self.recipes = recipe_grpc.RecipeServiceStub(self.channel)

    def __enter__(self) -> VerityClient:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self.channel.close()

    # --- runs -----------------------------------------------------------------------------------

    def start_run(
        self,
        *,
        recipe_yaml: str | None = None,
        recipe_name: str | None = None,
        inputs: Mapping[str, str] | None = None,
        timeout_seconds: float | None = None,
        labels: Mapping[str, str] | None = None,
        idempotency_key: str = "",
        browser_id: str = "",
        browser_label: str = "",
        webhook_url: str = "",
        conversation: bool = False,
        switches: Mapping[str, str] | None = None,
    ) -> agent_pb.StartRunResponse:
        """Start a run. With an `idempotency_key` (a UUID, say) a start whose reply was lost
        (UNAVAILABLE, DEADLINE_EXCEEDED) is sent again, and the server answers with the run the
        first one started; without one nothing is retried, since a retry could start a second run.
        `browser_id`/`browser_label` pin it to the browsers ListBrowsers shows; `webhook_url`: where
        the server sends the run's terminal state (on its webhook allowlist). `conversation`: the run
        goes on after its plan, in `ongoing`, for send_message until end_run (conversation_calls.py).
        `switches`: strategies rolled back for this run (`verity run --switch`'s names and values)."""
        request = agent_pb.StartRunRequest(
            **_run_fields(recipe_yaml, recipe_name, inputs, timeout_seconds, labels, browser_id, browser_label, webhook_url, conversation, switches),
            idempotency_key=idempotency_key,
        )
        failures = 0
        while True:
            try:
                return self.agent.StartRun(request, metadata=self._metadata, timeout=self._timeout)
            except grpc.RpcError as error:
                if not (idempotency_key and self._is_retried_start(error) and failures < self._resume_attempts):
                    raise self._failure(error) from None
                failures += 1
                time.sleep(min(2.0, self._resume_backoff * failures))

    def stream_run(self, run_id: str, after_seq: int = 0, *, resume: bool = True) -> Iterator[events_pb.Event]:
        """Events with seq > after_seq until the run's final verdict; resumes after drops."""
        last_seq = after_seq
        failures = 0
        while True:
            call = self.agent.StreamRun(agent_pb.StreamRunRequest(run_id=run_id, after_seq=last_seq), metadata=self._metadata)
            try:
                for response in call:
                    for event in response.events:
                        if event.seq <= last_seq:
                            continue
                        last_seq = event.seq
                        failures = 0
                        yield event
                        if event.HasField("final_verdict"):
                            return
                return
            except grpc.RpcError as error:
                if not (resume and self._is_resumable(error) and failures < self._resume_attempts):
                    raise self._failure(error) from None
                failures += 1
                time.sleep(min(2.0, self._resume_backoff * failures))
            finally:
                call.cancel()

    def run(
        self,
        *,
        recipe_yaml: str | None = None,
        recipe_name: str | None = None,
        inputs: Mapping[str, str] | None = None,
        timeout_seconds: float | None = None,
        labels: Mapping[str, str] | None = None,
        resume: bool = True,
        idempotency_key: str = "",
        browser_id: str = "",
        browser_label: str = "",
        webhook_url: str = "",
        conversation: bool = False,
        switches: Mapping[str, str] | None = None,
    ) -> Iterator[events_pb.Event]:
        """Start a run and stream it in one call; after a drop it continues with StreamRun. With an
        `idempotency_key`, a call dropped before its first event is sent again (the server streams
        the run the key started, if any, from its start)."""
        request = agent_pb.RunRequest(
            **_run_fields(recipe_yaml, recipe_name, inputs, timeout_seconds, labels, browser_id, browser_label, webhook_url, conversation, switches),
            idempotency_key=idempotency_key,
        )
        run_id, last_seq, failures = "", 0, 0
        while not run_id:
            call = self.agent.Run(request, metadata=self._metadata)
            try:
                for response in call:
                    for event in response.events:
                        run_id, last_seq = event.run_id, event.seq
                        yield event
                        if event.HasField("final_verdict"):
                            return
                return
            except grpc.RpcError as error:
                retry_start = not run_id and idempotency_key and failures < self._resume_attempts and self._is_retried_start(error)
                if not (resume and (retry_start or (run_id and self._is_resumable(error)))):
                    raise self._failure(error) from None
                failures += 1
                if not run_id:
                    time.sleep(min(2.0, self._resume_backoff * failures))
            finally:
                call.cancel()
        yield from self.stream_run(run_id, last_seq, resume=resume)

    def confirm_action(self, run_id: str, request_id: str, approve: bool, reason: str = "") -> agent_pb.RunInfo:
        request = agent_pb.ConfirmActionRequest(run_id=run_id, request_id=request_id, approve=approve, reason=reason)
        return self._unary(self.agent.ConfirmAction, request).run

    def stop_run(self, run_id: str) -> agent_pb.RunInfo:
        return self._unary(self.agent.StopRun, agent_pb.StopRunRequest(run_id=run_id)).run

    def get_run(self, run_id: str) -> agent_pb.GetRunResponse:
        return self._unary(self.agent.GetRun, agent_pb.GetRunRequest(run_id=run_id))

    def list_browsers(self) -> agent_pb.ListBrowsersResponse:
        return self._unary(self.agent.ListBrowsers, agent_pb.ListBrowsersRequest())

    def download_artifact(
        self, run_id: str, artifact_id: str, destination: BinaryIO, *, chunk_bytes: int = 0
    ) -> agent_pb.ArtifactInfo:
        """Write an artifact's bytes to `destination`; they are checked against its sha256 and size."""
        request = agent_pb.GetArtifactRequest(run_id=run_id, artifact_id=artifact_id, chunk_bytes=chunk_bytes)
        return self._download(self.agent.GetArtifact, request, f"artifact {artifact_id!r}", destination)

    def download_run_file(self, run_id: str, name: str, destination: BinaryIO, *, chunk_bytes: int = 0) -> agent_pb.ArtifactInfo:
        """Write one of the files that explain an ended run (verdict.json, output.json,
        executions.json, plans.json, trace.jsonl, events.jsonl, report.html) to `destination`,
        checked against the sha256 and size the server took when asked."""
        request = agent_pb.GetRunFileRequest(run_id=run_id, name=name, chunk_bytes=chunk_bytes)
        return self._download(self.agent.GetRunFile, request, f"run file {name!r}", destination)

    def _download(self, call: Any, request: Any, what: str, destination: BinaryIO) -> agent_pb.ArtifactInfo:
        info: agent_pb.ArtifactInfo | None = None
        digest, received = hashlib.sha256(), 0
        try:
            for message in call(request, metadata=self._metadata):
                if message.HasField("artifact"):
                    info = message.artifact
                if message.offset != received:
                    raise ArtifactMismatch(f"{what}: chunk at offset {message.offset}, expected {received}")
                digest.update(message.data)
                destination.write(message.data)
                received += len(message.data)
        except grpc.RpcError as error:
            raise VerityRpcError.from_rpc_error(error) from None
        if info is None:
            raise ArtifactMismatch(f"{what}: the server sent no artifact description")
        if digest.hexdigest() != info.sha256 or received != info.size:
            raise ArtifactMismatch(
                f"{what}: received {received} bytes with sha256 {digest.hexdigest()}, "
                f"listed as {info.size} bytes with sha256 {info.sha256}"
            )
        return info

    def list_runs(
        self,
        *,
        statuses: Sequence[int] = (),
        recipe_name: str = "",
        page_size: int = 0,
        page_token: str = "",
    ) -> agent_pb.ListRunsResponse:
        """One page; `statuses` are verity.v1.TaskState values (e.g. events_pb2.TASK_STATE_COMPLETED)."""
        request = agent_pb.ListRunsRequest(
            statuses=list(statuses), recipe_name=recipe_name, page_size=page_size, page_token=page_token
        )
        return self._unary(self.agent.ListRuns, request)

    def iter_runs(self, *, statuses: Sequence[int] = (), recipe_name: str = "", page_size: int = 0) -> Iterator[agent_pb.RunInfo]:
        """Every matching run, newest first, across pages."""
        token = ""
        while True:
            page = self.list_runs(statuses=statuses, recipe_name=recipe_name, page_size=page_size, page_token=token)
            yield from page.runs
            token = page.next_page_token
            if not token:
                return

    # --- recipes --------------------------------------------------------------------------------

    def validate_recipe(self, *, recipe_yaml: str | None = None, recipe_name: str | None = None, source_name: str = "") -> recipe_pb.ValidateRecipeResponse:
        request = recipe_pb.ValidateRecipeRequest(source_name=source_name, **_recipe_fields(recipe_yaml, recipe_name))
        return self._unary(self.recipes.ValidateRecipe, request)

    def compile_recipe(self, *, recipe_yaml: str | None = None, recipe_name: str | None = None) -> recipe_pb.CompileRecipeResponse:
        request = recipe_pb.CompileRecipeRequest(**_recipe_fields(recipe_yaml, recipe_name))
        return self._unary(self.recipes.CompileRecipe, request)

    def list_recipes(self, *, page_size: int = 0, page_token: str = "") -> recipe_pb.ListRecipesResponse:
        return self._unary(self.recipes.ListRecipes, recipe_pb.ListRecipesRequest(page_size=page_size, page_token=page_token))

    def _unary(self, method: Any, request: Any) -> Any:
        try:
            return method(request, metadata=self._metadata, timeout=self._timeout)
        except grpc.RpcError as error:
            raise self._failure(error) from None

    @staticmethod
    def _is_resumable(error: grpc.RpcError) -> bool:
        # A failed TLS handshake fails the same way on every retry.
        return error.code() in RESUMABLE_CODES and not is_handshake_failure(error.details() or "")

    @staticmethod
    def _is_retried_start(error: grpc.RpcError) -> bool:
        return error.code() in RETRIED_START_CODES and not is_handshake_failure(error.details() or "")

    def _failure(self, error: grpc.RpcError) -> VerityRpcError:
        """The error with a hint when the cause is most likely TLS, which gRPC's text only implies."""
        failure = VerityRpcError.from_rpc_error(error)
        if failure.code != grpc.StatusCode.UNAVAILABLE:
            return failure
        if self.uses_tls and is_handshake_failure(failure.message):
            failure.message = (
                f"TLS handshake with {self.target} failed: the server's certificate is not signed by a trusted "
                "CA (check --tls-ca / root_certificates) or does not name this host. gRPC said: " + failure.message
            )
        elif not self.uses_tls and "socket closed" in failure.message.lower():
            failure.message += f" (if {self.target} serves TLS, connect with --tls-ca FILE / root_certificates=)"
        return failure


class ArtifactMismatch(ValueError):
    """The bytes received are not the artifact the server lists (a gap, or another sha256 or size)."""


def _recipe_fields(recipe_yaml: str | None, recipe_name: str | None) -> dict[str, str]:
    if (recipe_yaml is None) == (recipe_name is None):
        raise ValueError("give exactly one of recipe_yaml and recipe_name")
    return {"recipe_yaml": recipe_yaml} if recipe_yaml is not None else {"recipe_name": recipe_name or ""}


def _run_fields(
    recipe_yaml: str | None,
    recipe_name: str | None,
    inputs: Mapping[str, str] | None,
    timeout_seconds: float | None,
    labels: Mapping[str, str] | None,
    browser_id: str = "",
    browser_label: str = "",
    webhook_url: str = "",
    conversation: bool = False,
    switches: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    options = agent_pb.RunOptions(
        labels=dict(labels or {}), browser_id=browser_id, browser_label=browser_label, webhook_url=webhook_url, conversation=conversation,
        switches=dict(switches or {}),
    )
    if timeout_seconds is not None:
        options.timeout.CopyFrom(duration_pb2.Duration(seconds=int(timeout_seconds), nanos=int((timeout_seconds % 1) * 1e9)))
    return {**_recipe_fields(recipe_yaml, recipe_name), "inputs": dict(inputs or {}), "options": options}
