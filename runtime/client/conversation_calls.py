"""The calls of a conversation (a run started with `conversation=True`): its next message, its end
and its messages. A part of `VerityClient`, kept apart by the one job it has."""

from __future__ import annotations

from typing import Any

from runtime.service.gen.verity.v1 import agent_service_pb2 as agent_pb
from runtime.service.gen.verity.v1 import events_pb2 as events_pb


class ConversationCalls:
    agent: Any
    _unary: Any

    def send_message(self, run_id: str, *, text: str = "", steps_yaml: str = "") -> agent_pb.SendMessageResponse:
        """Start the next turn of a conversation that waits in `ongoing`: words for its model, or
        recipe steps (a YAML list). Its events follow on the run's stream."""
        if bool(text) == bool(steps_yaml):
            raise ValueError("give exactly one of text and steps_yaml")
        message = {"text": text} if text else {"steps_yaml": steps_yaml}
        return self._unary(self.agent.SendMessage, agent_pb.SendMessageRequest(run_id=run_id, **message))  # type: ignore[no-any-return]

    def end_run(self, run_id: str) -> agent_pb.RunInfo:
        """End a conversation that waits in `ongoing`; the run as it ended."""
        return self._unary(self.agent.EndRun, agent_pb.EndRunRequest(run_id=run_id)).run  # type: ignore[no-any-return]

    def list_messages(self, run_id: str, page_size: int = 0) -> list[events_pb.Event]:
        """A conversation's messages (events with a `message` payload), oldest first: every page,
        `page_size` a page (0: the server's default)."""
        found: list[events_pb.Event] = []
        token = ""
        while True:
            messages, token = self.list_messages_page(run_id, page_size, token)
            found.extend(messages)
            if not token:
                return found

    def list_messages_page(self, run_id: str, page_size: int = 0, page_token: str = "") -> tuple[list[events_pb.Event], str]:
        """One page of a conversation's messages and the token of the next ("" after the last)."""
        request = agent_pb.ListMessagesRequest(run_id=run_id, page_size=page_size, page_token=page_token)
        page = self._unary(self.agent.ListMessages, request)
        return list(page.messages), page.next_page_token
