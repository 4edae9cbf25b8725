"""`verity mcp`: the recipes of a directory as MCP tools, over stdio (default) or Streamable HTTP.

It takes `verity serve`'s flags (serve.py's `add_server_flags`: the store, run directories,
recipes, browsers, private networks, token and TLS) and hosts its runs the same way; runtime/mcp
is the MCP face.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import os
import re
import sys
from collections.abc import Sequence

from runtime.cli.serve import EXIT_CONFIG_ERROR, EXIT_STORE_WRITE_FAILED, add_server_flags, server_config_from_args
from runtime.mcp.shown_pages import SNAPSHOT_MODES

DEFAULT_HTTP_PORT = 8765
_SECRET_NAME = re.compile(r"[a-z_][a-z0-9_]*")  # a recipe input's name: each secret is one


def register(commands: argparse._SubParsersAction) -> None:
    mcp = commands.add_parser(
        "mcp",
        help="serve recipes as MCP tools (stdio, or Streamable HTTP with --http)",
        description="Serve the recipes of --recipes-dir as Model Context Protocol tools: calling one runs the recipe "
        "and returns its verdict, structured output and links to its report. On stdio (the default) an MCP client "
        "starts this command itself; with --http it listens for many clients at http(s)://HOST:PORT/mcp, with the "
        "bearer token and TLS settings of `verity serve`. Runs go to the same store and run directories as served runs.",
    )
    mcp.add_argument("--http", action="store_true", help=f"serve Streamable HTTP instead of stdio (default port {DEFAULT_HTTP_PORT})")
    mcp.add_argument(
        "--allowed-domains",
        action="append",
        metavar="DOMAINS",
        help="offer the browser tools (browser_navigate, browser_snapshot, browser_click, ...), each MCP session in its own run "
        "fenced to these domains (comma-separated or repeated, as a recipe's allowed_domains; private networks need --allow-private-network)",
    )
    mcp.add_argument(
        "--browser-idle-seconds",
        type=float,
        metavar="S",
        help="close a browser session whose client calls no browser tool for this long (default 600)",
    )
    mcp.add_argument(
        "--allow-evaluate",
        action="store_true",
        help="offer browser_evaluate (a JavaScript function run in the session's page, its requests fenced as the page's): off by default, "
        "as a recipe's page scripts need tools.allow to name browser_evaluate",
    )
    mcp.add_argument(
        "--snapshot-mode",
        choices=SNAPSHOT_MODES,
        default="incremental",
        help="incremental (the default): an answer whose page tree the client was already sent says `unchanged since snapshot sN` "
        "(its refs still hold) instead of sending it again; full: every answer sends the whole page, for clients that keep no context",
    )
    mcp.add_argument(
        "--secret",
        action="append",
        metavar="NAME=@env:VAR",
        help="a secret the browser sessions may type by name (browser_type's `secret`), read from the environment variable VAR; "
        "its value never appears in an answer, event, trace or run file (repeat for more)",
    )
    add_server_flags(mcp, default_port=DEFAULT_HTTP_PORT)
    mcp.set_defaults(handler=_mcp)


def _mcp(args: argparse.Namespace) -> int:
    from runtime.mcp.browser_session import DEFAULT_IDLE_SECONDS, BrowserToolset, session_recipe
    from runtime.mcp.transports import serve_http_until_signalled, serve_stdio
    from runtime.recipe import RecipeInvalid, load_recipe_with_registry
    from runtime.service.config.config_file import load_config_file
    from runtime.service.config.errors import ServiceConfigError
    from runtime.store import StoreError, StoreWriteError

    # Logs go to stderr always: on stdio, stdout carries the protocol.
    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        config = server_config_from_args(args)
        if args.port is None and not (args.config and "port" in load_config_file(args.config)):
            config = dataclasses.replace(config, port=DEFAULT_HTTP_PORT)
        domains = tuple(part.strip() for given in args.allowed_domains or () for part in given.split(",") if part.strip())
        idle = DEFAULT_IDLE_SECONDS if args.browser_idle_seconds is None else args.browser_idle_seconds
        if idle <= 0:
            print(f"verity mcp: --browser-idle-seconds must be more than 0, got {idle:g}", file=sys.stderr)
            return EXIT_CONFIG_ERROR
        secrets = _named_secrets(args.secret or ())
        if isinstance(secrets, str):
            print(f"verity mcp: --secret: {secrets}", file=sys.stderr)
            return EXIT_CONFIG_ERROR
        browser = BrowserToolset(domains, idle, evaluate=args.allow_evaluate, secrets=secrets, snapshot_mode=args.snapshot_mode)
        if domains:
            # Judged now, as a recipe's allowed_domains are: a bad pattern is the command's error, not a session's.
            load_recipe_with_registry(session_recipe(browser), "--allowed-domains")
        if args.http:
            asyncio.run(serve_http_until_signalled(config, browser))
        else:
            asyncio.run(serve_stdio(config, browser))
        return 0
    except RecipeInvalid as invalid:
        for problem in invalid.problems:
            print(f"verity mcp: --allowed-domains: {problem.path}: {problem.message}", file=sys.stderr)
        return EXIT_CONFIG_ERROR
    except StoreWriteError as error:
        print(f"verity mcp: {error}", file=sys.stderr)
        return EXIT_STORE_WRITE_FAILED
    except (ServiceConfigError, StoreError, OSError) as error:
        print(f"verity mcp: {error}", file=sys.stderr)
        return EXIT_CONFIG_ERROR


def _named_secrets(given: Sequence[str]) -> tuple[tuple[str, str], ...] | str:
    """`NAME=@env:VAR` flags as (NAME, "@env:VAR") pairs, each variable set; or what is wrong.
    A value itself is refused: on a command line it would show in every process list."""
    from runtime.secrets import ENV_PREFIX, read_env_inputs

    pairs: dict[str, str] = {}
    for flag in given:
        name, _, source = flag.partition("=")
        if not _SECRET_NAME.fullmatch(name):
            return f"{flag.partition('=')[0]!r} is not a secret name (lowercase letters, digits and _, not first a digit): write NAME=@env:VAR"
        if not source.startswith(ENV_PREFIX):
            return f"{name}: give the secret as @env:VAR (the variable holding it), never its value"
        pairs[name] = source
    _, problems = read_env_inputs(pairs, os.environ)
    return "; ".join(f"{problem.input_name}: {problem}" for problem in problems) or tuple(pairs.items())
