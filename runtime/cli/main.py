"""The `verity` command line: one module of runtime/cli/ per command, and the one catch-all.

An unexpected error in any command ends it with one line on stderr and execute_error's exit code
(20, "an action failed in a way no other reason covers"), never a traceback; VERITY_DEBUG=1 shows
the traceback instead.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import os
import sys
from collections.abc import Sequence

from runtime import __version__

# Each command and the module whose `register(subparsers)` defines it. Only the module of the
# command being run is imported: `verity --help` and `--version` import none, and `verity recipe`
# does not pay for the browser, the LLM client or gRPC.
COMMANDS: dict[str, tuple[str, str]] = {
    "recipe": ("runtime.cli.recipe", "validate, compile and describe recipes"),
    "run": ("runtime.cli.run", "run a recipe in headless Chromium and report a verified verdict"),
    "demo": ("runtime.cli.run", "run the bundled demo: a dead quote link recovered through search"),
    "serve": ("runtime.cli.serve", "run the gRPC server (AgentService, RecipeService, health, reflection)"),
    "mcp": ("runtime.cli.mcp", "serve recipes as MCP tools (stdio, or Streamable HTTP with --http)"),
    "client": ("runtime.cli.client", "talk to a running `verity serve`"),
    "bdd": ("runtime.cli.bdd", "check that every contract is proven by a scenario bound to a passing test"),
    "report": ("runtime.cli.report", "write a run's self-contained HTML report (RUN_DIR/report.html)"),
    "cache": ("runtime.cli.cache", "list, show and clear the verified action cache agent steps replay from"),
    "trace": ("runtime.cli.trace", "summarize runs' OpenTelemetry traces: seed 004's reliability figures"),
}


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="verity",
        description="Verity: a declarative, BDD-first browser agent. "
        "Recipes (YAML) compile to verifiable state-machine plans run in headless Chromium.",
    )
    parser.add_argument("--version", action="version", version=f"verity {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = next((arg for arg in argv if not arg.startswith("-")), None)
    if chosen in COMMANDS:
        module_name = COMMANDS[chosen][0]
        module = sys.modules.get(module_name)
        if module is None:
            # Frozen only when this call imports it: a process calling main() again (a test, an
            # embedding program) would otherwise freeze whatever it had allocated since.
            from runtime.import_heap import imports_left_out_of_collections

            with imports_left_out_of_collections():
                module = importlib.import_module(module_name)
        module.register(commands)
    for name, (_module, summary) in COMMANDS.items():
        if name not in commands.choices:
            commands.add_parser(name, help=summary)
    return parser


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parse a `verity` command line, loading only the area its command belongs to."""
    return build_parser(argv).parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(arguments)
    handler = getattr(args, "handler", None)
    if handler is None:
        build_parser(arguments).print_help()
        return 2
    try:
        return int(handler(args))
    except KeyboardInterrupt:
        print("verity: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `verity ... | head`: the reader left; nothing to report.
        return 0
    except Exception as error:  # the one last line of defence: a one-line error, never a traceback
        if os.environ.get("VERITY_DEBUG"):
            raise
        from runtime.outcomes import StopReason  # only now: `verity --help` imports no area

        print(f"verity: internal error: {type(error).__name__}: {error} (set VERITY_DEBUG=1 for the traceback)", file=sys.stderr)
        return StopReason.EXECUTE_ERROR.exit_code


def entry() -> None:
    """The `verity` program (and `python -m runtime.cli.main`): `main`, then an exit that skips
    the interpreter's teardown.

    Tearing down a run's interpreter (clearing every module and freeing the objects its imports
    built) took about 0.08 s, a twentieth of a one-page `verity run` (BENCHMARKS.md, "Run
    start"), and the process is leaving anyway. Everything else an exit does still happens first:
    non-daemon threads are joined and every other exit handler (logging's flush, OpenTelemetry's
    span export) runs, because this one is registered before them all and exit handlers run last
    registered first. Under coverage, whose handler was registered earlier still, it steps aside.
    """
    code: list[int] = []
    atexit.register(_leave_without_teardown, code)
    code.append(main())
    sys.exit(code[0])


def _leave_without_teardown(code: list[int]) -> None:
    if not code or "coverage" in sys.modules:
        return  # main raised, or coverage has data to save after this: the ordinary exit
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken pipe: nothing more can be said
            pass
    os._exit(code[0])


if __name__ == "__main__":
    entry()
