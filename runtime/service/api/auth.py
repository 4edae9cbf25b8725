"""Bearer-token authentication for the gRPC server.

Clients send `authorization: Bearer <token>` metadata. The token is compared in constant time and
never logged: rejections log the method and the reason only.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from runtime.service.api.rich_errors import STATUS_DETAILS_KEY, ServiceError
from runtime.service.config.errors import ServiceConfigError

_log = logging.getLogger(__name__)

# Load balancers and orchestrators probe health without credentials.
UNAUTHENTICATED_SERVICES = frozenset({"grpc.health.v1.Health"})


def bearer_credentials(authorization: str) -> str:
    """The token of an `authorization` value in the Bearer scheme, or "" for any other scheme.
    The scheme name is case-insensitive (RFC 9110, 11.1), so `bearer` and `BEARER` count too."""
    scheme, _, credentials = authorization.strip().partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" else ""


class BearerTokenInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, token: str, exempt_services: frozenset[str] = UNAUTHENTICATED_SERVICES) -> None:
        if not token:
            raise ServiceConfigError("the bearer token must not be empty")
        self._expected = token.encode()
        self._exempt = exempt_services

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        method = handler_call_details.method
        service = method.split("/")[1] if method.count("/") >= 2 else ""
        if service in self._exempt:
            return await continuation(handler_call_details)
        presented = ""
        for key, value in handler_call_details.invocation_metadata or ():
            if key == "authorization":
                presented = value if isinstance(value, str) else value.decode("latin-1")
                break
        if presented and hmac.compare_digest(bearer_credentials(presented).encode(), self._expected):
            return await continuation(handler_call_details)
        reason = "MISSING_TOKEN" if not presented else "INVALID_TOKEN"
        _log.warning("rejected %s: %s", method, "no bearer token" if not presented else "wrong bearer token")
        handler = await continuation(handler_call_details)
        if handler is None:
            return None  # type: ignore[return-value]  # unknown method: let gRPC say UNIMPLEMENTED
        return _rejecting_handler(handler, reason)


def _rejecting_handler(handler: grpc.RpcMethodHandler, reason: str) -> grpc.RpcMethodHandler:
    error = ServiceError(
        grpc.StatusCode.UNAUTHENTICATED,
        "missing bearer token: send metadata 'authorization: Bearer <token>'"
        if reason == "MISSING_TOKEN"
        else "the bearer token is not valid for this server",
        reason=reason,
    )
    details = error.to_status().SerializeToString()

    async def reject(request: Any, context: grpc.aio.ServicerContext) -> None:
        await context.abort(error.code, error.message, trailing_metadata=((STATUS_DETAILS_KEY, details),))

    async def reject_stream(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        # A streaming method's behaviour is an async generator: wrappers (the tracing
        # interceptor) iterate it, and a plain coroutine cannot be iterated.
        await reject(request, context)
        yield  # never reached: abort raised

    serializers = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }
    if handler.unary_unary:
        return grpc.unary_unary_rpc_method_handler(reject, **serializers)
    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(reject_stream, **serializers)
    if handler.stream_unary:
        return grpc.stream_unary_rpc_method_handler(reject, **serializers)
    return grpc.stream_stream_rpc_method_handler(reject_stream, **serializers)
