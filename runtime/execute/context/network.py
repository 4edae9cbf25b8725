"""The run's network policy (issue 8): one judge for every URL the run chooses, the policy its
browser context enforces, and what the policy refused.

Two policies, both from the recipe's `target`:

- the target policy: `allowed_domains` and the private-network rule. Every URL the run itself
  chooses is judged by it before the browser is asked: start and step URLs, fallback results,
  agent tool arguments. It is the question "may this page be the run's page?";
- the browser policy: the target policy plus the host of `fallback.search_url` (where the recipe
  says to search; its results are still judged by the target policy). The session's policy proxy
  enforces it on every request of the run's browser context.

For recipes arriving over gRPC the server's `allow_private_network` decides about private
networks instead of the recipe (`private_network_override`): a recipe someone sends cannot open
the server's own network to itself.

Each refused request becomes a `guardrail_tripped` event (the first `REPORTED_ONE_BY_ONE`; the
rest are summed up in one more at the end) and `blocked_requests` in verdict.json.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from runtime.browser.tab.top_frame import TopFrameBlock
from runtime.events import EventLog, GuardrailTripped
from runtime.execute.values.run_values import RunValues
from runtime.outcomes import BlockerKind
from runtime.plan.model import Plan
from runtime.policy import BlockedRequest, NetworkPolicy, UrlJudgement, judge_url, parse_url
from runtime.policy.urls import UrlError

NETWORK_GUARD = "network_policy"
REPORTED_ONE_BY_ONE = 20
VERDICT_SAMPLES = 10


@dataclass(frozen=True)
class PathRefusal:
    """Why the run's current page path stops: its blocker kind, a sentence, and the evidence
    (the attempted URL, the trigger or redirect hop, the tab and frame)."""

    kind: BlockerKind
    reason: str
    evidence: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of_block(cls, block: TopFrameBlock) -> PathRefusal:
        return cls(block.blocker_kind, f"the network policy refused the top frame's navigation to {block.url}: {block.reason}", block.evidence())

    @classmethod
    def of_judgement(cls, judgement: UrlJudgement) -> PathRefusal:
        assert judgement.blocker_kind is not None
        # Shaped like a page's evidence: the URL, and no status, since it was never loaded.
        evidence = {"status": None, **judgement.evidence(), "trigger": "the run's own navigation", "seen_by": "judge"}
        return cls(judgement.blocker_kind, f"{judgement.url} was refused before it was opened: {judgement.reason}", evidence)


class RunNetwork:
    """Built once per run (`for_run`); `judge` answers for the target policy."""

    def __init__(self, target: NetworkPolicy, browser: NetworkPolicy, events: EventLog) -> None:
        self.target = target
        self.browser = browser
        self._events = events
        self._blocked = 0
        self._by_kind: Counter[str] = Counter()
        self._samples: list[dict[str, Any]] = []

    @classmethod
    def for_run(cls, plan: Plan, values: RunValues, events: EventLog, *, private_network_override: bool | None = None) -> RunNetwork:
        target_spec = plan.target
        if private_network_override is None:
            allow_private, listed_count = bool(target_spec.get("allow_private_network", False)), True
        else:
            allow_private, listed_count = private_network_override, False
        target = NetworkPolicy.of(
            target_spec.get("allowed_domains", []), allow_private_network=allow_private, listed_private_hosts=listed_count
        )
        return cls(target, target.also_allowing(_search_endpoints(plan, values)), events)

    def judge(self, url: str) -> UrlJudgement:
        """May the run choose `url` as its page (the target policy)?"""
        return judge_url(url, self.target)

    # ----------------------------------------------------------------- blocked requests

    async def on_blocked(self, blocked: BlockedRequest) -> None:
        """The policy proxy's listener: count the refusal, keep the first samples, report it."""
        self._blocked += 1
        self._by_kind[blocked.kind] += 1
        shown = blocked.to_dict()
        if len(self._samples) < VERDICT_SAMPLES:
            self._samples.append(shown)
        if self._blocked <= REPORTED_ONE_BY_ONE:
            detail = f"refused {blocked.method} {blocked.target[:200]}: {blocked.reason}"
            self._events.emit(GuardrailTripped(guard=NETWORK_GUARD, blocker_kind=blocked.blocker_kind, detail=detail, evidence=shown))

    def finish(self) -> None:
        """At the end of the run: one event for the refusals not reported one by one."""
        unreported = self._blocked - REPORTED_ONE_BY_ONE
        if unreported > 0:
            detail = f"{unreported} more request(s) refused, not reported one by one ({self._blocked} in all)"
            self._events.emit(GuardrailTripped(guard=NETWORK_GUARD, blocker_kind=None, detail=detail, evidence={"by_kind": dict(self._by_kind)}))

    def summary(self) -> dict[str, Any]:
        """verdict.json's `blocked_requests`: the count, by blocker kind, and the first samples."""
        return {"count": self._blocked, "by_kind": dict(self._by_kind), "samples": list(self._samples)}


def _search_endpoints(plan: Plan, values: RunValues) -> list[tuple[Any, int]]:
    """The host and port of the recipe's fallback search page, when it is an http(s) URL."""
    template = plan.fallback.get("search_url")
    if not template:
        return []
    try:
        parsed = parse_url(values.with_extra(template, query="q"))
    except (UrlError, ValueError, KeyError):
        return []
    if parsed.scheme not in ("http", "https") or parsed.host is None or parsed.effective_port is None:
        return []
    return [(parsed.host, parsed.effective_port)]
