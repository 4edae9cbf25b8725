"""Bindings of features/service_store_artifact_bytes.feature: artifact bytes a server on PostgreSQL
recorded, kept in the database one copy per content, served by another server after the first
is gone with its run directories.

The PostgreSQL server is real (tests/fixtures/postgres.py): each test gets a fresh database.
"""

from __future__ import annotations

import hashlib
import io
import shutil
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.service.service_harness import ServedServer

from runtime.events import ArtifactStored
from runtime.client import VerityRpcError
from runtime.store.location import PostgresUrl

scenarios("service_store_artifact_bytes.feature")


SCREENSHOT = b"\x89PNG\r\n\x1a\n" + b"shared screenshot " * 400
REPORT = b"<!doctype html><html><body>" + b"report line<br>" * 300 + b"</body></html>"


def _record_artifact(server: ServedServer, live: Any, kind: str, name: str, data: bytes, *, recorded: bytes | None = None) -> None:
    """Write `data` into the run's directory and emit its ArtifactStored, as the engine does, listed as `recorded`."""
    listed = data if recorded is None else recorded
    relative = f"artifacts/{kind}/{name}"
    file = server.config.runs_dir / live.run_id / relative
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(data)
    server.emit(
        live,
        [ArtifactStored(artifact_id=f"{kind}-{name}", artifact_kind=kind, path=relative, media_type="application/octet-stream",
                        size=len(listed), sha256=hashlib.sha256(listed).hexdigest())],
    )


@given(
    "a server on that database whose run recorded a screenshot and a report, and whose second run recorded the same screenshot",
    target_fixture="first_server",
)
def _server_with_artifacts(serve: Any, database_url: str, tmp_path: Path, context: dict[str, Any]) -> ServedServer:
    server = serve(store_path=PostgresUrl(database_url), runs_dir=tmp_path / "first-runs")
    first, second = server.open_run(recipe_name="first"), server.open_run(recipe_name="second")
    _record_artifact(server, first, "screenshot", "page.png", SCREENSHOT)
    _record_artifact(server, first, "report", "report.html", REPORT)
    _record_artifact(server, second, "screenshot", "again.png", SCREENSHOT)
    server.finish(first)
    server.finish(second)
    context["runs"] = [first.run_id, second.run_id]
    context["contents"] = {hashlib.sha256(SCREENSHOT).hexdigest(): SCREENSHOT, hashlib.sha256(REPORT).hexdigest(): REPORT}
    return server


@given("a server on that database whose run recorded a screenshot whose file holds other bytes than recorded", target_fixture="first_server")
def _server_with_changed_artifact(serve: Any, database_url: str, tmp_path: Path, context: dict[str, Any]) -> ServedServer:
    server = serve(store_path=PostgresUrl(database_url), runs_dir=tmp_path / "first-runs")
    live = server.open_run(recipe_name="changed")
    _record_artifact(server, live, "screenshot", "page.png", b"bytes written later " * 50, recorded=SCREENSHOT)
    server.finish(live)
    context["runs"] = [live.run_id]
    context["artifact_id"] = "screenshot-page.png"
    return server


@when("that server is stopped and its run directories are deleted")
def _first_gone(first_server: ServedServer) -> None:
    first_server.stop()
    shutil.rmtree(first_server.config.runs_dir)


@when("another server with run directories of its own is started on that database", target_fixture="server")
def _other_server(serve: Any, database_url: str, tmp_path: Path) -> ServedServer:
    return serve(store_path=PostgresUrl(database_url), runs_dir=tmp_path / "other-runs")


@then("GetArtifact on the other server returns every listed artifact's bytes, matching its sha256 and size")
def _served_from_database(server: ServedServer, context: dict[str, Any], tmp_path: Path) -> None:
    client = server.client()
    fetched = 0
    for run_id in context["runs"]:
        for artifact in client.get_run(run_id).artifacts:
            destination = io.BytesIO()
            info = client.download_artifact(run_id, artifact.artifact_id, destination, chunk_bytes=1024)
            assert destination.getvalue() == context["contents"][info.sha256]
            fetched += 1
    assert fetched == 3
    assert not (tmp_path / "first-runs").exists()  # the bytes can only have come from the database


def _blobs(database_url: str) -> list[tuple[str, int]]:
    with psycopg.connect(database_url) as conn:
        return conn.execute("SELECT sha256, size FROM blobs ORDER BY sha256").fetchall()


@then(parsers.parse("the database keeps one copy of each content: {blobs:d} blobs for {rows:d} artifact rows"))
def _deduplicated(database_url: str, context: dict[str, Any], blobs: int, rows: int) -> None:
    assert _blobs(database_url) == sorted((sha, len(data)) for sha, data in context["contents"].items())
    assert len(context["contents"]) == blobs
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT count(*) FROM artifacts").fetchone() == (rows,)


@then("GetArtifact of that screenshot on the other server fails with DATA_LOSS ARTIFACT_MISSING")
def _not_served(server: ServedServer, context: dict[str, Any]) -> None:
    destination = io.BytesIO()
    with pytest.raises(VerityRpcError) as failure:
        server.client().download_artifact(context["runs"][0], context["artifact_id"], destination)
    assert (failure.value.code, failure.value.reason) == (grpc.StatusCode.DATA_LOSS, "ARTIFACT_MISSING")
    assert destination.getvalue() == b""


@then("the database keeps no blob")
def _no_blob(database_url: str) -> None:
    assert _blobs(database_url) == []
