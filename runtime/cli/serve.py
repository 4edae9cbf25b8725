"""`verity serve`: the gRPC server, configured from flags, a config file and the environment."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

EXIT_CONFIG_ERROR = 2
EXIT_STORE_WRITE_FAILED = 1


def register(commands: argparse._SubParsersAction) -> None:
    serve = commands.add_parser(
        "serve",
        help="run the gRPC server (AgentService, RecipeService, health, reflection)",
        description="Serve the Verity gRPC API. The bearer token comes from --token, --token-file, the config "
        "file's token/token_file, or the VERITY_TOKEN environment variable, in that order. Without a "
        "token the server only listens on loopback; beyond loopback a token needs TLS (--tls-cert and "
        "--tls-key) unless --insecure is given. SIGTERM shuts down gracefully.",
    )
    add_server_flags(serve)
    serve.set_defaults(handler=_serve)


def add_server_flags(serve: argparse.ArgumentParser, default_port: int = 50051) -> None:
    """The flags of a server of runs, read by `server_config_from_args`: `verity serve` and
    `verity mcp` share them, so an operator learns one set."""
    serve.add_argument("--config", type=Path, metavar="FILE", help="YAML file with server settings (flags override it)")
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help=f"port (default {default_port}; 0 picks a free one)")
    serve.add_argument("--token", help="bearer token (visible in process lists: prefer --token-file or VERITY_TOKEN)")
    serve.add_argument("--token-file", type=Path, metavar="FILE", help="file holding the bearer token")
    serve.add_argument(
        "--store",
        type=_store_argument,
        metavar="PATH|URL",
        help="the run store: a SQLite file (default .verity/verity.db) or postgresql://user@host:port/database",
    )
    serve.add_argument("--runs-dir", type=Path, metavar="DIR", help="run directories (default .verity/runs)")
    serve.add_argument("--recipes-dir", type=Path, metavar="DIR", help="recipes startable by name (default recipes/)")
    serve.add_argument("--max-concurrent-runs", type=int, metavar="N")
    serve.add_argument("--max-message-bytes", type=int, metavar="BYTES")
    serve.add_argument("--subscriber-buffer", type=int, metavar="EVENTS", help="events a watcher may lag before it is cut off")
    serve.add_argument("--retain-events-per-run", type=int, metavar="N", help="keep only the newest N events of ended runs")
    serve.add_argument(
        "--idempotency-retention-seconds", type=float, metavar="S",
        help="how long a start's idempotency key returns the run it started (default 86400)",
    )
    serve.add_argument(
        "--conversation-idle-seconds", type=float, metavar="S",
        help="how long a conversation waits in ongoing for its next message before it ends conversation_idle (default 600)",
    )
    serve.add_argument("--grace-seconds", type=float, metavar="S", help="how long running runs may finish at shutdown")
    serve.add_argument(
        "--lease-seconds",
        type=float,
        metavar="S",
        help="replicas on one PostgreSQL store: a replica silent this long has its runs interrupted by another (default 15)",
    )
    serve.add_argument(
        "--browser-ws", action="append", metavar="URL",
        help="attach to a running Chromium's DevTools websocket instead of launching one; repeat it for a pool of browsers "
        "('URL id=NAME labels=A,B capacity=N' names, labels and bounds one)",
    )
    serve.add_argument(
        "--browser-ws-file", type=Path, metavar="FILE", help="DevTools websockets to attach to, one URL per line (# comments)"
    )
    serve.add_argument(
        "--browser-retry-max-seconds",
        type=float,
        metavar="S",
        help="the longest wait between attempts to get back a lost browser or endpoint (waits double from 0.5 s; default 15)",
    )
    serve.add_argument(
        "--browser-queue-length", type=int, metavar="N",
        help="runs that may wait for a busy browser or a run slot at once (default 64; 0: none waits)",
    )
    serve.add_argument(
        "--browser-wait-seconds", type=float, metavar="S",
        help="how long a run may wait for a browser or a run slot before it ends browser_unavailable (default 300)",
    )
    serve.add_argument("--tls-cert", type=Path, metavar="FILE", help="PEM certificate (chain) to serve TLS with")
    serve.add_argument("--tls-key", type=Path, metavar="FILE", help="PEM private key of --tls-cert")
    serve.add_argument(
        "--insecure",
        action="store_true",
        default=None,
        help="allow a bearer token over plain text beyond loopback (only behind a TLS-terminating proxy)",
    )
    serve.add_argument(
        "--tool-registry-root",
        type=Path,
        metavar="DIR",
        help="the directory recipes sent by clients may name tool registries in (default: none may be named)",
    )
    serve.add_argument(
        "--allow-private-network",
        action="store_true",
        default=None,
        help="let recipes sent by clients reach private networks (loopback, RFC 1918, link-local); off by default",
    )
    serve.add_argument("--webhook-url", metavar="URL", help="send every run's terminal state here, signed (needs a webhook secret)")
    serve.add_argument(
        "--webhook-allowed-url", action="append", metavar="URL", dest="webhook_allowed_urls",
        help="a URL (or a prefix ending in '/') a run's webhook_url option may name; repeatable",
    )
    serve.add_argument(
        "--webhook-secret-file", type=Path, metavar="FILE",
        help="file holding the webhook signing secret, whsec_ and a base64 key (or VERITY_WEBHOOK_SECRET)",
    )
    serve.add_argument(
        "--webhook-allow-private-network", action="store_true", default=None,
        help="let webhooks reach private addresses (loopback, RFC 1918, link-local); off by default",
    )
    serve.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))


def _store_argument(text: str) -> Any:
    # Checked on the text as typed: Path("postgresql://h/db") would already read "postgresql:/h/db".
    from runtime.store.location import parse_store_location, store_location_problem

    if problem := store_location_problem(text):
        raise argparse.ArgumentTypeError(problem)
    return parse_store_location(text)


def server_config_from_args(args: argparse.Namespace) -> Any:
    from runtime.service.config import browser_endpoints
    from runtime.service.config.config_file import load_config_file, read_token_file
    from runtime.service.config.server_config import ServerConfig

    values: dict[str, Any] = load_config_file(args.config) if args.config else {}
    flags = {
        "host": args.host,
        "port": args.port,
        "store_path": args.store,
        "runs_dir": args.runs_dir,
        "recipes_dir": args.recipes_dir,
        "max_concurrent_runs": args.max_concurrent_runs,
        "max_message_bytes": args.max_message_bytes,
        "subscriber_buffer": args.subscriber_buffer,
        "retain_events_per_run": args.retain_events_per_run,
        "shutdown_grace_seconds": args.grace_seconds,
        "idempotency_retention_seconds": args.idempotency_retention_seconds,
        "conversation_idle_seconds": args.conversation_idle_seconds,
        "lease_seconds": args.lease_seconds,
        "browser_ws_endpoints": browser_endpoints.endpoints_from_flags(args.browser_ws, args.browser_ws_file),
        "browser_retry_max_seconds": args.browser_retry_max_seconds,
        "browser_queue_length": args.browser_queue_length,
        "browser_wait_seconds": args.browser_wait_seconds,
        "tls_cert": args.tls_cert,
        "tls_key": args.tls_key,
        "insecure": args.insecure,
        "allow_private_network": args.allow_private_network,
        "tool_registry_root": args.tool_registry_root,
        "webhook_url": args.webhook_url,
        "webhook_allowed_urls": tuple(args.webhook_allowed_urls) if args.webhook_allowed_urls else None,
        "webhook_allow_private_network": args.webhook_allow_private_network,
    }
    values.update({k: v for k, v in flags.items() if v is not None})
    if args.token:
        values["token"] = args.token
    elif args.token_file:
        values["token"] = read_token_file(args.token_file)
    elif not values.get("token") and os.environ.get("VERITY_TOKEN"):
        values["token"] = os.environ["VERITY_TOKEN"]
    if args.webhook_secret_file:
        values["webhook_secret"] = read_token_file(args.webhook_secret_file, "webhook secret file")
    elif not values.get("webhook_secret") and os.environ.get("VERITY_WEBHOOK_SECRET"):
        values["webhook_secret"] = os.environ["VERITY_WEBHOOK_SECRET"]
    return ServerConfig(**values)


def _serve(args: argparse.Namespace) -> int:
    from runtime.service.config.errors import ServiceConfigError
    from runtime.store import StoreError, StoreWriteError

    logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        config = server_config_from_args(args)
        # Checked here, before the server's modules are imported, so a refusal costs the user a
        # fraction of a second; the server checks again when it starts.
        config.validate()
        return asyncio.run(_serve_until_signalled(config))
    except StoreWriteError as error:
        print(f"verity serve: {error}", file=sys.stderr)
        return EXIT_STORE_WRITE_FAILED
    except (ServiceConfigError, StoreError) as error:
        print(f"verity serve: {error}", file=sys.stderr)
        return EXIT_CONFIG_ERROR


async def _serve_until_signalled(config: Any) -> int:
    from runtime.service.api.server import VerityServer

    server = VerityServer(config)
    await server.start()
    print(f"verity serve: listening on {server.target}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    print("verity serve: shutting down", flush=True)
    await server.stop()
    print("verity serve: stopped", flush=True)
    return 0
