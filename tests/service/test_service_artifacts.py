"""Bindings of features/service_artifacts.feature: GetArtifact and `verity client artifact`."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from pytest_bdd import given, parsers, scenarios, then, when
from tests.service.run_steps import *  # noqa: F403 - the shared real-run steps
from tests.service.service_harness import ServedServer

from runtime.events import ArtifactStored
from runtime.client import VerityClient, VerityRpcError
from runtime.service.gen.verity.v1 import agent_service_pb2 as agent_pb

scenarios("service_artifacts.feature")

TOKEN = "artifact-test-token"
OUTSIDE_TEXT = b"OUTSIDE-THE-RUN " * 64
PNG_BYTES = b"\x89PNG\r\n\x1a\n" + b"screenshot bytes " * 100


def _client_command(target: str, *arguments: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "VERITY_TOKEN"}
    if token:
        env["VERITY_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "runtime.cli.main", "client", *arguments, "--target", target],
        capture_output=True, text=True, timeout=60, env=env,
    )


# --- a real run ----------------------------------------------------------------------------------


@when('the client downloads every artifact GetRun lists with "verity client artifact"')
def _download_all(target: str, tmp_path: Path, context: dict[str, Any]) -> None:
    run_id = context["events"][-1].run_id
    with VerityClient(target) as client:
        listed = list(client.get_run(run_id).artifacts)
    assert listed, "the run listed no artifacts"
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    context["downloaded"] = {}
    for artifact in listed:
        destination = downloads / f"{artifact.artifact_id}.bin"
        done = _client_command(target, "artifact", run_id, artifact.artifact_id, "-o", str(destination))
        assert done.returncode == 0, done.stderr
        context["downloaded"][artifact.artifact_id] = (artifact, destination)


@then("every downloaded file has the size and sha256 GetRun lists")
def _downloads_match(context: dict[str, Any]) -> None:
    for artifact, path in context["downloaded"].values():
        data = path.read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (artifact.size, artifact.sha256), artifact


@then("the downloads include the run's report.html and a PNG screenshot")
def _report_and_screenshot(context: dict[str, Any]) -> None:
    kinds = {artifact.artifact_kind: path for artifact, path in context["downloaded"].values()}
    assert "report" in kinds and "screenshot" in kinds, sorted(kinds)
    assert kinds["screenshot"].read_bytes().startswith(b"\x89PNG"), "the screenshot is not a PNG"
    assert b"<html" in kinds["report"].read_bytes()[:2000].lower()


@then("the report downloaded is byte for byte the report.html in the run's directory")
def _report_is_the_run_report(tmp_path: Path, context: dict[str, Any]) -> None:
    run_id = context["events"][-1].run_id
    on_disk = (tmp_path / "proc" / "runs" / run_id / "report.html").read_bytes()
    report = next(path for artifact, path in context["downloaded"].values() if artifact.artifact_kind == "report")
    assert report.read_bytes() == on_disk


@when(parsers.parse("the client fetches the run's report through GetArtifact in chunks of {size:d} bytes"))
def _fetch_in_chunks(target: str, context: dict[str, Any], size: int) -> None:
    run_id = context["events"][-1].run_id
    with VerityClient(target) as client:
        report = next(a for a in client.get_run(run_id).artifacts if a.artifact_kind == "report")
        request = agent_pb.GetArtifactRequest(run_id=run_id, artifact_id=report.artifact_id, chunk_bytes=size)
        context["chunks"] = list(client.agent.GetArtifact(request))
    context["report"] = report
    context["chunk_size"] = size


@then("the chunks' offsets follow each other from 0 and only the first carries the artifact's description")
def _chunks_in_order(context: dict[str, Any]) -> None:
    chunks, size = context["chunks"], context["chunk_size"]
    assert len(chunks) > 1, "the report fit in one chunk: the scenario needs a larger report or smaller chunks"
    offset = 0
    for chunk in chunks:
        assert chunk.offset == offset and len(chunk.data) <= size
        offset += len(chunk.data)
    assert [chunk.HasField("artifact") for chunk in chunks] == [True] + [False] * (len(chunks) - 1)
    assert chunks[0].artifact.artifact_id == context["report"].artifact_id


@then("the bytes have the sha256 GetRun lists for the report")
def _chunks_sha(context: dict[str, Any]) -> None:
    data = b"".join(chunk.data for chunk in context["chunks"])
    assert hashlib.sha256(data).hexdigest() == context["report"].sha256


# --- what is never served ------------------------------------------------------------------------


@given("a server with a token", target_fixture="server")
def _server_with_token(serve: Any) -> ServedServer:
    return serve(token=TOKEN)


def _record(server: ServedServer, context: dict[str, Any], relative: str, data: bytes, *, listed_data: bytes | None = None) -> None:
    """A run whose index lists `relative`; the bytes written there are `data`, recorded as `listed_data`."""
    live = server.open_run(recipe_name="artifacts")
    run_dir = server.config.runs_dir / live.run_id
    recorded = data if listed_data is None else listed_data
    artifact_id = "screenshot-" + hashlib.sha256(recorded).hexdigest()[:16]
    server.emit(
        live,
        [ArtifactStored(artifact_id=artifact_id, artifact_kind="screenshot", path=relative, media_type="image/png",
                        size=len(recorded), sha256=hashlib.sha256(recorded).hexdigest())],
    )
    server.finish(live)
    target = (run_dir / relative)
    if data is not None and not target.is_symlink():
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            target.write_bytes(data)
    context.update(run_id=live.run_id, artifact_id=artifact_id, run_dir=run_dir)


@given(parsers.parse("a stored run whose artifact index holds {entry}"))
def _stored_run(server: ServedServer, context: dict[str, Any], entry: str) -> None:
    outside = server.config.runs_dir.parent / "outside" / "secret.txt"
    outside.parent.mkdir(parents=True, exist_ok=True)
    outside.write_bytes(OUTSIDE_TEXT)
    if entry == "a path climbing out of the run's directory":
        relative = os.path.relpath(outside, server.config.runs_dir / "RUN")
        _record(server, context, relative, OUTSIDE_TEXT)
    elif entry == "a symlink inside the run's directory to a file outside it":
        live_relative = "artifacts/screenshot/link.png"
        _record_symlink(server, context, live_relative, outside)
    elif entry == "a screenshot":
        _record(server, context, "artifacts/screenshot/0123456789abcdef.png", PNG_BYTES)
        other = server.open_run(recipe_name="other")
        server.finish(other)
        context["other_run_id"] = other.run_id
    elif entry == "a screenshot whose bytes changed after it was recorded":
        _record(server, context, "artifacts/screenshot/0123456789abcdef.png", PNG_BYTES + b"changed", listed_data=PNG_BYTES)
    else:
        raise AssertionError(f"unknown entry {entry!r}")


def _record_symlink(server: ServedServer, context: dict[str, Any], relative: str, outside: Path) -> None:
    live = server.open_run(recipe_name="artifacts")
    link = server.config.runs_dir / live.run_id / relative
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)
    digest = hashlib.sha256(OUTSIDE_TEXT).hexdigest()
    server.emit(
        live,
        [ArtifactStored(artifact_id="screenshot-link", artifact_kind="screenshot", path=relative, media_type="image/png",
                        size=len(OUTSIDE_TEXT), sha256=digest)],
    )
    server.finish(live)
    context.update(run_id=live.run_id, artifact_id="screenshot-link")


@when(parsers.parse("a client asks GetArtifact for that entry {how}"))
def _ask(server: ServedServer, context: dict[str, Any], how: str) -> None:
    run_id, artifact_id = context["run_id"], context["artifact_id"]
    token: str | None = TOKEN
    if how == "without a token":
        token = None
    elif how == "by an id the run never had":
        artifact_id = "screenshot-ffffffffffffffff"
    elif how == "of another run's id":
        run_id = context["other_run_id"]
    received = bytearray()
    client = VerityClient(server.target, token)
    try:
        for message in client.agent.GetArtifact(
            agent_pb.GetArtifactRequest(run_id=run_id, artifact_id=artifact_id), metadata=client._metadata
        ):
            received += message.data
        context["failure"] = None
    except Exception as error:  # noqa: BLE001 - the Then step names the status
        context["failure"] = VerityRpcError.from_rpc_error(error)
    finally:
        client.close()
    context["received"] = bytes(received)


@then(parsers.parse("the call fails with {code}"))
def _fails_with(context: dict[str, Any], code: str) -> None:
    failure = context["failure"]
    assert failure is not None and failure.code.name == code, failure


@then("no byte of the file outside the run reached the client")
def _nothing_outside(context: dict[str, Any]) -> None:
    assert OUTSIDE_TEXT[:16] not in context["received"]
    assert context["received"] == b""


@when('"verity client artifact" downloads it to a file')
def _download_changed(server: ServedServer, tmp_path: Path, context: dict[str, Any]) -> None:
    destination = tmp_path / "changed.png"
    context["destination"] = destination
    context["cli"] = _client_command(server.target, "artifact", context["run_id"], context["artifact_id"], "-o", str(destination), token=TOKEN)


@then("the command fails naming the sha256 mismatch and no file was written")
def _changed_refused(context: dict[str, Any]) -> None:
    done = context["cli"]
    assert done.returncode != 0, done.stdout
    assert "DATA_LOSS" in done.stderr and "sha256" in done.stderr and "Traceback" not in done.stderr, done.stderr
    leftovers = sorted(path.name for path in context["destination"].parent.iterdir() if "changed" in path.name)
    assert leftovers == [], leftovers
