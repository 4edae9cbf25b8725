"""Bindings of features/service_operations.feature: errors, auth, limits, shutdown, reflection."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
from google.protobuf.descriptor_pool import DescriptorPool
from pytest_bdd import given, parsers, scenarios, then, when
from tests.service.service_harness import HealthWatch, ServedServer

from runtime.plan import compile_recipe, to_mermaid
from runtime.recipe import load_recipe_file
from runtime.client import VerityClient, VerityRpcError
from runtime.service.gen.verity.v1 import agent_service_pb2 as agent_pb
from runtime.service.gen.verity.v1 import agent_service_pb2_grpc as agent_grpc

scenarios("service_operations.feature")

BROKEN_RECIPE = """\
name: broken
goal: g
target:
  start_url: http://127.0.0.1/
plan:
  - navigate: http://127.0.0.1/
  - extract:
      fields:
        price: {css: 1, bogus: 2}
"""

QUOTE_LITE = """\
name: quote-lite
version: "2"
description: Read a quote from a quote site.
goal: 用浏览器 read the {metal} quote
inputs:
  site:
    type: string
  metal:
    type: string
    default: gold
target:
  start_url: "{site}/quotes/{metal}"
  allowed_domains: ["127.0.0.1"]
plan:
  - navigate: "{start_url}"
  - extract:
      fields:
        price:
          css: "[data-field=price]"
"""


# --- given ---------------------------------------------------------------------------------------


@given("a server", target_fixture="server")
def _server(serve: Any) -> ServedServer:
    return serve()


@given(parsers.parse('a server that knows the recipe "{name}"'), target_fixture="server")
def _server_with_recipe(serve: Any, tmp_path: Path, name: str) -> ServedServer:
    recipes = tmp_path / "recipes"
    recipes.mkdir(exist_ok=True)
    (recipes / "quote-lite.yaml").write_text(QUOTE_LITE)
    (recipes / "broken.yaml").write_text(BROKEN_RECIPE)
    return serve(recipes_dir=recipes)


@given(parsers.parse('a server with the token "{token}"'), target_fixture="server")
def _server_with_token(serve: Any, token: str) -> ServedServer:
    return serve(token=token)


@given(parsers.parse('a verity serve process with VERITY_TOKEN "{token}"'))
def _serve_with_token(serve_processes: Any, tmp_path: Path, context: dict[str, Any], token: str) -> None:
    context["token"] = token
    context["process"] = serve_processes("--store", str(tmp_path / "p.db"), "--runs-dir", str(tmp_path / "runs"), env={"VERITY_TOKEN": token})


@given("a health watcher is watching the in-process server")
def _health_watch(server: ServedServer, context: dict[str, Any]) -> None:
    context["health"] = health = HealthWatch(server.target, "verity.v1.AgentService")
    health.assert_reaches(bool, "reported anything")


# --- when ----------------------------------------------------------------------------------------


def _attempt(context: dict[str, Any], call: Any) -> None:
    try:
        context["result"] = call()
        context["error"] = None
    except VerityRpcError as error:
        context["error"] = error


@when("a client starts a run with a recipe whose extract field has a wrong type and an unknown key")
def _start_broken(server: ServedServer, context: dict[str, Any]) -> None:
    _attempt(context, lambda: server.client().start_run(recipe_yaml=BROKEN_RECIPE))


@when(parsers.parse('a client starts "{name}" with the input "{given_input}" but not "{missing}"'))
def _start_bad_inputs(server: ServedServer, context: dict[str, Any], name: str, given_input: str, missing: str) -> None:
    _attempt(context, lambda: server.client().start_run(recipe_name=name, inputs={given_input: "x"}))


@when(parsers.parse("a client starts a run with a {size:d} byte recipe"))
def _start_huge(server: ServedServer, context: dict[str, Any], size: int) -> None:
    padding = "# " + "x" * (size - len(QUOTE_LITE)) + "\n"
    _attempt(context, lambda: server.client().start_run(recipe_yaml=QUOTE_LITE + padding, inputs={"site": "http://127.0.0.1"}))


@when(parsers.parse('I run "verity serve --host 0.0.0.0" without a token'))
def _serve_public(tmp_path: Path, context: dict[str, Any]) -> None:
    env = {k: v for k, v in __import__("os").environ.items() if k != "VERITY_TOKEN"}
    context["cli"] = subprocess.run(
        [sys.executable, "-m", "runtime.cli.main", "serve", "--host", "0.0.0.0", "--port", "0", "--store", str(tmp_path / "x.db")],
        capture_output=True, text=True, timeout=60, env=env,
    )


@when("clients call it with no token, a wrong token and the right token")
def _calls_with_tokens(context: dict[str, Any]) -> None:
    target = context["process"].target
    for token, expected in ((None, "UNAUTHENTICATED"), ("wrong-token", "UNAUTHENTICATED"), (context["token"], None)):
        with VerityClient(target, token) as client:
            try:
                client.list_runs()
                outcome = None
            except VerityRpcError as error:
                outcome = error.code.name
        assert outcome == expected


@when("the server process is stopped with SIGTERM")
def _sigterm(context: dict[str, Any]) -> None:
    context["process"].signal(signal.SIGTERM)
    assert context["process"].wait(30) == 0


@when(parsers.parse("the server shuts down with a grace period of {seconds:f} seconds"))
def _shutdown(server: ServedServer, seconds: float) -> None:
    server.stop(seconds)


# --- then ----------------------------------------------------------------------------------------


@then(parsers.parse("the call fails with {code}"))
def _fails_with(context: dict[str, Any], code: str) -> None:
    error = context["error"]
    assert error is not None, f"the call succeeded: {context.get('result')}"
    assert error.code == grpc.StatusCode[code], error


@then(parsers.parse('the field violations are "{field1}" at "{where1}" and "{field2}" at "{where2}"'))
def _violations_at(context: dict[str, Any], field1: str, where1: str, field2: str, where2: str) -> None:
    violations = context["error"].field_violations
    assert [v.field for v in violations] == [field1, field2]
    assert violations[0].description.startswith(where1 + ":"), violations[0]
    assert violations[1].description.startswith(where2 + ":"), violations[1]
    assert "unknown key 'bogus'" in violations[1].description


@then(parsers.parse('the field violations name "{field1}" and "{field2}"'))
def _violations_name(context: dict[str, Any], field1: str, field2: str) -> None:
    fields = sorted(v.field for v in context["error"].field_violations)
    assert fields == sorted([field1, field2])
    descriptions = " ".join(v.description for v in context["error"].field_violations)
    assert "unknown input 'sight'" in descriptions and "required" in descriptions


@then("the server has recorded no run")
def _no_run(server: ServedServer) -> None:
    assert list(server.client().list_runs().runs) == []
    assert server.on_loop(lambda: server.server.supervisor.live_run_count) == 0


@then(parsers.parse("validating the broken recipe reports {count:d} problems with line, column and field path"))
def _validate_broken(server: ServedServer, count: int) -> None:
    response = server.client().validate_recipe(recipe_yaml=BROKEN_RECIPE, source_name="broken.yaml")
    assert not response.valid
    assert [(p.source, p.line, p.column, p.field_path, p.code) for p in response.problems] == [
        ("broken.yaml", 9, 22, "plan[1].extract.fields.price.css", "wrong_type"),
        ("broken.yaml", 9, 25, "plan[1].extract.fields.price.bogus", "unknown_key"),
    ][:count]


@then(parsers.parse('validating "{name}" by name reports it valid'))
def _validate_by_name(server: ServedServer, name: str) -> None:
    response = server.client().validate_recipe(recipe_name=name)
    assert response.valid and response.recipe_name == name and response.recipe_version == "2"


@then(parsers.parse('compiling "{name}" returns the same plan JSON as compiling it locally'))
def _compile(server: ServedServer, tmp_path: Path, name: str) -> None:
    response = server.client().compile_recipe(recipe_name=name)
    local = compile_recipe(load_recipe_file(tmp_path / "recipes" / "quote-lite.yaml"))
    assert response.plan_json == local.to_json()
    assert response.mermaid == to_mermaid(local)
    assert set(response.plan.fields) == set(json.loads(local.to_json()))


@then("compiling the broken recipe fails with INVALID_ARGUMENT")
def _compile_broken(server: ServedServer) -> None:
    with pytest.raises(VerityRpcError) as failure:
        server.client().compile_recipe(recipe_yaml=BROKEN_RECIPE)
    assert failure.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert {v.field for v in failure.value.field_violations} == {"plan[1].extract.fields.price.css", "plan[1].extract.fields.price.bogus"}


@then(parsers.parse('ListRecipes lists "{name}" with its inputs'))
def _list_recipes(server: ServedServer, name: str) -> None:
    recipes = {r.name: r for r in server.client().list_recipes().recipes}
    assert list(recipes[name].inputs) == ["site", "metal"] and recipes[name].valid
    assert not recipes["broken"].valid and recipes["broken"].problems[0].line == 9


@then(parsers.parse('ListRecipes also lists the bundled recipe "{name}"'))
def _bundled_recipe(server: ServedServer, name: str) -> None:
    recipes = {r.name: r for r in server.client().list_recipes().recipes}
    assert recipes[name].valid and "site" in recipes[name].inputs


@then(parsers.parse('starting the unknown recipe "{name}" fails with NOT_FOUND'))
def _unknown_recipe(server: ServedServer, name: str) -> None:
    with pytest.raises(VerityRpcError) as failure:
        server.client().start_run(recipe_name=name)
    assert failure.value.code == grpc.StatusCode.NOT_FOUND
    assert "quote-lite" in failure.value.message


@then(parsers.parse("a call without a token fails with UNAUTHENTICATED {reason}"))
def _no_token(server: ServedServer, reason: str) -> None:
    with VerityClient(server.target) as client, pytest.raises(VerityRpcError) as failure:
        client.list_runs()
    assert failure.value.code == grpc.StatusCode.UNAUTHENTICATED and failure.value.reason == reason
    # Streaming calls are guarded too.
    with VerityClient(server.target) as client, pytest.raises(VerityRpcError) as failure:
        list(client.stream_run("run-x"))
    assert failure.value.code == grpc.StatusCode.UNAUTHENTICATED


@then(parsers.parse('a call with the token "{token}" fails with UNAUTHENTICATED {reason}'))
def _wrong_token(server: ServedServer, token: str, reason: str) -> None:
    with VerityClient(server.target, token) as client, pytest.raises(VerityRpcError) as failure:
        client.list_runs()
    assert failure.value.code == grpc.StatusCode.UNAUTHENTICATED and failure.value.reason == reason


@then(parsers.parse('a call with the token "{token}" succeeds'))
def _right_token(server: ServedServer, token: str) -> None:
    with VerityClient(server.target, token) as client:
        assert list(client.list_runs().runs) == []


def _list_with_authorization(server: ServedServer, authorization: str) -> agent_pb.ListRunsResponse:
    with grpc.insecure_channel(server.target) as channel:
        stub = agent_grpc.AgentServiceStub(channel)
        return stub.ListRuns(agent_pb.ListRunsRequest(), metadata=(("authorization", authorization),), timeout=30)


@then(parsers.parse('a call sending the authorization "{authorization}" succeeds'))
def _scheme_any_case(server: ServedServer, authorization: str) -> None:
    # An unauthenticated call raises grpc.RpcError; a successful one answers with a ListRunsResponse.
    assert isinstance(_list_with_authorization(server, authorization), agent_pb.ListRunsResponse)


@then(parsers.parse('a call sending the authorization "{authorization}" fails with UNAUTHENTICATED {reason}'))
def _other_scheme(server: ServedServer, authorization: str, reason: str) -> None:
    with pytest.raises(grpc.RpcError) as failure:
        _list_with_authorization(server, authorization)
    error = VerityRpcError.from_rpc_error(failure.value)
    assert (error.code, error.reason) == (grpc.StatusCode.UNAUTHENTICATED, reason)


@then("a health check without a token reports SERVING")
def _health_without_token(server: ServedServer) -> None:
    with grpc.insecure_channel(server.target) as channel:
        response = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
    assert response.status == health_pb2.HealthCheckResponse.SERVING


@then("it exits with code 2 explaining that a token is needed")
def _refused(context: dict[str, Any]) -> None:
    result = context["cli"]
    assert result.returncode == 2, result.stdout + result.stderr
    assert "refusing to listen on '0.0.0.0' without a token" in result.stderr
    assert "Traceback" not in result.stderr


@then("its log records the rejected calls without any token")
def _log_without_token(context: dict[str, Any]) -> None:
    text = context["process"].text
    assert "rejected /verity.v1.AgentService/ListRuns: no bearer token" in text
    assert "rejected /verity.v1.AgentService/ListRuns: wrong bearer token" in text
    assert context["token"] not in text and "wrong-token" not in text


@then("the in-process health watcher saw SERVING then NOT_SERVING")
def _saw_not_serving(context: dict[str, Any]) -> None:
    health: HealthWatch = context["health"]
    health.assert_reaches(lambda statuses: health_pb2.HealthCheckResponse.NOT_SERVING in statuses, "reported NOT_SERVING")
    assert health.statuses[0] == health_pb2.HealthCheckResponse.SERVING
    health.close()


@then(parsers.parse('reflection lists "{first}", "{second}" and "{third}"'))
def _reflection_lists(server: ServedServer, first: str, second: str, third: str) -> None:
    with grpc.insecure_channel(server.target) as channel:
        services = set(ProtoReflectionDescriptorDatabase(channel).get_services())
    assert {first, second, third} <= services


@then("reflection describes the StreamRun method of AgentService")
def _reflection_describes(server: ServedServer) -> None:
    with grpc.insecure_channel(server.target) as channel:
        pool = DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
        service = pool.FindServiceByName("verity.v1.AgentService")
        committed = agent_pb.DESCRIPTOR.services_by_name["AgentService"]
        # Every method, with its streaming shape, as a tool without the protos (grpcurl) sees it.
        assert {(m.name, m.client_streaming, m.server_streaming) for m in service.methods} == {
            (m.name, m.client_streaming, m.server_streaming) for m in committed.methods
        }
        method = service.methods_by_name["StreamRun"]
        assert method.server_streaming
        assert method.output_type.full_name == "verity.v1.StreamRunResponse"
        assert "final_verdict" in pool.FindMessageTypeByName("verity.v1.Event").fields_by_name
