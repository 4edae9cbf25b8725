"""`verity run`'s answers to a run's approvals: given in advance (`--approve`, `--deny`), asked on
the terminal, or, with neither, a denial at once that says which flag would have answered.

A run that waits for a person nobody can reach would wait silently until its time budget ends it
as `timeout`; without a terminal the command therefore denies the step at once, names it and the
flags, and the verdict says `approval_denied` with the same words.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TextIO

from runtime.events import ConfirmationRequested, Event
from runtime.recipe import Problem

ALL_STEPS = "all"
YES = ("y", "yes")


@dataclass(frozen=True)
class ApprovalAnswers:
    """What the command line answers in advance: the steps approved (or all) and denied (or all)."""

    approve: frozenset[str] = frozenset()
    deny: frozenset[str] = frozenset()

    @classmethod
    def from_flags(cls, approve: Iterable[str] | None, deny: Iterable[str] | None, step_ids: Iterable[str]) -> tuple[ApprovalAnswers, list[Problem]]:
        """The flags' answers, and a problem for each step id the plan lacks or both flags name."""
        answers = cls(frozenset(approve or ()), frozenset(deny or ()))
        known = set(step_ids)
        problems: list[Problem] = []
        for flag, named in (("--approve", answers.approve), ("--deny", answers.deny)):
            for step_id in sorted(named - known - {ALL_STEPS}):
                problems.append(
                    Problem(flag, 0, 0, flag, f"the recipe has no step {step_id!r} (its steps: {', '.join(sorted(known))}); name a step id, or {ALL_STEPS}", "bad_input")
                )
        both = answers.approve & answers.deny
        if both:
            problems.append(Problem("--approve", 0, 0, "--approve", f"{', '.join(sorted(both))} is both approved and denied; name it in one flag", "bad_input"))
        return answers, problems

    def answer_for(self, step_id: str) -> bool | None:
        """True or False when the flags answer this step; None when a person has to."""
        if step_id in self.deny:
            return False
        if step_id in self.approve:
            return True
        if ALL_STEPS in self.deny:
            return False
        if ALL_STEPS in self.approve:
            return True
        return None


def describe(request: ConfirmationRequested) -> str:
    """The step, the tool and the target of a request, as a person reads them."""
    params = request.params or {}
    target = params.get("url") or params.get("target") or params.get("ref") or params.get("selector")
    if not target and isinstance(params.get("fields"), dict):
        target = "fields " + ", ".join(params["fields"])
    if not target:
        target = json.dumps(params, ensure_ascii=False)[:120]
    return f"step {request.state_id or '?'} (tool {request.tool}) on {target}"


class ApprovalAnswerer:
    """An event listener of the run: answers each ConfirmationRequested as `answers` say, else on
    the terminal, else denies it at once. `confirm(request_id, approve, reason)` is the run's
    `RunHandle.confirm`; it is safe from any thread."""

    def __init__(
        self,
        answers: ApprovalAnswers,
        confirm: Callable[[str, bool, str], Any],
        *,
        terminal: bool | None = None,
        stdin: TextIO | None = None,
        stderr: TextIO | None = None,
    ) -> None:
        self._answers = answers
        self._confirm = confirm
        self._stdin = stdin or sys.stdin
        self._stderr = stderr or sys.stderr
        self._terminal = self._stdin.isatty() if terminal is None else terminal
        self._loop = asyncio.get_running_loop()

    def __call__(self, event: Event) -> None:
        request = event.payload
        if not isinstance(request, ConfirmationRequested):
            return
        answer = self._answers.answer_for(request.state_id)
        if answer is not None:
            flag = "--approve" if answer else "--deny"
            self._loop.call_soon(self._confirm, request.request_id, answer, f"answered by {flag} on the command line")
        elif self._terminal:
            # A thread of its own that dies with the process: Ctrl-C stops the run while it asks.
            threading.Thread(target=self._ask, args=(request,), name="verity-approval-prompt", daemon=True).start()
        else:
            step = request.state_id or ALL_STEPS
            why = (
                f"{describe(request)} needs approval and there is no terminal to ask on: "
                f"run again with --approve {step} (or --approve all) to allow it, or --deny {step}"
            )
            print(f"verity: {why}", file=self._stderr, flush=True)
            self._loop.call_soon(self._confirm, request.request_id, False, why)

    def _ask(self, request: ConfirmationRequested) -> None:
        self._stderr.write(f"\napproval needed: {describe(request)}\n  {request.summary}\napprove? [y/N] ")
        self._stderr.flush()
        try:
            reply = self._stdin.readline()
        except (OSError, ValueError):
            reply = ""
        approved = reply.strip().lower() in YES
        self._confirm(request.request_id, approved, "approved on the terminal" if approved else "denied on the terminal")
