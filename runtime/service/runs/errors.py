"""What a request about runs can fail with: typed errors, whatever face the request came through.

runs/ and replicas/ raise these and know nothing of transports. The gRPC face maps each kind to
its status code and rich details in one table (service/api/rich_errors.py); another face would map
the same errors its own way. Every message says what was wrong and what to do. `reason` is the
kind's stable machine-readable name (google.rpc.ErrorInfo on the wire; empty where the kind alone
says it), `metadata` what a caller needs to act on it, and `resource` the name of the thing it is
about (a run id, a recipe name) where there is one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from runtime.store import ArtifactRecord


class RunError(Exception):
    reason: ClassVar[str] = ""

    def __init__(self, message: str, *, metadata: Mapping[str, str] | None = None, resource: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.metadata = dict(metadata or {})
        self.resource = resource

    def __str__(self) -> str:
        return self.message

    @classmethod
    def restored(cls, message: str, metadata: Mapping[str, str]) -> RunError:
        """The error as another replica reported it (its message and metadata as it wrote them)."""
        error = cls.__new__(cls)
        RunError.__init__(error, message, metadata=metadata)
        return error


class InvalidRequest(RunError):
    """A field of the request is missing or out of range."""

    def __init__(self, field_path: str, description: str) -> None:
        super().__init__(f"{field_path}: {description}")
        self.field_path = field_path
        self.description = description


class RunNotFound(RunError):
    def __init__(self, run_id: str) -> None:
        super().__init__(f"run {run_id!r} not found", resource=run_id)


class RecipeNotFound(RunError):
    def __init__(self, name: str, known: str) -> None:
        super().__init__(f"no recipe named {name!r} on this server (known: {known})", resource=name)


class ArtifactNotFound(RunError):
    def __init__(self, run_id: str, artifact_id: str) -> None:
        super().__init__(
            f"run {run_id!r} has no artifact {artifact_id!r} (GetRun lists its artifacts)", resource=f"{run_id}/{artifact_id}"
        )


class ServerShuttingDown(RunError):
    def __init__(self) -> None:
        super().__init__("the server is shutting down and accepts no new runs")


class RunLimitReached(RunError):
    reason = "RUN_LIMIT_REACHED"

    def __init__(self, in_flight: int, limit: int) -> None:
        super().__init__(
            f"{in_flight} runs are in flight, the limit is {limit}; retry when one has ended",
            metadata={"max_concurrent_runs": str(limit)},
        )


class IdempotencyKeyReused(RunError):
    """A start sent an idempotency key that already started a run, with a different request."""

    reason = "IDEMPOTENCY_KEY_REUSED"

    def __init__(self, run_id: str) -> None:
        super().__init__(
            f"this idempotency key already started run {run_id!r} with a different request; "
            "send the same request to get that run, or a new key to start another",
            metadata={"run_id": run_id},
            resource=run_id,
        )


class ConfirmationNotPending(RunError):
    """The run waits for no confirmation of that id (it ended, is queued, or waits on another)."""

    reason = "CONFIRMATION_NOT_PENDING"


class ReplicaUnavailable(RunError):
    reason = "REPLICA_UNAVAILABLE"

    def __init__(self, run_id: str, request_id: str) -> None:
        super().__init__(
            f"the replica running run {run_id!r} did not answer; the confirmation was not delivered. "
            "Try again (a replica that died has its runs interrupted once its lease expires)",
            metadata={"request_id": request_id},
        )


class ReplicaFailed(RunError):
    """The replica a request was handed to failed in a way it could not name."""


class BeyondLastSeq(RunError):
    reason = "BEYOND_LAST_SEQ"

    def __init__(self, run_id: str, after_seq: int, last_seq: int) -> None:
        super().__init__(
            f"run {run_id!r} ended at seq {last_seq}; there is no seq {after_seq} to stream after. "
            f"Stream with after_seq <= {last_seq}",
            metadata={"last_seq": str(last_seq), "after_seq": str(after_seq)},
        )


class HistoryTrimmed(RunError):
    reason = "HISTORY_TRIMMED"

    def __init__(self, run_id: str, earliest_seq: int, last_seq: int) -> None:
        super().__init__(
            f"events of run {run_id!r} before seq {earliest_seq} were trimmed; the earliest "
            f"available is {earliest_seq}: stream with after_seq >= {earliest_seq - 1}",
            metadata={"earliest_seq": str(earliest_seq), "last_seq": str(last_seq)},
        )


class WatcherLagging(RunError):
    """A watcher fell further behind a live run than its buffer holds; it resumes from its seq."""

    reason = "SUBSCRIBER_LAGGING"

    def __init__(self, run_id: str, capacity: int, last_seq: int) -> None:
        super().__init__(
            f"this stream fell more than {capacity} events behind run {run_id!r} and was "
            f"cut off; resume with StreamRun(after_seq={last_seq})",
            metadata={"resume_after_seq": str(last_seq), "buffer_events": str(capacity)},
        )


class ArtifactOutsideRun(RunError):
    reason = "ARTIFACT_OUTSIDE_RUN"

    def __init__(self, record: ArtifactRecord) -> None:
        super().__init__(
            f"artifact {record.artifact_id!r} of run {record.run_id!r} points outside the run's directory; it is not served"
        )


class ArtifactMissing(RunError):
    reason = "ARTIFACT_MISSING"

    def __init__(self, record: ArtifactRecord) -> None:
        super().__init__(
            f"artifact {record.artifact_id!r} of run {record.run_id!r} is listed but its bytes are gone from the run directory"
        )


class RunFileMissing(RunError):
    reason = "RUN_FILE_MISSING"

    def __init__(self, run_id: str, name: str) -> None:
        super().__init__(
            f"run {run_id!r} has no {name} on this server: the run did not write it (one that never started writes "
            "no report), or another server ran it",
            metadata={"name": name},
            resource=f"{run_id}/{name}",
        )


class RunFilesNotReady(RunError):
    reason = "RUN_NOT_ENDED"

    def __init__(self, run_id: str, status: str) -> None:
        super().__init__(
            f"run {run_id!r} has not ended ({status}); its files are served once it has "
            "(stream its events until the final verdict, then ask again)",
            metadata={"status": status},
        )


class ArtifactChanged(RunError):
    reason = "ARTIFACT_CHANGED"

    def __init__(self, record: ArtifactRecord, sha256: str, size: int) -> None:
        super().__init__(
            f"artifact {record.artifact_id!r} of run {record.run_id!r} changed since it was recorded "
            f"(sha256 {sha256[:12]}…, {size} bytes; recorded {record.sha256[:12]}…, {record.size} bytes)"
        )


def run_error_kinds() -> dict[str, type[RunError]]:
    """Every kind by its class name: how a replica names the error it answers another with."""
    kinds: dict[str, type[RunError]] = {}
    pending: list[type[RunError]] = [RunError]
    while pending:
        kind = pending.pop()
        kinds[kind.__name__] = kind
        pending.extend(kind.__subclasses__())
    return kinds


class RunNotOngoing(RunError):
    reason = "RUN_NOT_ONGOING"

    def __init__(self, run_id: str, status: str, *, conversation: bool = True) -> None:
        if not conversation:
            why = "it is not a conversation (start it with RunOptions.conversation to send it messages)"
        elif status in ("completed", "error", "stopped"):
            why = f"it has ended ({status})"
        else:
            why = f"it is {status}, not waiting for a message: wait for its TASK_STATE_ONGOING event, then send"
        super().__init__(f"run {run_id!r} takes no message now: {why}", metadata={"status": status}, resource=run_id)


class NoModel(RunError):
    reason = "NO_MODEL"

    def __init__(self, detail: str) -> None:
        super().__init__(
            f"this server has no model to read a text message ({detail}); send recipe steps (steps_yaml) instead, "
            "or ask the operator to configure a model"
        )
