"""`verity client run|stream|confirm|stop|get|artifact|file|list|browsers|send|end`: talk to a running `verity serve`
through the Python client (runtime/client/)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from runtime.cli.serve import EXIT_CONFIG_ERROR
from runtime.outcomes import StopReason

EXIT_INVALID_ARGUMENT = StopReason.INVALID_INPUT.exit_code
EXIT_RPC_ERROR = 4
DEFAULT_TARGET = "127.0.0.1:50051"


def register(commands: argparse._SubParsersAction) -> None:
    client = commands.add_parser("client", help="talk to a running `verity serve`")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--target", default=os.environ.get("VERITY_TARGET", DEFAULT_TARGET), help="host:port of the server")
    common.add_argument("--token", default=None, help="bearer token (default: VERITY_TOKEN)")
    common.add_argument("--json", action="store_true", help="print JSON (one object per line for events)")
    common.add_argument(
        "--tls-ca",
        type=Path,
        default=Path(os.environ["VERITY_TLS_CA"]) if os.environ.get("VERITY_TLS_CA") else None,
        metavar="FILE",
        help="connect with TLS, trusting the CA certificate(s) in this PEM file (default: VERITY_TLS_CA)",
    )
    common.add_argument("--tls", action="store_true", help="connect with TLS, trusting the system's CA certificates")
    common.add_argument(
        "--insecure", action="store_true", help="allow sending the token in plain text to a host beyond loopback"
    )
    actions = client.add_subparsers(dest="client_command", metavar="ACTION")
    client.set_defaults(handler=lambda _args: client.print_help() or 2)

    run = actions.add_parser("run", parents=[common], help="start a run and stream its events; exits with its stop reason's code")
    source = run.add_mutually_exclusive_group(required=True)
    source.add_argument("--recipe", type=Path, metavar="FILE", help="send this recipe file")
    source.add_argument("--recipe-name", metavar="NAME", help="a recipe known to the server")
    run.add_argument("--input", action="append", default=[], metavar="KEY=VALUE")
    run.add_argument("--label", action="append", default=[], metavar="KEY=VALUE")
    run.add_argument("--timeout", type=float, metavar="SECONDS", help="server stops the run after this long")
    run.add_argument("--detach", action="store_true", help="print the run id and return without streaming")
    run.add_argument(
        "--idempotency-key", default="", metavar="KEY",
        help="makes the start safe to retry: the same key and request give the same run (a UUID, say)",
    )
    run.add_argument("--browser-id", default="", metavar="ID", help="run only on this browser (see `verity client browsers`)")
    run.add_argument("--browser-label", default="", metavar="LABEL", help="run only on a browser with this label")
    run.add_argument(
        "--webhook-url", default="", metavar="URL",
        help="the server sends the run's terminal state here, signed (a URL on its webhook allowlist)",
    )
    run.add_argument(
        "--conversation", action="store_true",
        help="the run goes on after its plan: print its first turn and return while it waits for `verity client send`",
    )
    run.set_defaults(handler=_client_run)

    send = actions.add_parser("send", parents=[common], help="send a conversation its next message and print that turn")
    send.add_argument("run_id")
    message = send.add_mutually_exclusive_group(required=True)
    message.add_argument("--text", metavar="TEXT", help="words for the run's model (one agent step)")
    message.add_argument("--steps", type=Path, metavar="FILE", help="a YAML list of recipe steps, run as the turn's plan")
    send.set_defaults(handler=_client_send)

    end = actions.add_parser("end", parents=[common], help="end a conversation that waits for a message; exits with its stop reason's code")
    end.add_argument("run_id")
    end.set_defaults(handler=_client_end)

    stream = actions.add_parser("stream", parents=[common], help="stream a run's events (resumes after drops)")
    stream.add_argument("run_id")
    stream.add_argument("--after-seq", type=int, default=0, metavar="N")
    stream.set_defaults(handler=_client_stream)

    confirm = actions.add_parser("confirm", parents=[common], help="answer a run's confirmation request")
    confirm.add_argument("run_id")
    confirm.add_argument("request_id")
    answer = confirm.add_mutually_exclusive_group(required=True)
    answer.add_argument("--approve", action="store_true")
    answer.add_argument("--deny", action="store_true")
    confirm.add_argument("--reason", default="")
    confirm.set_defaults(handler=_client_confirm)

    stop = actions.add_parser("stop", parents=[common], help="stop a run (manual_stop)")
    stop.add_argument("run_id")
    stop.set_defaults(handler=_client_stop)

    get = actions.add_parser("get", parents=[common], help="show a run, its artifacts and pending confirmations")
    get.add_argument("run_id")
    get.set_defaults(handler=_client_get)

    artifact = actions.add_parser(
        "artifact", parents=[common], help="download one of a run's artifacts (as `get` lists them), checked against its sha256"
    )
    artifact.add_argument("run_id")
    artifact.add_argument("artifact_id")
    artifact.add_argument("-o", "--output", type=Path, required=True, metavar="FILE", help="where to write the bytes")
    artifact.set_defaults(handler=_client_artifact)

    run_file = actions.add_parser(
        "file", parents=[common],
        help="download a file that explains an ended run (verdict.json, output.json, executions.json, plans.json, "
        "trace.jsonl, events.jsonl, report.html), checked against its sha256",
    )
    run_file.add_argument("run_id")
    run_file.add_argument("name", metavar="NAME", help="the file's name in the run directory, such as verdict.json")
    run_file.add_argument("-o", "--output", type=Path, required=True, metavar="FILE", help="where to write the bytes")
    run_file.set_defaults(handler=_client_file)

    list_ = actions.add_parser("list", parents=[common], help="list runs, newest first")
    list_.add_argument("--status", action="append", default=[], metavar="STATE", help="e.g. running, completed (repeatable)")
    list_.add_argument("--recipe", default="", metavar="NAME")
    list_.add_argument("--page-size", type=int, default=0)
    list_.add_argument("--page-token", default="")
    list_.set_defaults(handler=_client_list)

    browsers = actions.add_parser("browsers", parents=[common], help="list the server's browsers: id, state, runs, capacity, labels")
    browsers.set_defaults(handler=_client_browsers)


def _with_client(handler: Any) -> Any:
    """Open a client for the command and turn RPC failures into a message and an exit code."""

    def run(args: argparse.Namespace) -> int:
        from runtime.client import VerityClient, VerityRpcError
        from runtime.service.config.errors import ServiceConfigError
        from runtime.service.config.tls_files import read_root_certificates

        token = args.token or os.environ.get("VERITY_TOKEN") or None
        try:
            roots = read_root_certificates(args.tls_ca) if args.tls_ca else None
            with VerityClient(args.target, token, root_certificates=roots, tls=args.tls, insecure=args.insecure) as client:
                return int(handler(client, args))
        except VerityRpcError as error:
            print(f"verity client: {error.code.name}: {error.message}", file=sys.stderr)
            for violation in error.field_violations:
                print(f"  {violation.field or '(recipe)'}: {violation.description}", file=sys.stderr)
            for key, value in sorted(error.metadata.items()):
                print(f"  {key} = {value}", file=sys.stderr)
            return EXIT_INVALID_ARGUMENT if error.code.name == "INVALID_ARGUMENT" else EXIT_RPC_ERROR
        except (ValueError, ServiceConfigError) as error:
            print(f"verity client: {error}", file=sys.stderr)
            return EXIT_CONFIG_ERROR

    return run


def _pairs(items: Iterable[str], flag: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"{flag} {item!r}: expected KEY=VALUE")
        values[key] = value
    return values


@_with_client
def _client_run(client: Any, args: argparse.Namespace) -> int:
    inputs, labels = _pairs(args.input, "--input"), _pairs(args.label, "--label")
    recipe: dict[str, str] = {}
    if args.recipe:
        try:
            recipe["recipe_yaml"] = args.recipe.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ValueError(f"{args.recipe}: cannot read the recipe: {getattr(error, 'strerror', None) or error}") from None
    else:
        recipe["recipe_name"] = args.recipe_name
    options = {
        "inputs": inputs, "labels": labels, "timeout_seconds": args.timeout, "idempotency_key": args.idempotency_key,
        "browser_id": args.browser_id, "browser_label": args.browser_label, "webhook_url": args.webhook_url,
        "conversation": args.conversation,
    }
    if args.detach:
        started = client.start_run(**options, **recipe)
        print(json.dumps({"run_id": started.run_id, "trace_id": started.trace_id}) if args.json else started.run_id)
        return 0
    return _print_events(client.run(**options, **recipe), args.json)


@_with_client
def _client_send(client: Any, args: argparse.Namespace) -> int:
    if args.steps:
        try:
            sent = client.send_message(args.run_id, steps_yaml=args.steps.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            raise ValueError(f"{args.steps}: cannot read the steps: {getattr(error, 'strerror', None) or error}") from None
    else:
        sent = client.send_message(args.run_id, text=args.text)
    # The turn's events come after what the run had stored when the message was taken.
    return _print_events(client.stream_run(args.run_id, sent.run.last_seq), args.json)


@_with_client
def _client_end(client: Any, args: argparse.Namespace) -> int:
    run = client.end_run(args.run_id)
    _print_message(run, args.json, _run_line(run))
    return StopReason[_reason_name(run.stop_reason)].exit_code if run.stop_reason else EXIT_RPC_ERROR


@_with_client
def _client_stream(client: Any, args: argparse.Namespace) -> int:
    return _print_events(client.stream_run(args.run_id, args.after_seq), args.json)


@_with_client
def _client_confirm(client: Any, args: argparse.Namespace) -> int:
    run = client.confirm_action(args.run_id, args.request_id, approve=args.approve, reason=args.reason)
    _print_message(run, args.json, f"{'approved' if args.approve else 'denied'} {args.request_id} of {args.run_id}")
    return 0


@_with_client
def _client_stop(client: Any, args: argparse.Namespace) -> int:
    run = client.stop_run(args.run_id)
    _print_message(run, args.json, _run_line(run))
    return 0


@_with_client
def _client_get(client: Any, args: argparse.Namespace) -> int:
    response = client.get_run(args.run_id)
    if args.json:
        print(_to_json(response))
        return 0
    print(_run_line(response.run))
    for artifact in response.artifacts:
        print(f"  artifact {artifact.artifact_id} {artifact.media_type} {artifact.size}B {artifact.path}")
    for request in response.pending_confirmations:
        print(f"  waiting for confirmation {request.request_id}: {request.tool} — {request.summary}")
    return 0


@_with_client
def _client_artifact(client: Any, args: argparse.Namespace) -> int:
    info = _save_checked(args.output, lambda handle: client.download_artifact(args.run_id, args.artifact_id, handle))
    _print_message(info, args.json, f"{args.output}: {info.artifact_id} {info.media_type} {info.size}B sha256 {info.sha256}")
    return 0


@_with_client
def _client_file(client: Any, args: argparse.Namespace) -> int:
    info = _save_checked(args.output, lambda handle: client.download_run_file(args.run_id, args.name, handle))
    _print_message(info, args.json, f"{args.output}: {info.path} {info.media_type} {info.size}B sha256 {info.sha256}")
    return 0


def _save_checked(output: Path, download: Any) -> Any:
    # Written beside the destination and moved into place only once checked: a dropped stream or a
    # mismatch leaves no partial file and keeps any file already there.
    partial = output.with_name(f".{output.name}.partial")
    try:
        with partial.open("wb") as handle:
            info = download(handle)
        partial.replace(output)
    except OSError as error:
        raise ValueError(f"{output}: cannot write the download: {error.strerror or error}") from None
    finally:
        partial.unlink(missing_ok=True)
    return info


@_with_client
def _client_list(client: Any, args: argparse.Namespace) -> int:
    from runtime.outcomes import TaskState
    from runtime.service.gen.verity.v1 import events_pb2

    try:
        statuses = [events_pb2.TaskState.Value(f"TASK_STATE_{TaskState(s).name}") for s in args.status]
    except ValueError:
        raise ValueError(f"--status: use one of {', '.join(s.value for s in TaskState)}") from None
    page = client.list_runs(statuses=statuses, recipe_name=args.recipe, page_size=args.page_size, page_token=args.page_token)
    if args.json:
        print(_to_json(page))
        return 0
    for run in page.runs:
        print(_run_line(run))
    if page.next_page_token:
        print(f"next page: --page-token {page.next_page_token}")
    return 0


@_with_client
def _client_browsers(client: Any, args: argparse.Namespace) -> int:
    from runtime.service.gen.verity.v1 import agent_service_pb2

    listed = client.list_browsers()
    if args.json:
        print(_to_json(listed))
        return 0
    for browser in listed.browsers:
        state = agent_service_pb2.BrowserState.Name(browser.state).removeprefix("BROWSER_STATE_").lower()
        capacity = browser.capacity or "no limit"
        labels = ",".join(browser.labels) or "-"
        print(f"{browser.browser_id}  {state}  runs={browser.active_runs}/{capacity}  labels={labels}  {browser.endpoint or '(launched)'}")
    print(f"runs waiting: {listed.runs_waiting}")
    return 0


def _print_events(events: Iterator[Any], as_json: bool) -> int:
    """Print events as they arrive, up to the final verdict, whose stop reason's code is the exit
    code, or to a conversation's wait for its next message (exit 0)."""
    from runtime.service.gen.verity.v1 import events_pb2

    exit_code = EXIT_RPC_ERROR
    for event in events:
        if as_json:
            print(_to_json(event), flush=True)
        else:
            print(_event_line(event), flush=True)
        if event.HasField("final_verdict"):
            name = _reason_name(event.final_verdict.stop_reason)
            exit_code = StopReason[name].exit_code if name in StopReason.__members__ else EXIT_RPC_ERROR
        elif event.HasField("status_changed") and event.status_changed.status == events_pb2.TASK_STATE_ONGOING:
            if not as_json:
                print(f"{event.run_id} waits for a message: verity client send {event.run_id} --text ...|--steps FILE, or verity client end {event.run_id}")
            return 0
    return exit_code


def _reason_name(number: int) -> str:
    from runtime.service.gen.verity.v1 import events_pb2

    return str(events_pb2.StopReason.Name(number).removeprefix("STOP_REASON_"))


def _event_line(event: Any) -> str:
    kind = event.WhichOneof("payload")
    fields = json_format.MessageToDict(getattr(event, kind), preserving_proto_field_name=True)
    detail = " ".join(f"{k}={_short(v)}" for k, v in fields.items())
    return f"#{event.seq:<5} {kind:<22} {detail}"


def _run_line(run: Any) -> str:
    from runtime.service.gen.verity.v1 import events_pb2

    status = events_pb2.TaskState.Name(run.status).removeprefix("TASK_STATE_").lower()
    reason = events_pb2.StopReason.Name(run.stop_reason).removeprefix("STOP_REASON_").lower() if run.stop_reason else "-"
    return f"{run.run_id}  {run.recipe_name}@{run.recipe_version}  {status}  stop_reason={reason}  events={run.last_seq}"


def _short(value: Any) -> str:
    # A text of several lines (a conversation's steps) is quoted, so each event stays one line.
    text = value if isinstance(value, str) and "\n" not in value else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _to_json(message: Any) -> str:
    return json_format.MessageToJson(message, preserving_proto_field_name=True, indent=None)


def _print_message(message: Any, as_json: bool, text: str) -> None:
    print(_to_json(message) if as_json else text)
