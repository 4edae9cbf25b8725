"""Bindings of features/service_run_files.feature: a real run (headless Chromium, the loopback
fixture site) on a real server, its files fetched over a real channel and searched for the secret."""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from pytest_bdd import given, scenarios, then, when
from tests.fixtures.site_server import FixtureSite
from tests.service.run_steps import *  # noqa: F403 - pytest-bdd step fixtures
from tests.service.service_harness import ServedServer, running

from runtime.cli.main import main as verity_main
from runtime.client import VerityClient, VerityRpcError
from runtime.service.api.proto_mapping import struct_to_dict

scenarios("service_run_files.feature")

SECRET_VALUE = "Qm7-FILES-93d1b8c0"
SECRET_ENV = "VERITY_SECRET_R35_FILES_KEY"
RUN_FILES = ("verdict.json", "output.json", "executions.json", "plans.json", "trace.jsonl", "events.jsonl", "report.html")

SECRET_RECIPE = """\
name: service-secret
version: "1"
goal: 用浏览器 store the API token at {start_url}
inputs:
  site: {description: fixture site base URL}
  api_key: {description: the account's API token, secret: true}
target:
  start_url: "{site}/secrets.html"
  allowed_domains: ["127.0.0.1"]
  validation_keywords: ["API settings"]
plan:
  - id: open
    navigate: "{start_url}"
  - id: type_token
    act: {type: {css: "#token"}, text: "{api_key}"}
  - id: read
    extract:
      fields:
        echoed: {css: "#echo"}
  - close: {summary: "token stored"}
"""


def _refused(fetch: Callable[[], Any]) -> VerityRpcError:
    with pytest.raises(VerityRpcError) as refused:
        fetch()
    return refused.value


def _fetch(client: VerityClient, run_id: str, name: str) -> tuple[Any, bytes]:
    sink = io.BytesIO()
    info = client.download_run_file(run_id, name, sink, chunk_bytes=4096)
    return info, sink.getvalue()


@given("a recipe that types a secret input into the page and reads its echo")
def _secret_recipe(recipes_dir: Path) -> None:
    (recipes_dir / "secret.yaml").write_text(SECRET_RECIPE)


@when("a client runs that recipe with the secret read from the server's environment")
def _run_secret(target: str, client_for: Any, site: FixtureSite, context: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SECRET_ENV, SECRET_VALUE)
    inputs = {"site": site.base_url, "api_key": f"@env:{SECRET_ENV}"}
    events = context["events"] = list(client_for(target).run(recipe_name="service-secret", inputs=inputs))
    assert events[-1].HasField("final_verdict"), events[-1]
    context["run_id"] = events[-1].run_id


@then("the client fetches verdict.json, output.json, executions.json, plans.json, trace.jsonl, events.jsonl and report.html, each matching its sha256")
def _fetch_all(target: str, client_for: Any, context: dict[str, Any]) -> None:
    client = client_for(target)
    files: dict[str, bytes] = {}
    for name in RUN_FILES:
        info, data = _fetch(client, context["run_id"], name)
        assert (info.artifact_id, info.path, info.artifact_kind) == (name, name, "run_file"), info
        assert info.sha256 == hashlib.sha256(data).hexdigest() and info.size == len(data) > 0, name
        files[name] = data
    context["files"] = files


@then("none of them holds the secret's value, and verdict.json has the run's figures")
def _no_secret(context: dict[str, Any]) -> None:
    files = context["files"]
    leaked = [name for name, data in files.items() if SECRET_VALUE.encode() in data or SECRET_VALUE[:7].encode() in data]
    assert leaked == [], leaked
    # The value did reach the page, and the files show where, as its marker.
    assert "«secret:api_key»" in files["executions.json"].decode()
    verdict = json.loads(files["verdict.json"])
    assert verdict["run_id"] == context["run_id"] and verdict["stop_reason"] == "completed", verdict
    assert {"blocked_requests", "replans_used", "intent_guard"} <= set(verdict)
    last = json.loads(files["events.jsonl"].decode().splitlines()[-1])
    assert last["kind"] == "final_verdict" and last["run_id"] == context["run_id"]


@then("GetRun carries those figures of verdict.json")
def _get_run_figures(target: str, client_for: Any, context: dict[str, Any]) -> None:
    verdict = json.loads(context["files"]["verdict.json"])
    response = client_for(target).get_run(context["run_id"])
    figures = struct_to_dict(response.verdict_figures)
    assert figures["blocked_requests"] == verdict["blocked_requests"] and figures["replans_used"] == verdict["replans_used"] == 0
    assert figures["intent_guard"] == verdict["intent_guard"] and figures["run_id"] == context["run_id"]
    assert "stop_reason" not in figures and "summary" not in figures  # the verdict itself is in RunInfo


@then('"verity client file" writes verdict.json to a file, checked')
def _cli_file(target: str, context: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "fetched" / "verdict.json"
    output.parent.mkdir()
    assert verity_main(["client", "file", "--target", target, context["run_id"], "verdict.json", "-o", str(output)]) == 0
    assert output.read_bytes() == context["files"]["verdict.json"]
    digest = hashlib.sha256(output.read_bytes()).hexdigest()
    assert f"verdict.json application/json {output.stat().st_size}B sha256 {digest}" in capsys.readouterr().out


@then("a name that is not a run file is refused INVALID_ARGUMENT at name, and an unknown run NOT_FOUND")
def _bad_names(target: str, client_for: Any, context: dict[str, Any]) -> None:
    client = client_for(target)
    for name in ("order.json", "../verity.db", "artifacts"):
        error = _refused(lambda: _fetch(client, context["run_id"], name))
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT and [v.field for v in error.field_violations] == ["name"], error
    error = _refused(lambda: _fetch(client, "run-0000000000000000", "verdict.json"))
    assert error.code == grpc.StatusCode.NOT_FOUND, error


@given("a server that runs recipes sent by its tests", target_fixture="server")
def _bare_server(serve: Callable[..., ServedServer]) -> ServedServer:
    return serve()


@when("a served run is still running")
def _still_running(server: ServedServer, context: dict[str, Any]) -> None:
    live = context["live"] = server.open_run("unfinished")
    server.emit(live, [running()])


@then("its verdict.json is refused FAILED_PRECONDITION with reason RUN_NOT_ENDED, and GetRun carries no verdict figures")
def _not_ended(server: ServedServer, context: dict[str, Any]) -> None:
    error = _refused(lambda: _fetch(server.client(), context["live"].run_id, "verdict.json"))
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION and error.reason == "RUN_NOT_ENDED", error
    assert not server.client().get_run(context["live"].run_id).HasField("verdict_figures")


@when("the served run ends")
def _ends(server: ServedServer, context: dict[str, Any]) -> None:
    server.finish(context["live"])


@then("its report.html, which such a run never writes, is NOT_FOUND with reason RUN_FILE_MISSING")
def _missing(server: ServedServer, context: dict[str, Any]) -> None:
    error = _refused(lambda: _fetch(server.client(), context["live"].run_id, "report.html"))
    assert error.code == grpc.StatusCode.NOT_FOUND and error.reason == "RUN_FILE_MISSING", error
    assert error.metadata["name"] == "report.html"


@then("GetRun still carries no verdict figures, since the run wrote no verdict.json")
def _no_figures(server: ServedServer, context: dict[str, Any]) -> None:
    response = server.client().get_run(context["live"].run_id)
    assert response.run.status != 0 and response.run.HasField("end_time")
    assert not response.HasField("verdict_figures")


@then("a verdict.json linked from its directory to a file outside it is refused PERMISSION_DENIED")
def _linked_outside(server: ServedServer, context: dict[str, Any], tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"not": "the run\'s"}')
    run_dir = server.config.runs_dir / context["live"].run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "verdict.json").symlink_to(outside)
    error = _refused(lambda: _fetch(server.client(), context["live"].run_id, "verdict.json"))
    assert error.code == grpc.StatusCode.PERMISSION_DENIED and error.reason == "ARTIFACT_OUTSIDE_RUN", error
