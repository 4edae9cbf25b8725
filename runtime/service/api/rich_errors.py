"""Errors the service returns, as gRPC rich statuses (google.rpc.Status with typed details).

The runs raise typed errors (service/runs/errors.py); `STATUS_OF_RUN_ERROR` gives each kind its
status code, here and nowhere else. Servicer methods let them (and `ServiceError`, for what only
this face knows) propagate; `reports_errors` turns them into a status with details a client can act
on, and turns any unexpected exception into INTERNAL with a reference id instead of a traceback on
the wire.
"""

from __future__ import annotations

import functools
import inspect
import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from runtime.recipe import Problem, RecipeInvalid
from runtime.service.runs.errors import (
    ArtifactChanged,
    ArtifactMissing,
    ArtifactNotFound,
    ArtifactOutsideRun,
    BeyondLastSeq,
    ConfirmationNotPending,
    HistoryTrimmed,
    IdempotencyKeyReused,
    InvalidRequest,
    NoModel,
    RecipeNotFound,
    ReplicaFailed,
    ReplicaUnavailable,
    RunError,
    RunFileMissing,
    RunFilesNotReady,
    RunLimitReached,
    RunNotFound,
    RunNotOngoing,
    ServerShuttingDown,
    WatcherLagging,
)
from runtime.service.runs.recipe_catalog import LoadedRecipe, RecipeCatalog
from runtime.store import StoreWriteError

_log = logging.getLogger(__name__)

ERROR_DOMAIN = "verity"
# The trailing-metadata key gRPC uses to carry a serialized google.rpc.Status.
STATUS_DETAILS_KEY = "grpc-status-details-bin"

# Each kind of error the runs raise, as the status it is sent with.
STATUS_OF_RUN_ERROR: dict[type[RunError], grpc.StatusCode] = {
    InvalidRequest: grpc.StatusCode.INVALID_ARGUMENT,
    RunNotFound: grpc.StatusCode.NOT_FOUND,
    RecipeNotFound: grpc.StatusCode.NOT_FOUND,
    ArtifactNotFound: grpc.StatusCode.NOT_FOUND,
    ServerShuttingDown: grpc.StatusCode.UNAVAILABLE,
    RunLimitReached: grpc.StatusCode.RESOURCE_EXHAUSTED,
    IdempotencyKeyReused: grpc.StatusCode.ALREADY_EXISTS,
    ConfirmationNotPending: grpc.StatusCode.FAILED_PRECONDITION,
    ReplicaUnavailable: grpc.StatusCode.UNAVAILABLE,
    ReplicaFailed: grpc.StatusCode.INTERNAL,
    BeyondLastSeq: grpc.StatusCode.OUT_OF_RANGE,
    HistoryTrimmed: grpc.StatusCode.OUT_OF_RANGE,
    WatcherLagging: grpc.StatusCode.ABORTED,
    ArtifactOutsideRun: grpc.StatusCode.PERMISSION_DENIED,
    ArtifactMissing: grpc.StatusCode.DATA_LOSS,
    ArtifactChanged: grpc.StatusCode.DATA_LOSS,
    RunFileMissing: grpc.StatusCode.NOT_FOUND,
    RunFilesNotReady: grpc.StatusCode.FAILED_PRECONDITION,
    RunNotOngoing: grpc.StatusCode.FAILED_PRECONDITION,
    NoModel: grpc.StatusCode.FAILED_PRECONDITION,
}
# The API's name for what an error's `resource` names (google.rpc.ResourceInfo).
RESOURCE_TYPE_OF_RUN_ERROR: dict[type[RunError], str] = {
    RunNotFound: "verity.v1.Run",
    IdempotencyKeyReused: "verity.v1.Run",
    RecipeNotFound: "verity.v1.Recipe",
    ArtifactNotFound: "verity.v1.Artifact",
    RunFileMissing: "verity.v1.RunFile",
}


@dataclass(frozen=True)
class FieldViolation:
    field: str
    description: str


@dataclass
class ServiceError(Exception):
    code: grpc.StatusCode
    message: str
    field_violations: Sequence[FieldViolation] = ()
    reason: str = ""
    metadata: Mapping[str, str] = field(default_factory=dict)
    resource_type: str = ""
    resource_name: str = ""

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"

    def to_status(self) -> status_pb2.Status:
        details: list[Any] = []
        if self.field_violations:
            details.append(
                error_details_pb2.BadRequest(
                    field_violations=[
                        error_details_pb2.BadRequest.FieldViolation(field=v.field, description=v.description)
                        for v in self.field_violations
                    ]
                )
            )
        if self.reason:
            details.append(error_details_pb2.ErrorInfo(reason=self.reason, domain=ERROR_DOMAIN, metadata=dict(self.metadata)))
        if self.resource_type:
            details.append(
                error_details_pb2.ResourceInfo(
                    resource_type=self.resource_type, resource_name=self.resource_name, description=self.message
                )
            )
        packed = []
        for detail in details:
            wrapper = any_pb2.Any()
            wrapper.Pack(detail)
            packed.append(wrapper)
        return status_pb2.Status(code=self.code.value[0], message=self.message, details=packed)


def problem_violation(problem: Problem) -> FieldViolation:
    where = f"{problem.source}:{problem.line}:{problem.col}" if problem.line else problem.source
    return FieldViolation(field=problem.path, description=f"{where}: {problem.message} [{problem.code}]")


def recipe_invalid(error: RecipeInvalid, what: str) -> ServiceError:
    """INVALID_ARGUMENT for a bad recipe or bad inputs, one field violation per problem."""
    count = len(error.problems)
    first = error.problems[0] if error.problems else None
    headline = f"{what} is invalid ({count} problem{'s' if count != 1 else ''})"
    if first is not None:
        headline += f"; first: {first}"
    return ServiceError(
        grpc.StatusCode.INVALID_ARGUMENT,
        headline,
        field_violations=[problem_violation(p) for p in error.problems],
    )


def load_or_report(catalog: RecipeCatalog, which: str | None, recipe_yaml: str, recipe_name: str) -> LoadedRecipe:
    """`RecipeCatalog.recipe_from_request`, with an invalid recipe reported as INVALID_ARGUMENT."""
    try:
        return catalog.recipe_from_request(which, recipe_yaml, recipe_name)
    except RecipeInvalid as error:
        raise recipe_invalid(error, "the recipe") from None


def from_run_error(error: RunError) -> ServiceError:
    """A typed error of the runs as the status it is sent with: its message, reason and metadata,
    the field of a bad request, and the resource it names."""
    kind = type(error)
    field_path = getattr(error, "field_path", None)
    resource_type = RESOURCE_TYPE_OF_RUN_ERROR.get(kind, "") if error.resource else ""
    # A kind without a status of its own is sent as its nearest listed ancestor's, else INTERNAL.
    code = next((STATUS_OF_RUN_ERROR[k] for k in kind.__mro__ if k in STATUS_OF_RUN_ERROR), grpc.StatusCode.INTERNAL)
    return ServiceError(
        code,
        error.message,
        field_violations=[FieldViolation(field_path, error.description)] if isinstance(error, InvalidRequest) and field_path else (),
        reason=error.reason,
        metadata=error.metadata,
        resource_type=resource_type,
        resource_name=error.resource if resource_type else "",
    )


def store_unavailable(failure: StoreWriteError) -> ServiceError:
    """UNAVAILABLE while the run store cannot write: retrying later is the right thing to do."""
    return ServiceError(
        grpc.StatusCode.UNAVAILABLE,
        f"{failure}; retry later (live streams keep running)",
        reason="STORE_UNAVAILABLE",
        metadata={"held_events": str(failure.held_events)},
    )


def reports_errors(method: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate an async servicer method (unary or streaming) to report errors as rich statuses."""
    if inspect.isasyncgenfunction(method):

        @functools.wraps(method)
        async def streaming(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
            try:
                async for response in method(self, request, context):
                    yield response
            except Exception as error:  # noqa: BLE001 - every failure must become a status
                await _abort(context, error, method.__name__)

        return streaming

    @functools.wraps(method)
    async def unary(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            return await method(self, request, context)
        except Exception as error:  # noqa: BLE001 - every failure must become a status
            await _abort(context, error, method.__name__)

    return unary


async def _abort(context: grpc.aio.ServicerContext, error: Exception, method_name: str) -> None:
    if isinstance(error, grpc.aio.AbortError):
        raise error
    if isinstance(error, StoreWriteError):
        error = store_unavailable(error)
    elif isinstance(error, RunError):
        error = from_run_error(error)
    if not isinstance(error, ServiceError):
        reference = uuid.uuid4().hex[:12]
        _log.error("%s failed (ref %s)", method_name, reference, exc_info=error)
        error = ServiceError(
            grpc.StatusCode.INTERNAL, f"internal error in {method_name} (server log reference {reference})"
        )
    status = error.to_status()
    await context.abort(
        error.code,
        error.message,
        trailing_metadata=((STATUS_DETAILS_KEY, status.SerializeToString()),),
    )
