"""What a `verity run` cannot skip, beside the raw script it is compared with at start-up.

    uv run python tools/bench_run_floor.py [--rounds 7]

Issue 33 asks `verity run` of a one-page recipe to cost at most 1.25x the CPU of
tools/raw_pyppeteer_read.py, so everything Verity does beyond the script must fit in a quarter of
the script's CPU. This prints that budget beside the CPU of pieces every such run does, each in a
fresh process of its own (CPU seconds, user + system, every process the command started counted,
medians of alternating rounds):

- the interpreter alone (`python -c pass`), the baseline every piece includes;
- the recipe read and checked (`runtime.recipe.load`: its pydantic models and the YAML reader);
- the same, compiled into its plan;
- the readable-text worker answering one request (trafilatura, seed 003's page preparation);
- `verity run` itself and the raw script.

A piece's cost beyond the interpreter is a floor for the run: the run does that work and more.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tools.bench_run_start import adopt_orphans, one_page_site, raw_command, timed_cpu, verity_command  # noqa: E402

LOAD = "import sys; from runtime.recipe.load import load_recipe_file; load_recipe_file(sys.argv[1])"
COMPILE = ("import sys; from runtime.recipe.load import load_recipe_file; from runtime.plan.compiler import compile_recipe; "
           "compile_recipe(load_recipe_file(sys.argv[1]))")
# One reading, as a run asks the worker: a request line on stdin, then stdin closes and it exits.
READING = json.dumps({"html": "<html><head><title>Quote 1</title></head><body><main><h1>Quote 1</h1>"
                              "<p>Price <b>1017.25</b> on the bench exchange.</p></main></body></html>", "url": "http://127.0.0.1/quote-1.html"})


def _reading_command(request_file: Path) -> list[str]:
    # The worker reads requests from stdin; a shell redirect keeps `timed_cpu`'s plain run.
    worker = f"{sys.executable} -P -m runtime.browser.launch.readable_text < {request_file}"
    return ["sh", "-c", worker]


def main(rounds: int) -> None:
    adopt_orphans()
    with one_page_site("verity-bench-floor-") as (tmp, recipe, site):
        request = tmp / "reading.jsonl"
        request.write_text(READING + "\n", encoding="utf-8")
        pieces = {
            "interpreter alone (python -c pass)": lambda n: [sys.executable, "-c", "pass"],
            "recipe read and checked": lambda n: [sys.executable, "-c", LOAD, str(recipe)],
            "recipe read, checked and compiled": lambda n: [sys.executable, "-c", COMPILE, str(recipe)],
            "readable-text worker, one reading": lambda n: _reading_command(request),
            "raw pyppeteer script": lambda n: raw_command(site),
            "verity run": lambda n: verity_command(recipe, site, tmp / f"run-{n}"),
        }
        cpu: dict[str, list[float]] = {name: [] for name in pieces}
        for name, command in pieces.items():  # warm-up: bytecode compiled, files in the page cache
            timed_cpu(command(0), [])
        for number in range(1, rounds + 1):
            order = list(pieces.items())
            for name, command in order if number % 2 else reversed(order):
                timed_cpu(command(number), cpu[name])
    median = {name: statistics.median(values) for name, values in cpu.items()}
    base, raw = median["interpreter alone (python -c pass)"], median["raw pyppeteer script"]
    print(f"rounds: {rounds}; CPU seconds (user + system, every process counted), medians")
    for name, value in median.items():
        beyond = "" if name == "interpreter alone (python -c pass)" else f"   {value - base:+.3f} beyond the interpreter"
        print(f"  {name:<38} {value:.3f}{beyond}")
    budget = 0.25 * raw
    print(f"budget for all Verity does beyond the raw script at 1.25x: {budget:.3f} CPU s (a quarter of {raw:.3f})")
    print(f"verity run / raw script: {median['verity run'] / raw:.2f}x")
    floor = (median["recipe read and checked"] - base) + (median["readable-text worker, one reading"] - base)
    print(f"the recipe's check and one reading alone, beyond the interpreter: {floor:.3f} CPU s = {floor / budget:.1f}x the budget")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    main(parser.parse_args().rounds)
