"""Bindings of features/service_contract.feature: the proto as a contract."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from google.protobuf.descriptor import FileDescriptor
from pytest_bdd import scenarios, then, when

from runtime.events import (
    AgentState,
    ArtifactStored,
    ChatDelta,
    ConversationMessage,
    ConfirmationRequested,
    Event,
    FinalVerdict,
    GuardrailTripped,
    Replanned,
    StatusChanged,
    StepFinished,
    StepStarted,
    StructuredOutput,
    TabChanged,
    ToolUsed,
    WebhookDelivery,
)
from runtime.events.model import PAYLOAD_TYPES
from runtime.outcomes import BlockerKind, StopReason, TaskState
from runtime.service.gen.verity.v1 import agent_service_pb2, events_pb2, recipe_service_pb2
from runtime.service.api.proto_mapping import check_payload_mapping, event_from_proto, event_to_proto

scenarios("service_contract.feature")

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import gen_proto  # noqa: E402 - the tool lives outside the package

PROTO_FILES: tuple[FileDescriptor, ...] = (events_pb2.DESCRIPTOR, agent_service_pb2.DESCRIPTOR, recipe_service_pb2.DESCRIPTOR)

ONE_OF_EACH = [
    StatusChanged(status=TaskState.WAITING_FOR_USER_CONFIRMATION, detail="approve?"),
    StepStarted(state_id="open", step_kind="navigate", attempt=2, tab_id="t1"),
    StepFinished(
        state_id="read", step_kind="extract", outcome="failed", ok=False, verified=False, duration_ms=3.25,
        observation_summary="no price", blocker_kind=BlockerKind.QUOTE_FETCH_FAILED,
        agent_state=AgentState(thinking="t", evaluation="e", memory="m", next_goal="g"), error="missing",
    ),
    ToolUsed(tool="browser_click", action_id="a1", phase="blocked", summary="outside scope", error_code="tool_policy_blocked", tab_id="t2"),
    TabChanged(change="opened", tab_id="t2", url="http://x/terms", opener_tab_id="t1", state_id="pop", primary_tab_id="t1", name="terms"),
    ChatDelta(text="héllo ✓"),
    GuardrailTripped(guard="data.validate-target", blocker_kind=BlockerKind.PAGE_NOT_FOUND, detail="404", evidence={"status": 404, "url": "http://x/", "nested": {"ok": False, "list": [1, "two"]}}),
    Replanned(attempt=1, blocker_kind=None, failure_summary="blocked", query="gold quote", url="http://s/?q=gold"),
    ConfirmationRequested(request_id="r:1", tool="navigate", summary="open x", params={"url": "http://x/"}),
    ArtifactStored(artifact_id="html-00", artifact_kind="html", path="/a/b.html", media_type="text/html", size=10, sha256="00" * 32),
    StructuredOutput(data={"price": 2312, "currency": "USD", "as_of": None}, valid=False, errors=("price too high",)),
    FinalVerdict(status=TaskState.ERROR, stop_reason=StopReason.NO_PROGRESS, verified=False, summary="looping", blocker_kind=BlockerKind.NO_SEARCH_RESULTS, evidence={"signature": "click#3"}),
    WebhookDelivery(webhook_id="msg_run-1", url="https://hooks.example/runs", attempt=2, outcome="retrying", status_code=503, error="answered 503", retry_in_seconds=10.0),
    ConversationMessage(turn=2, role="tool", text="the run completed: {}", stop_reason=StopReason.VERIFICATION_FAILED, verified=False),
]


@when("the stubs are regenerated into a temporary folder", target_fixture="fresh")
def _regenerate(tmp_path: Path) -> Path:
    gen_proto.generate(tmp_path / "gen")
    return tmp_path / "gen"


@then("they equal the committed stubs")
def _equal(fresh: Path) -> None:
    assert gen_proto.stale_files(gen_proto.GENERATED_ROOT, fresh) == []
    assert (fresh / "verity" / "v1" / "agent_service_pb2_grpc.py").is_file()


@when("a fresh Python process imports the stubs from another working directory", target_fixture="imported")
def _import_elsewhere(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    code = (
        "from runtime.service.gen.verity.v1 import agent_service_pb2_grpc, agent_service_pb2, recipe_service_pb2\n"
        "print(agent_service_pb2.DESCRIPTOR.services_by_name['AgentService'].full_name)\n"
        "print(recipe_service_pb2.DESCRIPTOR.services_by_name['RecipeService'].full_name)\n"
    )
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)


@then("the import succeeds and names the verity.v1 services")
def _imported(imported: subprocess.CompletedProcess[str]) -> None:
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.split() == ["verity.v1.AgentService", "verity.v1.RecipeService"]
    generated = (gen_proto.GENERATED_ROOT / "verity" / "v1" / "agent_service_pb2.py").read_text()
    assert re.search(r"^from verity\.v1 import", generated, re.MULTILINE) is None


@then("the payload dataclasses and the proto messages match field for field")
def _mapping() -> None:
    assert check_payload_mapping() == []
    assert {type(p).KIND for p in ONE_OF_EACH} == set(PAYLOAD_TYPES)


@then("every kind of event survives the trip to proto and back unchanged")
def _round_trip() -> None:
    for seq, payload in enumerate(ONE_OF_EACH, start=1):
        event = Event(seq=seq, run_id="run-1", timestamp_ns=1_767_225_600_123_456_789, trace_id="0af7651916cd43dd8448eb211c80319c", payload=payload)
        message = event_to_proto(event)
        assert message.WhichOneof("payload") == payload.KIND
        wire = type(message).FromString(message.SerializeToString())
        assert event_from_proto(wire) == event


@then("every enum starts with an UNSPECIFIED value 0")
def _unspecified() -> None:
    for enum in events_pb2.DESCRIPTOR.enum_types_by_name.values():
        assert enum.values[0].number == 0 and enum.values[0].name.endswith("_UNSPECIFIED"), enum.name


def _snake_upper(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


@then("every RPC takes <Rpc>Request and returns <Rpc>Response, each used once")
def _rpc_names() -> None:
    seen: list[str] = []
    for file in PROTO_FILES:
        for service in file.services_by_name.values():
            for method in service.methods:
                assert method.input_type.name == f"{method.name}Request", method.full_name
                assert method.output_type.name == f"{method.name}Response", method.full_name
                seen += [method.input_type.full_name, method.output_type.full_name]
    assert len(seen) == len(set(seen)) and len(seen) == 2 * (13 + 3)


@then("every enum value is prefixed with its enum's name")
def _enum_prefixes() -> None:
    for file in PROTO_FILES:
        for enum in file.enum_types_by_name.values():
            prefix = _snake_upper(enum.name) + "_"
            assert all(value.name.startswith(prefix) for value in enum.values), enum.name


@then("every file's package verity.v1 matches its folder")
def _packages() -> None:
    for file in PROTO_FILES:
        assert file.package == "verity.v1"
        assert file.name.startswith("verity/v1/") and (REPO / "proto" / file.name).is_file()
