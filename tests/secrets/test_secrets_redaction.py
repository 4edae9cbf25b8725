"""Binds features/secrets_redaction.feature: real runs (real Chromium on a loopback page, the
scripted loopback Gemini server, a loopback OTLP receiver, `verity run` and `verity serve` as
subprocesses, a real gRPC channel) searched byte by byte for the secret values."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.events import EventLog
from runtime.execute.run import run_secrets
from runtime.outcomes import StopReason
from runtime.plan import prepare_run
from runtime.recipe import load_recipe_file
from runtime.service.gen.verity.v1 import agent_service_pb2 as agent_pb
from runtime.service.gen.verity.v1 import agent_service_pb2_grpc as agent_grpc
from runtime.trace_export import CAPTURE_CONTENT_VARIABLE
from tests.fixtures.gemini_server import GeminiServer, function_call_reply
from tests.fixtures.otlp_receiver import FlatSpan, OtlpGrpcReceiver
from tests.fixtures.site_server import FixtureSite
from tests.service.service_harness import ServeProcess

scenarios("secrets_redaction.feature")

REPO = Path(__file__).resolve().parents[2]
RECIPE = REPO / "tests" / "fixtures" / "recipes" / "secret-login.yaml"
VERITY = [sys.executable, "-m", "runtime.cli.main"]

# The values, each with a prefix nothing else in a run could show.
TOKEN = "Zq8-LIVE-4f9a2c71e0"  # the marked input, typed into a plain field
PIN = "Wp3-plain-7730"  # the recipe's literal, typed into a password field by a plan step
AGENT_PIN = "Kx5-agent-5521"  # the model's own text, typed into a password field by the agent
SECRETS = (TOKEN, PIN, AGENT_PIN)
FORBIDDEN = [*SECRETS, *(value[:4] for value in SECRETS)]
TOKEN_MARK, PIN_MARK = "«secret:api_key»", "«secret:password»"


def leaks(text: str) -> list[str]:
    """The secret values and prefixes found in `text` (JSON's escaped forms too)."""
    unescaped = text.encode("utf-8", "replace").decode("unicode_escape", "replace") if "\\u" in text else text
    return [value for value in FORBIDDEN if value in text or value in unescaped]


def file_leaks(root: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        hits = [value for value in FORBIDDEN if value.encode() in data]
        if hits:
            found[str(path.relative_to(root))] = hits
    return found


def span_text(span: FlatSpan) -> str:
    return json.dumps(
        {"name": span.name, "status": span.status_message, "attributes": span.attributes, "events": span.events}, ensure_ascii=False, default=str
    )


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "VERITY_GEMINI", "GEMINI_", "GOOGLE_", "VERITY_SECRET_"))}
    env.update(extra)
    return env


def agent_script(gemini: GeminiServer) -> None:
    """The model types the token by the placeholder it was told, then a PIN of its own into the
    password field, then closes."""
    gemini.enqueue(
        function_call_reply("browser_type", {"target": {"css": "#agent_token"}, "text": TOKEN_MARK}),
        function_call_reply("browser_type", {"target": {"css": "#agent_pin"}, "text": AGENT_PIN}),
        function_call_reply("close", {"summary": "typed both"}),
    )


@dataclass
class SecretsWorld:
    stack: ExitStack
    site: FixtureSite
    gemini: GeminiServer
    tmp: Path
    receiver: OtlpGrpcReceiver | None = None
    server: ServeProcess | None = None
    env: dict[str, str] = field(default_factory=dict)
    run_dirs: list[Path] = field(default_factory=list)
    printed: list[str] = field(default_factory=list)
    streamed: list[Any] = field(default_factory=list)
    got_runs: list[agent_pb.GetRunResponse] = field(default_factory=list)
    exit_code: int | None = None

    def base_env(self) -> dict[str, str]:
        return clean_env(**self.gemini.env(api_key="fixture-gemini-key"), **self.env)

    @property
    def site_base(self) -> str:
        return self.site.url("/").rstrip("/")


@pytest.fixture
def world(tmp_path: Path) -> Iterator[SecretsWorld]:
    with ExitStack() as stack:
        site = stack.enter_context(FixtureSite())
        gemini = stack.enter_context(GeminiServer())
        state = SecretsWorld(stack, site, gemini, tmp_path)
        state.env[CAPTURE_CONTENT_VARIABLE] = "true"
        state.env["OTEL_BSP_SCHEDULE_DELAY"] = "200"
        yield state
        if state.server is not None:
            state.server.signal(signal.SIGTERM)
            try:
                state.server.wait(60)
            finally:
                state.server.close()


# --------------------------------------------------------------------------- given


@given("a loopback OTLP receiver for the secrets runs")
def otlp(world: SecretsWorld) -> None:
    world.receiver = world.stack.enter_context(OtlpGrpcReceiver())
    world.env.update(world.receiver.env())


@given("the scripted model types the token by its placeholder and its own PIN into the password field")
def script_once(world: SecretsWorld) -> None:
    agent_script(world.gemini)


@given("the scripted model types the token by its placeholder and its own PIN into the password field, twice")
def script_twice(world: SecretsWorld) -> None:
    agent_script(world.gemini)
    agent_script(world.gemini)


@given('"verity serve" at DEBUG log level with VERITY_SECRET_TOKEN in its environment')
def serve(world: SecretsWorld) -> None:
    env = world.base_env()
    env.update(OTEL_SERVICE_NAME="verity-secrets", VERITY_SECRET_TOKEN=TOKEN)
    args = [
        "--store", str(world.tmp / "verity.db"), "--runs-dir", str(world.tmp / "runs"), "--recipes-dir", str(world.tmp),
        "--allow-private-network", "--log-level", "DEBUG",
    ]  # fmt: skip
    world.server = ServeProcess(args, env=env, cwd=str(world.tmp))


# --------------------------------------------------------------------------- when


@when(parsers.parse('"verity run" runs the secret-login recipe with api_key=@env:{variable} at DEBUG log level'))
@when(parsers.parse('"verity run" runs the secret-login recipe with api_key=@env:{variable}'))
def verity_run(world: SecretsWorld, variable: str) -> None:
    env = world.base_env()
    if variable == "VAULT_TOKEN":
        env["VAULT_TOKEN"] = TOKEN
    out = world.tmp / "run"
    done = subprocess.run(
        [*VERITY, "run", str(RECIPE), "--input", f"site={world.site_base}", "--input", f"api_key=@env:{variable}", "--out", str(out), "--log-level", "DEBUG"],
        capture_output=True, text=True, timeout=240, cwd=world.tmp, env=env,
    )  # fmt: skip
    world.exit_code = done.returncode
    world.printed += [done.stdout, done.stderr]
    world.run_dirs.append(out)


@when('"verity client run" runs the secret-login recipe with api_key=@env:VERITY_SECRET_TOKEN')
def client_run(world: SecretsWorld) -> None:
    assert world.server is not None
    done = subprocess.run(
        [*VERITY, "client", "run", "--target", world.server.target, "--json", "--recipe", str(RECIPE),
         "--input", f"site={world.site_base}", "--input", "api_key=@env:VERITY_SECRET_TOKEN"],
        capture_output=True, text=True, timeout=240, cwd=world.tmp, env=clean_env(),
    )  # fmt: skip
    world.printed += [done.stdout, done.stderr]
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert events and "final_verdict" in events[-1], done.stdout[-2000:] + done.stderr[-2000:]
    run_id = events[-1]["run_id"]
    world.run_dirs.append(world.tmp / "runs" / run_id)
    with grpc.insecure_channel(world.server.target) as channel:
        world.got_runs.append(agent_grpc.AgentServiceStub(channel).GetRun(agent_pb.GetRunRequest(run_id=run_id), timeout=30))


@when("a gRPC client starts the secret-login recipe with the token itself as api_key and follows it to the end")
def grpc_run(world: SecretsWorld) -> None:
    assert world.server is not None
    with grpc.insecure_channel(world.server.target) as channel:
        stub = agent_grpc.AgentServiceStub(channel)
        request = agent_pb.StartRunRequest(recipe_yaml=RECIPE.read_text(encoding="utf-8"), inputs={"site": world.site_base, "api_key": TOKEN})
        run_id = stub.StartRun(request, timeout=30).run_id
        for response in stub.StreamRun(agent_pb.StreamRunRequest(run_id=run_id), timeout=240):
            world.streamed.extend(response.events)
        world.got_runs.append(stub.GetRun(agent_pb.GetRunRequest(run_id=run_id), timeout=30))
    world.run_dirs.append(world.tmp / "runs" / run_id)


# --------------------------------------------------------------------------- then


def _events(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()]


def _verdict(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "verdict.json").read_text(encoding="utf-8"))


@then("the run completed, so the agent field holds the real token")
def completed(world: SecretsWorld) -> None:
    verdict = _verdict(world.run_dirs[0])
    assert world.exit_code == 0 and verdict["stop_reason"] == "completed", (world.exit_code, verdict, world.printed[1][-3000:])
    # The agent step's done_when is `element #agent_token has value {api_key}`: it held, on the real value.
    [agent_done] = [e for e in _events(world.run_dirs[0]) if e["kind"] == "step_finished" and e["payload"]["state_id"] == "agent_fill" and e["payload"]["verified"]]
    assert agent_done["payload"]["outcome"] == "verified"


@then("both runs completed")
def both_completed(world: SecretsWorld) -> None:
    assert len(world.run_dirs) == 2
    for run_dir in world.run_dirs:
        verdict = _verdict(run_dir)
        assert verdict["stop_reason"] == "completed", (run_dir, verdict)
    assert world.streamed[-1].final_verdict.verified


@then("no file of the run directory holds a secret value or its first 4 characters")
def no_file_leaks(world: SecretsWorld) -> None:
    run_dir = world.run_dirs[0]
    names = {p.name for p in run_dir.iterdir()}
    assert {"events.jsonl", "executions.json", "plans.json", "verdict.json", "output.json", "report.html", "trace.jsonl"} <= names, names
    assert file_leaks(run_dir) == {}


def _spans(world: SecretsWorld, roots: int) -> list[FlatSpan]:
    assert world.receiver is not None
    return world.receiver.wait_for_spans(lambda spans: sum(s.name.startswith("invoke_agent ") for s in spans) >= roots)


@then("no exported span, no model request and nothing the command printed holds a secret value or its first 4 characters")
def no_other_leaks(world: SecretsWorld) -> None:
    spans = _spans(world, 1)
    assert any(s.name.startswith("chat ") for s in spans) and any(s.name == "execute_tool browser_type" for s in spans)
    assert [(s.name, leaks(span_text(s))) for s in spans if leaks(span_text(s))] == []
    assert len(world.gemini.requests) == 3
    assert [leaks(json.dumps(r.body, ensure_ascii=False)) for r in world.gemini.requests] == [[], [], []]
    stdout, stderr = world.printed
    assert "DEBUG" in stderr and "Input.insertText" in stderr, stderr[-2000:]
    assert leaks(stdout) == [] and leaks(stderr) == []
    # Where the logs would have shown the values, they show the markers.
    assert f'"text": "{TOKEN_MARK}"' in stderr and f'"text": "{PIN_MARK}"' in stderr


@then("events.jsonl shows «secret:api_key» where the token was typed, and the PIN only as a changed password field")
def event_markers(world: SecretsWorld) -> None:
    text = (world.run_dirs[0] / "events.jsonl").read_text(encoding="utf-8")
    finished = {e["payload"]["state_id"]: e["payload"]["observation_summary"] for e in _events(world.run_dirs[0]) if e["kind"] == "step_finished"}
    assert TOKEN_MARK in finished["type_token"], finished
    # A password field's check says it changed and holds what was typed, showing no marker either.
    assert "password field's value changed" in finished["type_pin"] and "not shown" in finished["type_pin"], finished
    assert TOKEN_MARK in text


@then("the type_token act's evidence says the token field holds «secret:api_key»")
def act_evidence(world: SecretsWorld) -> None:
    executions = json.loads((world.run_dirs[0] / "executions.json").read_text(encoding="utf-8"))
    [act] = [e for e in executions if e["state_id"] == "type_token"]
    messages = [check["message"] for check in act["evidence"]["checks"]]
    assert act["verified"] and any(TOKEN_MARK in message and "holds" in message for message in messages), messages


@then("output.json holds the extracted echo of the token as «secret:api_key»")
def output_redacted(world: SecretsWorld) -> None:
    output = json.loads((world.run_dirs[0] / "output.json").read_text(encoding="utf-8"))
    assert output["data"]["echoed"] == TOKEN_MARK, output


@then("the model was told the placeholder «secret:api_key» and sent it back as the text to type")
def model_placeholder(world: SecretsWorld) -> None:
    first = world.gemini.requests[0]
    sent = json.dumps(first.body, ensure_ascii=False)
    assert TOKEN_MARK in first.system_instruction  # the task, its token as the placeholder
    assert f"Secret values are shown as placeholders: {TOKEN_MARK}" in sent
    # The model's own PIN comes back to it in the history as its marker only.
    last = json.dumps(world.gemini.requests[-1].body, ensure_ascii=False)
    assert "«secret:password_2»" in last and AGENT_PIN not in last


@then("no stream event, GetRun answer, client output, run directory file, exported span or model request holds a secret value or its first 4 characters")
def served_no_leaks(world: SecretsWorld) -> None:
    streamed = "\n".join(json_format.MessageToJson(e, ensure_ascii=False) for e in world.streamed)
    assert streamed and leaks(streamed) == []
    got = "\n".join(json_format.MessageToJson(g, ensure_ascii=False) for g in world.got_runs)
    assert len(world.got_runs) == 2 and leaks(got) == []
    assert all(leaks(text) == [] for text in world.printed)
    for run_dir in world.run_dirs:
        assert (run_dir / "report.html").exists() and file_leaks(run_dir) == {}, run_dir
    spans = _spans(world, 2)
    assert [(s.name, leaks(span_text(s))) for s in spans if leaks(span_text(s))] == []
    assert len(world.gemini.requests) == 6
    assert all(leaks(json.dumps(r.body, ensure_ascii=False)) == [] for r in world.gemini.requests)


@then("the run store file and the server's log hold no secret value or its first 4 characters")
def store_and_log(world: SecretsWorld) -> None:
    assert world.server is not None
    store_files = [p for p in world.tmp.iterdir() if p.name.startswith("verity.db")]
    assert store_files
    for path in store_files:
        data = path.read_bytes()
        assert [v for v in FORBIDDEN if v.encode() in data] == [], path
    log = world.server.text
    assert "DEBUG" in log and "Input.insertText" in log
    assert leaks(log) == []
    assert f'"text": "{TOKEN_MARK}"' in log


@then("GetRun shows the api_key input of both runs as «secret:api_key», whether it was sent or read from the environment")
def get_run_inputs(world: SecretsWorld) -> None:
    inputs = [dict(g.run.inputs) for g in world.got_runs]
    assert [i["api_key"] for i in inputs] == [TOKEN_MARK, TOKEN_MARK], inputs
    assert all(i["site"] == world.site_base for i in inputs)


@then("the streamed events show «secret:api_key» where the token was typed")
def streamed_markers(world: SecretsWorld) -> None:
    finished = [e.step_finished for e in world.streamed if e.WhichOneof("payload") == "step_finished"]
    [typed] = [f for f in finished if f.state_id == "type_token"]
    assert TOKEN_MARK in typed.observation_summary, typed


@then("a StartRun with api_key=@env:GEMINI_API_KEY or an unset VERITY_SECRET_ variable is refused as INVALID_ARGUMENT naming the variable")
def env_refused(world: SecretsWorld) -> None:
    assert world.server is not None
    with grpc.insecure_channel(world.server.target) as channel:
        stub = agent_grpc.AgentServiceStub(channel)
        for variable, why in (("GEMINI_API_KEY", "only variables named VERITY_SECRET_*"), ("VERITY_SECRET_UNSET", "is not set")):
            request = agent_pb.StartRunRequest(recipe_yaml=RECIPE.read_text(encoding="utf-8"), inputs={"site": world.site_base, "api_key": f"@env:{variable}"})
            with pytest.raises(grpc.RpcError) as refused:
                stub.StartRun(request, timeout=30)
            assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
            details = refused.value.details() or ""
            assert variable in details and why in details and "inputs.api_key" in details, details
            assert "fixture-gemini-key" not in details


@then("it exits with invalid_input's code, naming inputs.api_key and VERITY_NOT_SET_ANYWHERE")
def missing_env(world: SecretsWorld) -> None:
    stderr = world.printed[1]
    assert world.exit_code == StopReason.INVALID_INPUT.exit_code, (world.exit_code, stderr)
    assert "inputs.api_key" in stderr and "environment variable VERITY_NOT_SET_ANYWHERE is not set" in stderr, stderr
    assert "Traceback" not in stderr


@then("no run directory was written")
def nothing_ran(world: SecretsWorld) -> None:
    assert not world.run_dirs[0].exists()


@when("the secret-login recipe's inputs are resolved with site=@env:SITE_BASE and the token given as it is", target_fixture="resolved")
def resolve_env_site() -> dict[str, Any]:
    recipe = load_recipe_file(RECIPE)
    raw = {"site": "@env:SITE_BASE", "api_key": TOKEN}
    order = prepare_run(recipe, raw, environ={"SITE_BASE": "http://127.0.0.1:9/base"}, run_id="r-env", run_dir=Path("runs/r-env"))
    events = EventLog("r-env")
    secrets = run_secrets(order, events)
    return {"inputs": order.inputs, "names": order.secret_inputs, "secrets": secrets}


@then("site and api_key are the run's secret inputs, with the values read and given")
def env_names(resolved: dict[str, Any]) -> None:
    assert resolved["names"] == {"site", "api_key"}
    assert resolved["inputs"] == {"site": "http://127.0.0.1:9/base", "api_key": TOKEN}
    assert resolved["secrets"].names == ["api_key", "site"]


@then("the run's registry shows the site's value as «secret:site» and types its marker as the value")
def env_registry(resolved: dict[str, Any]) -> None:
    secrets = resolved["secrets"]
    shown = secrets.redact({"url": "http://127.0.0.1:9/base/secrets.html", "typed": f"value '' -> '{TOKEN}'"})
    assert shown == {"url": "«secret:site»/secrets.html", "typed": f"value '' -> '{TOKEN_MARK}'"}
    assert secrets.reveal("«secret:site»/x") == "http://127.0.0.1:9/base/x"
