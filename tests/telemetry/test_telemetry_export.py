"""Binds features/telemetry_export.feature: `verity run` as a subprocess exporting to loopback
OTLP receivers, and its trace.jsonl read back with opentelemetry-proto."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pytest_bdd import given, parsers, scenarios, then, when

from runtime.demo import DEMO_RECIPE, DemoSite
from runtime.trace_export import read_trace_file
from tests.fixtures.gemini_fixtures import FIXTURE_API_KEY
from tests.fixtures.gemini_server import GeminiServer, RecordedRequest, function_call_reply
from tests.fixtures.otlp_receiver import FlatSpan, OtlpGrpcReceiver, flat_spans
from tests.telemetry.conftest import Command, TelemetryEnv, clean_env, run_verity

scenarios("telemetry_export.feature")

RECIPES = Path(__file__).resolve().parents[1] / "fixtures" / "recipes"


def demo_args(demo_site: DemoSite, metal: str, out: Path) -> list[str]:
    return ["run", str(DEMO_RECIPE), "-i", f"site={demo_site.quote_base}", "-i", f"search_site={demo_site.search_base}", "-i", f"metal={metal}", "--out", str(out)]


def command(args: list[str], out: Path, env: dict[str, str]) -> Command:
    done = run_verity(args, out.parent, env)
    return Command(done.returncode, done.stdout, done.stderr, out)


def root_of(spans: list[FlatSpan]) -> FlatSpan:
    [root] = [s for s in spans if s.name.startswith("invoke_agent ")]
    return root


def state_span(spans: list[FlatSpan], kind: str) -> FlatSpan:
    found = [s for s in spans if s.name == f"verity.state {kind}"]
    assert found, f"no {kind} state span in {[s.name for s in spans]}"
    return found[-1]


def received_run(receiver: OtlpGrpcReceiver) -> list[FlatSpan]:
    """The spans of the run, once its root span has arrived (exported last, as it ends last)."""
    return receiver.wait_for_spans(lambda spans: any(s.name.startswith("invoke_agent ") for s in spans))


# ---------------------------------------------------------------------- running


@when(
    parsers.parse('I run "verity run" on the demo recipe for "{metal}" exporting to the receiver as service "{service}" with "{attributes}"'),
    target_fixture="command",
)
def run_demo_exported(demo_site: DemoSite, telemetry_env: TelemetryEnv, tmp_path: Path, metal: str, service: str, attributes: str) -> Command:
    env = clean_env(**telemetry_env.variables, OTEL_SERVICE_NAME=service, OTEL_RESOURCE_ATTRIBUTES=attributes)
    return command(demo_args(demo_site, metal, tmp_path / "run"), tmp_path / "run", env)


@when(parsers.parse('I run "verity run" on the demo recipe for "{metal}" with OTEL_TRACES_EXPORTER "{exporter}"'), target_fixture="command")
def run_demo_bad_exporter(demo_site: DemoSite, tmp_path: Path, metal: str, exporter: str) -> Command:
    return command(demo_args(demo_site, metal, tmp_path / "run"), tmp_path / "run", clean_env(OTEL_TRACES_EXPORTER=exporter))


@when(parsers.parse('I run "verity run" on "{name}" against the quote site exporting to the receiver'), target_fixture="command")
def run_recipe_exported(demo_site: DemoSite, telemetry_env: TelemetryEnv, tmp_path: Path, name: str) -> Command:
    out = tmp_path / "run"
    return command(["run", str(RECIPES / f"{name}.yaml"), "-i", f"site={demo_site.quote_base}", "--out", str(out)], out, clean_env(**telemetry_env.variables))


@then(parsers.parse("the command exits {code:d}"))
def exits(command: Command, code: int) -> None:
    assert command.code == code, (command.stdout[-2000:], command.stderr[-2000:])


@then(parsers.parse('the command exits {code:d} naming "{variable}" and "{value}"'))
def exits_naming(command: Command, code: int, variable: str, value: str) -> None:
    assert command.code == code and variable in command.stderr and value in command.stderr, command.stderr


@then("no run directory was written")
def no_run_dir(command: Command) -> None:
    assert not command.run_dir.exists()


# ---------------------------------------------------------------------- export and the file


@then("the receiver got the run's invoke_agent span and one state span per executed state, in the trace of the run's events")
def received_states(receiver: OtlpGrpcReceiver, command: Command) -> None:
    spans = received_run(receiver)
    root = root_of(spans)
    assert root.parent_span_id == "" and root.kind == "INTERNAL" and root.name == "invoke_agent demo-quote"
    states = [s for s in spans if s.parent_span_id == root.span_id]
    assert len(states) == command.file("verdict.json")["executed_states"] and all(s.name.startswith("verity.state ") for s in states)
    assert {e["trace_id"] for e in command.events()} == {s.trace_id for s in spans} == {root.trace_id}


@then(parsers.parse('every received span has the resource service.name "{service}", deployment.environment "{environment}" and the scope "{scope}"'))
def received_resource(receiver: OtlpGrpcReceiver, service: str, environment: str, scope: str) -> None:
    spans = received_run(receiver)
    assert all(s.resource["service.name"] == service and s.resource["deployment.environment"] == environment for s in spans)
    assert {s.scope for s in spans} == {scope}


@then("every line of trace.jsonl parses as an OTLP ExportTraceServiceRequest with hex ids and span kinds")
def file_parses(command: Command) -> None:
    path = command.run_dir / "trace.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines
    for line in lines:
        data = json.loads(line)
        [resource_spans] = data["resourceSpans"]
        assert resource_spans["resource"]["attributes"]
        for scope_spans in resource_spans["scopeSpans"]:
            assert scope_spans["scope"]["name"] == "verity"
            for span in scope_spans["spans"]:
                # OTLP/JSON: ids in hex (protobuf's own JSON would write base64), kinds as numbers.
                assert len(span["traceId"]) == 32 and int(span["traceId"], 16) and len(span["spanId"]) == 16 and int(span["spanId"], 16) >= 0
                assert span["kind"] in (1, 3)
    spans = flat_spans(read_trace_file(path))
    assert len(spans) >= len(lines) and {s.kind for s in spans} == {"INTERNAL"}


@then("trace.jsonl holds exactly the spans the receiver got")
def file_matches_export(receiver: OtlpGrpcReceiver, command: Command) -> None:
    received = {(s.span_id, s.name, s.parent_span_id) for s in received_run(receiver)}
    written = {(s.span_id, s.name, s.parent_span_id) for s in flat_spans(read_trace_file(command.run_dir / "trace.jsonl"))}
    assert written == received


# ---------------------------------------------------------------------- the vocabulary


@then(parsers.parse('the root span is "{name}" with gen_ai.operation.name "{operation}", gen_ai.agent.name "{agent}" and verity.stop_reason "{reason}"'))
def root_attributes(receiver: OtlpGrpcReceiver, name: str, operation: str, agent: str, reason: str) -> None:
    root = root_of(received_run(receiver))
    attributes = root.attributes
    assert root.name == name and root.status == "OK"
    assert (attributes["gen_ai.operation.name"], attributes["gen_ai.agent.name"], attributes["verity.stop_reason"]) == (operation, agent, reason)
    assert attributes["verity.verified"] is True and attributes["verity.status"] == "completed"
    assert attributes["verity.run_id"] and attributes["verity.recipe.name"] == agent


@then(parsers.parse("the root span counts {replans:d} replan, {retries:d} retries and its executed states"))
def root_counts(receiver: OtlpGrpcReceiver, command: Command, replans: int, retries: int) -> None:
    attributes = root_of(received_run(receiver)).attributes
    assert attributes["verity.replans"] == replans and attributes["verity.retries"] == retries
    assert attributes["verity.steps"] == command.file("verdict.json")["executed_states"]
    assert attributes["verity.blocked_requests"] == 0
    assert attributes["gen_ai.usage.input_tokens"] == 0 == attributes["gen_ai.usage.output_tokens"]  # no model in this recipe


@then(parsers.parse('each driver action of the run is an "{operation}" span with its tool name and action id as gen_ai.tool.call.id'))
def tool_spans(receiver: OtlpGrpcReceiver, command: Command, operation: str) -> None:
    # The driver actions executions.json records, each with the action id its tool_used events carry.
    actions = {r["action_id"]: r["action"] for e in command.file("executions.json") for r in e["tool_results"]}
    started = {e["payload"]["action_id"] for e in command.events() if e["kind"] == "tool_used" and e["payload"]["phase"] == "start"}
    spans = [s for s in received_run(receiver) if s.name.startswith(f"{operation} ")]
    assert actions and set(actions) <= started
    assert {s.attributes["gen_ai.tool.call.id"]: s.attributes["gen_ai.tool.name"] for s in spans} == actions
    assert all(s.name == f"{operation} {s.attributes['gen_ai.tool.name']}" and s.attributes["gen_ai.operation.name"] == operation for s in spans)
    by_id = {s.span_id: s for s in received_run(receiver)}
    assert all(by_id[s.parent_span_id].name.startswith("verity.state ") for s in spans)
    opened = [s for s in spans if s.attributes["gen_ai.tool.name"] == "open_url" and s.status != "ERROR"]
    assert any(s.attributes.get("verity.url.domain") == "127.0.0.1" and s.attributes.get("verity.tab_id") for s in opened)
    assert {s.attributes["verity.url.domain"] for s in spans if "verity.url.domain" in s.attributes} <= {"127.0.0.1", "localhost"}  # quotes, search


@then(parsers.parse('the replan state\'s span has a "{event}" event for attempt {attempt:d} after "{blocker}"'))
def replan_event(receiver: OtlpGrpcReceiver, event: str, attempt: int, blocker: str) -> None:
    replan = state_span(received_run(receiver), "replan.search")
    [(name, attributes)] = [e for e in replan.events if e[0] == event]
    assert attributes["verity.replan.attempt"] == attempt and attributes["verity.blocker_kind"] == blocker
    assert "verity.replan.query" not in attributes


@then(parsers.parse('the verify state\'s span has a "{event}" event that verified'))
def verification_event(receiver: OtlpGrpcReceiver, event: str) -> None:
    verify = state_span(received_run(receiver), "verify")
    assert (event, {"verity.verified": True}) in verify.events and verify.attributes["verity.verified"] is True


@then(parsers.parse('the input value "{value}" is in the run\'s events but in no span, file or export'))
def no_input_value(receiver: OtlpGrpcReceiver, command: Command, value: str) -> None:
    assert value in (command.run_dir / "events.jsonl").read_text(encoding="utf-8")  # it was there to leak
    assert value.encode() not in (command.run_dir / "trace.jsonl").read_bytes()
    received_run(receiver)
    assert not any(value.encode() in raw for raw in receiver.raw)


# ---------------------------------------------------------------------- failures and content


@then(parsers.parse('the root span has status ERROR "{reason}"'))
def root_error(receiver: OtlpGrpcReceiver, reason: str) -> None:
    root = root_of(received_run(receiver))
    assert (root.status, root.status_message, root.attributes["verity.stop_reason"]) == ("ERROR", reason, reason)
    assert root.attributes["verity.verified"] is False


@then(parsers.parse('the verify state\'s span has status ERROR and a "{event}" event from guard "{guard}"'))
def verify_error(receiver: OtlpGrpcReceiver, event: str, guard: str) -> None:
    verify = state_span(received_run(receiver), "verify")
    assert verify.status == "ERROR" and verify.attributes["verity.verified"] is False
    assert any(name == event and attributes["verity.guard"] == guard and "verity.detail" not in attributes for name, attributes in verify.events)


@then(parsers.parse('the replan state\'s "{event}" event names the query with "{value}"'))
def replan_query(receiver: OtlpGrpcReceiver, event: str, value: str) -> None:
    replan = state_span(received_run(receiver), "replan.search")
    [(name, attributes)] = [e for e in replan.events if e[0] == event]
    assert value in attributes["verity.replan.query"]


# ---------------------------------------------------------------------- an agent run


@given(parsers.parse('a Gemini server on loopback whose model looks, clicks the "{name}" result by its ref and closes'), target_fixture="model")
def scripted_model(gemini: GeminiServer, telemetry_env: TelemetryEnv, name: str) -> GeminiServer:
    def click(request: RecordedRequest) -> Any:
        refs = re.findall(r"link \"" + re.escape(name) + r"[^\n]*?\[ref=(s\d+:(?:f\d+)?e\d+)\]", request.system_instruction)
        assert refs, "no such link in the prompt"
        return function_call_reply("browser_click", {"target": {"ref": refs[-1]}})

    gemini.enqueue(function_call_reply("browser_snapshot", {}), click, function_call_reply("close", {"summary": "opened the quote"}))
    telemetry_env.variables.update(gemini.env(api_key=FIXTURE_API_KEY))
    return gemini


@when(parsers.parse('I run "verity run" on "{name}" against the demo site with the model, exporting to the receiver'), target_fixture="command")
def run_agent_exported(demo_site: DemoSite, telemetry_env: TelemetryEnv, model: GeminiServer, tmp_path: Path, name: str) -> Command:
    out = tmp_path / "run"
    args = ["run", str(RECIPES / f"{name}.yaml"), "-i", f"site={demo_site.quote_base}", "-i", f"search_site={demo_site.search_base}", "--out", str(out)]
    done = command(args, out, clean_env(**telemetry_env.variables))
    assert not model.script_failures, model.script_failures
    return done


@then(parsers.parse('each of the {count:d} agent turns holds a "{chat}" span and an "{operation}" span for the tool the model called'))
def turns_hold_calls(receiver: OtlpGrpcReceiver, count: int, chat: str, operation: str) -> None:
    spans = received_run(receiver)
    turns = sorted((s for s in spans if s.name == "verity.agent.turn"), key=lambda s: s.attributes["verity.agent.turn"])
    assert len(turns) == count
    for turn in turns:
        inside = [s.name for s in spans if s.parent_span_id == turn.span_id]
        assert inside == [chat, f"{operation} {turn.attributes['verity.agent.tool']}"], inside


@then(parsers.parse('every chat span is a client span with gen_ai.provider.name "{provider}", gen_ai.request.model "{model}", {inputs:d} input and {outputs:d} output tokens'))
def chat_spans(receiver: OtlpGrpcReceiver, provider: str, model: str, inputs: int, outputs: int) -> None:
    chats = [s for s in received_run(receiver) if s.name.startswith("chat ")]
    assert chats
    for chat in chats:
        attributes = chat.attributes
        assert chat.kind == "CLIENT" and chat.status != "ERROR" and attributes["gen_ai.operation.name"] == "chat"
        assert (attributes["gen_ai.provider.name"], attributes["gen_ai.request.model"], attributes["gen_ai.response.model"]) == (provider, model, model)
        assert (attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"]) == (inputs, outputs)
        assert attributes["server.address"] == "127.0.0.1" and attributes["gen_ai.response.finish_reasons"] == ["STOP"]
        assert "gen_ai.input.messages" not in attributes and "gen_ai.output.messages" not in attributes


@then(parsers.parse("the root span sums {inputs:d} input and {outputs:d} output tokens"))
def root_tokens(receiver: OtlpGrpcReceiver, inputs: int, outputs: int) -> None:
    attributes = root_of(received_run(receiver)).attributes
    assert (attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"]) == (inputs, outputs)


@then("the API key is in neither trace.jsonl nor the export, and no span holds the model's task")
def no_key(receiver: OtlpGrpcReceiver, command: Command, model: GeminiServer) -> None:
    assert model.requests[0].headers["x-goog-api-key"] == FIXTURE_API_KEY  # it was there to leak
    received_run(receiver)
    for place in [(command.run_dir / "trace.jsonl").read_bytes(), *receiver.raw]:
        assert FIXTURE_API_KEY.encode() not in place
        assert b"Open the live" not in place
