"""Bindings of features/service_confinement.feature: inline recipes and the server's files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import grpc
import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from runtime.client import VerityClient, VerityRpcError

scenarios("service_confinement.feature")

RECIPE = """\
name: confined
goal: use the browser with extra tools
target:
  start_url: "http://127.0.0.1/"
tools:
  registry: {registry}
  allow: [open_url, quote_lookup]
plan:
  - navigate: "{{start_url}}"
"""
# What the server's disk holds that no reply may show.
SECRET_FILE = "name: secret-tool-name\ndescription: not for clients\ndb_password: hunter2\n"
BROKEN_DESCRIPTOR = "name: broken_tool\ndescription: x\napi_secret_key: s3cr3t-value\n"
SECRETS = ("secret-tool-name", "db_password", "hunter2", "api_secret_key", "s3cr3t-value", "config.yaml", "bad.yaml", "leak.yaml")


def _recipe(registry: str) -> str:
    return RECIPE.format(registry=json.dumps(registry))


@pytest.fixture
def disk(tmp_path: Path) -> dict[str, Path]:
    """A secret beside the registry root; inside it a good registry, a broken one, a symlink out
    and a registry whose second file links out."""
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "config.yaml").write_text(SECRET_FILE)
    root = tmp_path / "registries"
    (root / "good").mkdir(parents=True)
    (root / "good" / "tools.json").write_text(json.dumps({"name": "quote_lookup", "description": "Look a quote up", "scope": "browser"}))
    (root / "broken").mkdir()
    (root / "broken" / "bad.yaml").write_text(BROKEN_DESCRIPTOR)
    (root / "escape").symlink_to(secret, target_is_directory=True)
    (root / "mixed").mkdir()
    (root / "mixed" / "ok.json").write_text(json.dumps({"name": "quote_lookup", "description": "Look a quote up"}))
    (root / "mixed" / "leak.yaml").symlink_to(secret / "config.yaml")
    return {"secret": secret, "root": root, "tmp": tmp_path}


@given("a server without a tool registry root, and a secret file beside it", target_fixture="target")
def _server_without_root(serve: Any, disk: dict[str, Path]) -> str:
    # In this process: the subject is what the server answers, and its settings are the defaults
    # `verity serve` starts with (no registry root, no private networks).
    store = disk["tmp"] / "server"
    served = serve(store_path=store / "verity.db", runs_dir=store / "runs", recipes_dir=store, allow_private_network=False)
    return served.target


@given(
    "a server whose tool registry root holds a good registry, a broken one, a symlink out and a registry with a file linked out",
    target_fixture="target",
)
def _server_with_root(serve_processes: Any, disk: dict[str, Path]) -> str:
    # A `verity serve` process: its --tool-registry-root and --allow-private-network are part of the subject.
    store = disk["tmp"] / "server"
    process = serve_processes(
        "--store", str(store / "verity.db"), "--runs-dir", str(store / "runs"), "--recipes-dir", str(store),
        "--tool-registry-root", str(disk["root"]), "--allow-private-network",
    )
    return str(process.target)


def _replies(target: str, registry: str) -> list[str]:
    """Every text the three calls answer a recipe naming `registry` with; each must be a refusal at tools.registry."""
    with VerityClient(target) as client:
        return _refusals(client, registry)


def _refusals(client: VerityClient, registry: str) -> list[str]:
    replies: list[str] = []
    validated = client.validate_recipe(recipe_yaml=_recipe(registry))
    assert not validated.valid
    assert {p.field_path for p in validated.problems} == {"tools.registry"}, validated.problems
    replies += [p.message for p in validated.problems]
    for call in (lambda: client.compile_recipe(recipe_yaml=_recipe(registry)), lambda: client.start_run(recipe_yaml=_recipe(registry))):
        with pytest.raises(VerityRpcError) as failure:
            call()
        error = failure.value
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT, error
        assert {v.field for v in error.field_violations} == {"tools.registry"}, error.field_violations
        replies += [error.message, *(v.description for v in error.field_violations)]
    assert list(client.list_runs().runs) == []
    return replies


def _record(context: dict[str, Any], registry: str, replies: list[str]) -> None:
    # The client's own value may be echoed back; everything else is the server's to keep.
    context.setdefault("replies", []).extend(reply.replace(registry, "<requested>") for reply in replies)


@then(
    parsers.parse(
        'validating, compiling and starting a recipe whose tools.registry is "{registry}" are refused at tools.registry'
    )
)
def _refused_without_root(target: str, context: dict[str, Any], registry: str) -> None:
    replies = _replies(target, registry)
    assert any("no tool_registry_root" in reply for reply in replies), replies
    _record(context, registry, replies)


@then(
    "validating, compiling and starting recipes whose tools.registry is each of these are refused at tools.registry with one reply:"
)
def _refused_alike(target: str, context: dict[str, Any], disk: dict[str, Path], datatable: list[list[str]]) -> None:
    answers: dict[str, list[str]] = {}
    for (registry,) in datatable[1:]:
        registry = registry.replace("<absolute secret dir>", str(disk["secret"]))
        replies = _replies(target, registry)
        _record(context, registry, replies)
        answers[registry] = [reply.replace(registry, "<requested>") for reply in replies]
    # The same answer whether the path is absolute, climbs out, links out, is missing or is a file:
    # a reply never tells what is on the disk.
    assert len({tuple(answer) for answer in answers.values()}) == 1, answers


@then("the broken registry is refused with one line and no file name, key or content")
def _broken_registry(target: str, context: dict[str, Any]) -> None:
    with VerityClient(target) as client:
        _broken_refused(client, context)


def _broken_refused(client: VerityClient, context: dict[str, Any]) -> None:
    validated = client.validate_recipe(recipe_yaml=_recipe("broken"))
    registry_problems = [p for p in validated.problems if p.field_path == "tools.registry"]
    assert len(registry_problems) == 1 and "server log" in registry_problems[0].message
    _record(context, "broken", [p.message for p in validated.problems])
    with pytest.raises(VerityRpcError) as failure:
        client.compile_recipe(recipe_yaml=_recipe("broken"))
    _record(context, "broken", [failure.value.message, *(v.description for v in failure.value.field_violations)])


@then("no reply names the secret file, its keys, its contents or the server's directories")
def _nothing_revealed(context: dict[str, Any], disk: dict[str, Path]) -> None:
    replies = context["replies"]
    assert replies
    for reply in replies:
        for secret in (*SECRETS, str(disk["tmp"]), str(disk["tmp"].resolve())):
            assert secret not in reply, f"{secret!r} revealed in {reply!r}"


@then("a recipe naming the good registry validates, compiles with its tool and starts")
def _good_registry(target: str) -> None:
    with VerityClient(target) as client:
        assert client.validate_recipe(recipe_yaml=_recipe("good")).valid
        compiled = client.compile_recipe(recipe_yaml=_recipe("good"))
        assert "quote_lookup" in compiled.plan_json
        run_id = client.start_run(recipe_yaml=_recipe("good")).run_id
        client.stop_run(run_id)


FILE_URL_RECIPE = """\
name: peek
goal: 用浏览器 read a file
target:
  start_url: "{url}"
plan:
  - navigate: "{{start_url}}"
  - extract:
      fields:
        body: {{css: "body"}}
"""


@when("a client starts a recipe whose start_url is the secret file's file: URL")
def _run_file_url(target: str, disk: dict[str, Path], context: dict[str, Any]) -> None:
    url = (disk["secret"] / "config.yaml").as_uri()
    with VerityClient(target) as client:
        with pytest.raises(VerityRpcError) as failure:
            client.start_run(recipe_yaml=FILE_URL_RECIPE.format(url=url))
        context["error"] = failure.value
        context["records"] = [failure.value.message, *(v.description for v in failure.value.field_violations), str(client.list_runs())]
        context["runs"] = list(client.list_runs().runs)


@then("StartRun refuses it at target.start_url with scheme_not_allowed and no run is recorded")
def _file_url_refused(context: dict[str, Any]) -> None:
    error = context["error"]
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT, error
    assert [v.field for v in error.field_violations] == ["target.start_url"], error.field_violations
    assert "[scheme_not_allowed]" in error.field_violations[0].description
    assert context["runs"] == []


@then("no reply holds the secret file's keys or contents")
def _file_not_read(context: dict[str, Any]) -> None:
    for text in context["records"]:
        for secret in ("db_password", "hunter2", "secret-tool-name", "not for clients"):
            assert secret not in text, f"{secret!r} revealed"
