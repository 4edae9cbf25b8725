"""Running a MiniWoB++ recipe against the instrumented task pages and judging the verdict by the
task's own reward. Shared by the suite (one seed per task) and tools/sweep_miniwob.py (ten)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from runtime.events import FinalVerdict
from tests.fixtures.miniwob_server import MiniwobSite, Reward

REPO = Path(__file__).resolve().parents[2]
RECIPES = REPO / "recipes" / "miniwob"
# How long the task may take to report after the run ended (the report is sent when the episode
# ends, during the run; this only bounds a report still in flight).
REWARD_CEILING_S = 10.0


def miniwob_recipe(task: str) -> Path:
    return RECIPES / f"{task}.yaml"


@dataclass(frozen=True)
class Judged:
    task: str
    seed: int
    stop_reason: str
    reward: Reward | None

    @property
    def completed(self) -> bool:
        return self.stop_reason == "completed"

    @property
    def succeeded(self) -> bool:
        """The task's own judgement: a reward above 0."""
        return self.reward is not None and self.reward.reward > 0

    @property
    def agrees(self) -> bool:
        return self.completed == self.succeeded

    @property
    def disagreement(self) -> str:
        if self.agrees:
            return ""
        return "false success" if self.completed else "false failure"


def judge(site: MiniwobSite, episode: str, task: str, seed: int, verdict: FinalVerdict) -> Judged:
    reward = site.reward(episode, timeout=REWARD_CEILING_S)
    return Judged(task, seed, verdict.stop_reason.value, reward)
