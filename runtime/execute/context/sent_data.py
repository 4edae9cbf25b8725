"""The data the run put into its pages, and the refused requests that carried some of it (EXEC-101).

Acts note the text they are about to type or choose (`put`) before the page gets it, since the
page may send it while the act runs (a `submit`). The browser session tells every request its
policy refused (`heard`, a `SentRequest`); the ones that carried the run's data wait here until a
step claims them (`claim`, reads/refused_sends.py): that step fails with the refusal's kind.

A request the page made while the run was typing or choosing (`typing`: a type act without
`submit`, a select, a key of text pressed) is not the act's own send, so it is left out. Typing
sends nothing: what a page sends as text is typed is the page's doing (a keylogger, an autosave,
a suggestion box), which the fence stops and the blocked requests record, while the act itself
did what it was asked. A submission (a click, Enter, `submit: true`) is not typing, and a refused
request made during one is the act's own send.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from runtime.browser.tab.sent_requests import SentRequest
from runtime.execute.judges.sent_data import carried_values, normal, shown_url
from runtime.outcomes import BlockerKind
from runtime.secrets import Secrets


@dataclass(frozen=True)
class DataRefusal:
    """A refused request and the run's values it carried (each as evidence may show it)."""

    send: SentRequest
    carried: tuple[dict[str, str], ...]
    url: str  # as evidence may show it
    texts: frozenset[str]  # the values' normal texts: never shown (a secret's among them)

    @property
    def kind(self) -> BlockerKind:
        assert self.send.blocker_kind is not None  # only refused requests become DataRefusals
        return self.send.blocker_kind

    def evidence(self) -> dict[str, Any]:
        send = self.send
        return {
            "url": self.url,
            "method": send.method,
            "resource_type": send.resource_type,
            "carried": [dict(value) for value in self.carried],
            "blocker_kind": self.kind.value,
            "reason": send.reason,
            "seen_by": send.seen_by,
            "tab_id": send.tab_id,
            "frame_id": send.frame_id,
        }


# The typing spans kept: a refusal is heard soon after its request was made.
_TYPING_SPANS = 64


class RunSentData:
    def __init__(self, secrets: Secrets) -> None:
        self._secrets = secrets
        self._texts: dict[str, str] = {}  # normal text -> how evidence may show it
        self._unclaimed: list[DataRefusal] = []
        self._delivered: set[str] = set()  # normal texts an allowed address received
        # time.monotonic() spans of the run's typing acts: [start, end], end None while one runs.
        self._typing: list[list[float | None]] = []

    @contextmanager
    def typing(self, typing: bool = True) -> Iterator[None]:
        """Around an act that only types or chooses (`typing`): the requests the page makes
        meanwhile are not its send (module docstring). Nothing when `typing` is false."""
        if not typing:
            yield
            return
        span: list[float | None] = [time.monotonic(), None]
        self._typing.append(span)
        try:
            yield
        finally:
            span[1] = time.monotonic()
            del self._typing[:-_TYPING_SPANS]

    def _made_while_typing(self, made: float) -> bool:
        return any(start is not None and start <= made and (end is None or made <= end) for start, end in self._typing)

    def put(self, text: Any) -> None:
        """The run is about to put `text` into a page (a secret is shown as its marker)."""
        value = normal(str(text if text is not None else ""))
        if value and value not in self._texts:
            self._texts[value] = self._secrets.redact_text(" ".join(str(text).split()))

    def heard(self, send: SentRequest) -> None:
        """The session's listener: keep a refused request that carried the run's data."""
        if not self._texts and not self._secrets:
            return  # the run has put nothing into a page yet: every request of a read-only run
        # Every secret counts, typed by the run or not: only the run can have put it there.
        texts = {**{normal(value): self._secrets.redact_text(value) for value in self._secrets.values()}, **self._texts}
        carried = carried_values(send, texts)
        if not carried:
            return
        if send.blocker_kind is None:
            self._delivered.update(carried)
            return
        if self._made_while_typing(send.made):
            return
        self._unclaimed.append(DataRefusal(send, tuple(carried.values()), shown_url(send.url, self._secrets), frozenset(carried)))

    def claim(self) -> list[DataRefusal]:
        """The refusals of the run's data no step has failed for yet, but for those whose every
        value an allowed address received too; from now on, all are claimed."""
        claimed, self._unclaimed = self._unclaimed, []
        return [refusal for refusal in claimed if not refusal.texts <= self._delivered]

    @property
    def pending(self) -> int:
        """How many wait unclaimed: a mark for `since`."""
        return len(self._unclaimed)

    def since(self, mark: int) -> list[DataRefusal]:
        """The unclaimed refusals heard after `mark` (none are claimed while one act runs)."""
        return [refusal for refusal in self._unclaimed[mark:] if not refusal.texts <= self._delivered]

    def describe(self, refusal: DataRefusal) -> str:
        """One sentence: which request the fence refused, and which of the run's values it carried."""
        send = refusal.send
        values = ", ".join(repr(value["value"]) for value in refusal.carried)
        return f"the fence refused {send.method} {refusal.url} ({send.resource_type}), which carried the run's data {values}: {send.reason}"
