"""A client-side interceptor that loses replies: the call reaches the server over the real channel
and completes there, and then its answer is thrown away, as a dropped connection or an expired
deadline would lose it. The edge of the system, not our logic: the server and client are real."""

from __future__ import annotations

from typing import Any

import grpc

from runtime.client import VerityClient
from runtime.service.gen.verity.v1 import agent_service_pb2_grpc as agent_grpc


class LostReply(grpc.RpcError):
    """What the client sees instead of the answer."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "the connection dropped before the reply arrived (lost by the test)"

    def trailing_metadata(self) -> tuple[()]:
        return ()

    def result(self, timeout: float | None = None) -> Any:
        raise self


class LoseReplies(grpc.UnaryUnaryClientInterceptor):
    """Loses the replies of the first `count` calls of `method` (such as "StartRun"); keeps what
    the server answered in `lost`, so a test can compare it with what the retry got."""

    def __init__(self, method: str, count: int = 1) -> None:
        self.method = method
        self.remaining = count
        self.lost: list[Any] = []

    def intercept_unary_unary(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        outcome = continuation(client_call_details, request)
        if self.remaining and client_call_details.method.endswith(f"/{self.method}"):
            self.remaining -= 1
            self.lost.append(outcome.result())  # the server did answer
            return LostReply()
        return outcome


def losing_replies(client: VerityClient, interceptor: LoseReplies) -> VerityClient:
    """`client`, its AgentService calls going through `interceptor`."""
    client.agent = agent_grpc.AgentServiceStub(grpc.intercept_channel(client.channel, interceptor))
    return client
