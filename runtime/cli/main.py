"""The `verity` command line: one sub-command per area, each registered by its own module."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from runtime import __version__

Register = Callable[[argparse._SubParsersAction], None]


def _registrations() -> list[Register]:
    # Imported here so `verity --version` stays fast and one area's import error names itself.
    from runtime.execute import cli as execute_cli
    from runtime.gate import cli as gate_cli
    from runtime.recipe import cli as recipe_cli
    from runtime.service import cli as service_cli

    return [
        recipe_cli.register,
        gate_cli.register,
        service_cli.register,
        execute_cli.register,
    ]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="verity",
        description="Verity: a declarative, BDD-first browser agent. "
        "Recipes (YAML) compile to verifiable state-machine plans run in headless Chromium.",
    )
    parser.add_argument("--version", action="version", version=f"verity {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in _registrations():
        register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args))
    except KeyboardInterrupt:
        print("verity: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `verity ... | head`: the reader left; nothing to report.
        return 0
    except Exception as error:  # the last line of defence: a one-line error, never a traceback
        if os.environ.get("VERITY_DEBUG"):
            raise
        print(f"verity: internal error: {type(error).__name__}: {error} (set VERITY_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
