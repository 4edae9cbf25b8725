"""Two checkouts of Verity against each other, in the same minutes: the runtime-overhead recipe
(`bench_runtime.py`'s 20 pages) or snapshots of the 10,000-element page (`bench_observe.py`'s),
round by round, the two sides alternating and the order flipped every round.

    uv run python tools/bench_paired.py --base /path/to/other/checkout recipe [--rounds 40]
    uv run python tools/bench_paired.py --base /path/to/other/checkout observe [--rounds 30] [--runs 5]

Each side is a process of its own that imports its own checkout's `runtime` (this checkout's
Python environment for both), with a Chromium and a warmed-up session of its own kept for the
whole measurement; only one side works at a time. On this shared machine a pass of one checkout
and then a pass of the other minutes later differ by more than most changes measured; rounds
seconds apart share the machine's load. It prints the medians of each side and the median of the
round-by-round ratios (this checkout / base), per figure: the recipe and its time in each driver
action and in the executor, or the snapshot and the observe verb.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]


async def _side(checkout: Path) -> None:
    """One side: set up, say "ready", then answer each command line with one JSON line."""
    sys.path[:0] = [str(checkout), str(checkout / "tools")]
    import bench_runtime

    from runtime.artifacts import ArtifactStore
    from runtime.browser import open_session
    from tests.fixtures.site_server import FixtureSite

    loop = asyncio.get_running_loop()
    async with bench_runtime.bench_bed(20) as (tmp, site, recipe_text, browser):
        with FixtureSite() as fixture:
            session = await open_session(browser, artifacts=ArtifactStore(Path(tempfile.mkdtemp(dir=tmp))))
            opened = await session.open_url(fixture.url("/big?n=10000"), timeout_ms=60_000)
            if not opened.ok:
                raise SystemExit(f"{checkout}: {opened.error}")
            await session.observe(timeout_ms=60_000)  # warm-up, as bench_observe's
            await bench_runtime.run_recipe_once(browser, bench_runtime.bench_recipe(2), site, tmp, 0)
            print("ready", flush=True)
            number = 1
            while (line := await loop.run_in_executor(None, sys.stdin.readline)).strip() not in ("", "quit"):
                what, runs = line.split()
                if what == "recipe":
                    elapsed, actions = await bench_runtime.run_recipe_once(browser, recipe_text, site, tmp, number)
                    number += 1
                    answer = {"recipe": elapsed, **{name: ms / 1000 for name, ms in actions.items()}}
                    answer["(executor)"] = elapsed - sum(ms / 1000 for ms in actions.values())
                else:
                    times: dict[str, list[float]] = {"snapshot": [], "observe": []}
                    for _ in range(int(runs)):
                        for verb in times:
                            started = time.perf_counter()
                            result = await getattr(session, verb)(timeout_ms=60_000)
                            times[verb].append(time.perf_counter() - started)
                            if not result.ok:
                                raise SystemExit(f"{checkout}: {verb}: {result.error}")
                    answer = {verb: statistics.median(values) for verb, values in times.items()}
                print(json.dumps(answer), flush=True)


def _compare(base: Path, what: str, rounds: int, runs: int) -> None:
    sides = {
        name: subprocess.Popen(
            [sys.executable, __file__, "--side", str(checkout)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tempfile.gettempdir()
        )
        for name, checkout in (("base", base), ("this", HERE))
    }
    for name, side in sides.items():
        if side.stdout.readline().strip() != "ready":  # type: ignore[union-attr]
            raise SystemExit(f"the {name} side did not start")
    answers: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    for number in range(rounds):
        for name in ("base", "this") if number % 2 == 0 else ("this", "base"):
            side = sides[name]
            side.stdin.write(f"{what} {runs}\n")  # type: ignore[union-attr]
            side.stdin.flush()  # type: ignore[union-attr]
            answers[name].append(json.loads(side.stdout.readline()))  # type: ignore[union-attr]
        main = "recipe" if what == "recipe" else "snapshot"
        print(f"round {number + 1:>2} {time.strftime('%H:%M:%S')}: {main} base {answers['base'][-1][main]:.3f} s, this {answers['this'][-1][main]:.3f} s", flush=True)
    for side in sides.values():
        side.stdin.write("quit\n")  # type: ignore[union-attr]
        side.stdin.flush()  # type: ignore[union-attr]
        side.wait(timeout=120)
    print(f"{what}, {rounds} rounds alternating (base: {base}; this: {HERE})")
    for figure in answers["base"][0]:
        before = [answer.get(figure, 0.0) for answer in answers["base"]]
        after = [answer.get(figure, 0.0) for answer in answers["this"]]
        ratios = [a / b for a, b in zip(after, before, strict=True) if b]
        print(
            f"  {figure:<14} base {statistics.median(before):7.3f} s   this {statistics.median(after):7.3f} s   "
            f"round by round this/base: median {statistics.median(ratios):.3f}x"
        )


def main(argv: list[str] | None = None) -> Any:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", nargs="?", choices=("recipe", "observe"), default="recipe")
    parser.add_argument("--base", type=Path, help="the other checkout (its tools/bench_runtime.py and tests/fixtures are used)")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5, help="snapshots and observes per round (observe)")
    parser.add_argument("--side", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.side is not None:
        return asyncio.run(_side(options.side))
    if options.base is None:
        parser.error("--base is required")
    return _compare(options.base.resolve(), options.what, options.rounds, options.runs)


if __name__ == "__main__":
    main()
