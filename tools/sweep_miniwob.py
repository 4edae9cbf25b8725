"""MiniWoB++ sweep: each recipe in recipes/miniwob/ over N seeds, judged by the task's own reward.

    uv run python tools/sweep_miniwob.py [--seeds 10] [--first-seed 1] [--tasks click-option,enter-password] [--write]

Every run is a real `verity run` of the recipe (in process, one shared Chromium) against the task
pages served on loopback with the test instrumentation (tests/fixtures/miniwob_server.py), which
seeds the task and reports its reward; the recipe never sees the reward. Per task it prints the
success rate (reward > 0), the completed rate, and agreement: a run agrees when it ended
`completed` exactly when the reward was above 0. A false success (completed, reward <= 0) or a
false failure (not completed, reward > 0) is listed with its seed and the verdict's summary.
`--write` puts the table into BENCHMARKS.md (between its MiniWoB++ markers).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from runtime.browser import Browser, launch_browser  # noqa: E402
from runtime.events import EventLog  # noqa: E402
from runtime.execute import BrowserProvider, start_run  # noqa: E402
from runtime.plan import prepare_run  # noqa: E402
from runtime.recipe import load_recipe_with_registry  # noqa: E402
from runtime.run_layout import EXECUTIONS_FILE  # noqa: E402
from tests.execute.miniwob_runs import RECIPES, Judged, judge  # noqa: E402
from tests.fixtures.miniwob_server import MiniwobSite  # noqa: E402

BEGIN = "<!-- miniwob sweep begin -->"
END = "<!-- miniwob sweep end -->"
RUN_CEILING_S = 180


@dataclass
class TaskTally:
    task: str
    runs: list[Judged] = field(default_factory=list)
    summaries: dict[int, str] = field(default_factory=dict)

    def rate(self, predicate: str) -> str:
        hits = sum(1 for run in self.runs if getattr(run, predicate))
        return f"{hits}/{len(self.runs)}"


async def run_one(browser: Browser, site: MiniwobSite, task: str, seed: int, out: Path) -> tuple[Judged, str]:
    path = RECIPES / f"{task}.yaml"
    recipe, registry = load_recipe_with_registry(path.read_text(encoding="utf-8"), str(path), recipe_path=path)
    episode = site.new_episode()
    run_id = f"{task}-{seed}"
    order = prepare_run(recipe, {"base": site.base(episode), "seed": str(seed)}, registry=registry, run_id=run_id, run_dir=out / run_id)
    handle = start_run(order, events=EventLog(run_id), browser=BrowserProvider(browser=browser))
    verdict = await asyncio.wait_for(handle.task, RUN_CEILING_S)
    judged = await asyncio.to_thread(judge, site, episode, task, seed, verdict)
    return judged, verdict.summary + failed_state(out / run_id)


def failed_state(run_dir: Path) -> str:
    """The last state that did not succeed, for the failure list: which step and why."""
    executions = json.loads((run_dir / EXECUTIONS_FILE).read_text(encoding="utf-8"))
    failed = [e for e in executions if not e["ok"]]
    return f" ({failed[-1]['state_id']}: {failed[-1]['observation_summary']})" if failed else ""


async def sweep(tasks: list[str], seeds: range, out: Path) -> list[TaskTally]:
    tallies = []
    browser = await launch_browser()
    try:
        with MiniwobSite() as site:
            for task in tasks:
                tally = TaskTally(task)
                for seed in seeds:
                    judged, summary = await run_one(browser, site, task, seed, out)
                    tally.runs.append(judged)
                    tally.summaries[seed] = summary
                    reward = "none" if judged.reward is None else f"{judged.reward.reward:.2f} ({judged.reward.reason})"
                    print(f"{task} seed {seed}: {judged.stop_reason}, reward {reward}{' ' + judged.disagreement.upper() if not judged.agrees else ''}", flush=True)
                tallies.append(tally)
    finally:
        await browser.close()
    return tallies


def table(tallies: list[TaskTally], seeds: range, command: str) -> str:
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} with `{command}` ({len(seeds)} seeds per task, seeds {seeds.start} to {seeds.stop - 1}).",
        "",
        "| task | success (reward > 0) | completed | verdict agrees with reward | false successes | false failures |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for tally in tallies:
        false_successes = [run.seed for run in tally.runs if run.disagreement == "false success"]
        false_failures = [run.seed for run in tally.runs if run.disagreement == "false failure"]
        lines.append(
            f"| {tally.task} | {tally.rate('succeeded')} | {tally.rate('completed')} | **{tally.rate('agrees')}** | "
            f"{', '.join(f'seed {s}' for s in false_successes) or '0'} | {', '.join(f'seed {s}' for s in false_failures) or '0'} |"
        )
    failures = [(tally.task, run) for tally in tallies for run in tally.runs if not run.succeeded]
    if failures:
        lines += ["", "Runs the task did not reward, with how the run ended:", ""]
        for task, run in failures:
            summary = next(t.summaries[run.seed] for t in tallies if t.task == task)
            reward = "no reward reported" if run.reward is None else f"reward {run.reward.reward:.2f} ({run.reward.reason})"
            lines.append(f"- {task} seed {run.seed}: `{run.stop_reason}`, {reward}: {summary[:400]}")
    return "\n".join(lines)


def write_benchmarks(text: str) -> None:
    path = REPO / "BENCHMARKS.md"
    content = path.read_text(encoding="utf-8")
    if BEGIN not in content:
        content += f"\n## MiniWoB++ sweep (`tools/sweep_miniwob.py`)\n\n{BEGIN}\n{END}\n"
    before, rest = content.split(BEGIN, 1)
    _, after = rest.split(END, 1)
    path.write_text(f"{before}{BEGIN}\n{text}\n{END}{after}", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="how many seeds per task")
    parser.add_argument("--first-seed", type=int, default=1, help="the first seed (seeds never run before show what a recipe holds on)")
    parser.add_argument("--tasks", default="", help="comma-separated task names (default: every recipe in recipes/miniwob/)")
    parser.add_argument("--write", action="store_true", help="write the table into BENCHMARKS.md")
    args = parser.parse_args()
    tasks = [t for t in args.tasks.split(",") if t] or sorted(p.stem for p in RECIPES.glob("*.yaml"))
    with tempfile.TemporaryDirectory(prefix="verity-miniwob-") as out:
        seeds = range(args.first_seed, args.first_seed + args.seeds)
        tallies = asyncio.run(sweep(tasks, seeds, Path(out)))
    command = "uv run python tools/sweep_miniwob.py" + (f" --seeds {args.seeds}" if args.seeds != 10 else "")
    command += (f" --first-seed {args.first_seed}" if args.first_seed != 1 else "") + (f" --tasks {args.tasks}" if args.tasks else "")
    text = table(tallies, seeds, command)
    print(text)
    if args.write:
        write_benchmarks(text)
    return 0 if all(run.agrees for tally in tallies for run in tally.runs) else 1


if __name__ == "__main__":
    sys.exit(main())
