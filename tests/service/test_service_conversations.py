"""Binds features/service_conversations.feature: conversations over a real gRPC channel, their
turns in one real Chromium session on the loopback fixture site, replayed after a restart."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.fixtures.gemini_server import GeminiServer, function_call_reply
from tests.fixtures.site_server import FixtureSite
from tests.service.run_steps import *  # noqa: F403 - the shared real-run steps
from tests.service.run_steps import run_inputs, serve_args
from tests.service.service_harness import ServedServer

from runtime.cli.main import main as verity_main
from runtime.cli.main import parse_args
from runtime.cli.serve import server_config_from_args
from runtime.client import VerityClient, VerityRpcError
from runtime.llm.settings import API_KEY_VARIABLES
from runtime.service.config.errors import ServiceConfigError
from runtime.service.gen.verity.v1 import events_pb2 as events_pb

scenarios("service_conversations.feature")

CONVERSATION_RECIPE = """\
name: service-conversation
version: "1"
goal: 用浏览器 keep a note on the conversation page
inputs:
  site:
    type: string
target:
  start_url: "{site}/conversation.html"
  allowed_domains: ["127.0.0.1"]
  validation_keywords: ["conversation"]
plan:
  - id: open
    navigate: "{start_url}"
  - id: note
    act: {click: {css: "#remember"}, expect: {text_includes: "noted in turn 1"}}
  - id: read
    extract:
      fields:
        visit: {css: "#visit"}
  - close: {summary: the page has its note}
"""

# Its plan needs no browser: a conversation that waits without one (the browser is opened lazily).
CHAT_RECIPE = """\
name: service-chat
version: "1"
goal: say hello
inputs:
  site:
    type: string
target:
  start_url: "{site}/conversation.html"
  allowed_domains: ["127.0.0.1"]
plan:
  - close: {summary: hello}
"""

READ_THE_NOTE = """\
- id: reread
  extract:
    fields:
      note: {css: "#note"}
"""

OPEN_AGAIN = """\
- id: back
  navigate: "{start_url}"
- id: visit
  extract:
    fields:
      visit: {css: "#visit"}
"""

ONGOING = events_pb.TASK_STATE_ONGOING


@pytest.fixture(autouse=True)
def _cleanups(context: dict[str, Any]) -> Any:
    context["cleanups"] = cleanups = []
    yield
    for cleanup in reversed(cleanups):
        cleanup()


@given("the fixture site and the conversation recipes", target_fixture="recipes_dir")
def _recipes(tmp_path: Path, site: FixtureSite) -> Path:
    directory = tmp_path / "recipes"
    directory.mkdir()
    (directory / "conversation.yaml").write_text(CONVERSATION_RECIPE, encoding="utf-8")
    (directory / "chat.yaml").write_text(CHAT_RECIPE, encoding="utf-8")
    return directory


@given(parsers.parse("a server started from `verity serve --conversation-idle-seconds {seconds}`"), target_fixture="target")
def _idle_server(tmp_path: Path, recipes_dir: Path, context: dict[str, Any], seconds: str) -> str:
    flags = ["--port", "0", *serve_args(tmp_path, recipes_dir), "--grace-seconds", "0.5"]
    context["serve_flags"] = flags
    config = server_config_from_args(parse_args(["serve", *flags, "--conversation-idle-seconds", seconds]))
    assert config.conversation_idle_seconds == float(seconds)
    context["server"] = server = ServedServer(config)
    context["cleanups"].append(server.close)
    return server.target


@given("the config file key conversation_idle_seconds sets the timeout, which must be more than 0")
def _idle_config(tmp_path: Path, context: dict[str, Any]) -> None:
    config_file = tmp_path / "verity-serve.yaml"
    config_file.write_text("conversation_idle_seconds: 45\n", encoding="utf-8")
    config = server_config_from_args(parse_args(["serve", *context["serve_flags"], "--config", str(config_file)]))
    assert config.conversation_idle_seconds == 45.0
    refused = server_config_from_args(parse_args(["serve", *context["serve_flags"], "--conversation-idle-seconds", "0"]))
    with pytest.raises(ServiceConfigError, match="conversation_idle_seconds must be more than 0"):
        refused.validate()  # as the server does before it starts


def _read_turn(client: VerityClient, run: dict[str, Any]) -> None:
    """Stream the run's events after those already read, up to its next wait in ongoing or its end."""
    for event in client.stream_run(run["run_id"], run["events"][-1].seq if run["events"] else 0):
        run["events"].append(event)
        if event.HasField("final_verdict") or (event.HasField("status_changed") and event.status_changed.status == ONGOING):
            return


def _start(context: dict[str, Any], site: FixtureSite, name: str, key: str) -> None:
    client = context["client"] = context["server"].client()
    run_id = client.start_run(recipe_name=name, inputs=run_inputs(site), conversation=True).run_id
    context[key] = run = {"run_id": run_id, "events": []}
    _read_turn(client, run)


@when(parsers.parse('a client starts "{name}" as a conversation'))
def _start_conversation(context: dict[str, Any], site: FixtureSite, name: str) -> None:
    _start(context, site, name, "run")


def _answers(run: dict[str, Any]) -> list[Any]:
    return [e.message for e in run["events"] if e.HasField("message") and e.message.role != "user"]


def _assert_answered(run: dict[str, Any], turn: int, output: dict[str, Any] | None) -> None:
    answer = _answers(run)[-1]
    assert (answer.turn, answer.role, answer.stop_reason, answer.verified) == (turn, "tool", events_pb.STOP_REASON_COMPLETED, True), answer
    if output is not None:
        assert json.loads(answer.text.split(": ", 1)[1]) == output, answer.text
    last = run["events"][-1]
    assert last.HasField("status_changed") and last.status_changed.status == ONGOING, last
    assert last.status_changed.detail.startswith(f"turn {turn} ended completed"), last


@then("turn 1 is answered completed and the run waits in ongoing")
def _turn_one(context: dict[str, Any]) -> None:
    _assert_answered(context["run"], 1, None)
    assert context["client"].get_run(context["run"]["run_id"]).run.status == ONGOING


@when("the client sends the steps that read the note")
def _send_read(context: dict[str, Any]) -> None:
    assert context["client"].send_message(context["run"]["run_id"], steps_yaml=READ_THE_NOTE).turn == 2
    _read_turn(context["client"], context["run"])


@when("the client sends the steps that open the page again with verity client send")
def _send_open(context: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # From the command line (in process): it prints the turn and returns as the run waits again.
    steps = tmp_path / "open-again.yaml"
    steps.write_text(OPEN_AGAIN, encoding="utf-8")
    assert verity_main(["client", "send", "--target", context["server"].target, context["run"]["run_id"], "--steps", str(steps)]) == 0
    assert f"{context['run']['run_id']} waits for a message" in capsys.readouterr().out
    _read_turn(context["client"], context["run"])


@then(parsers.parse('turn {turn:d} is answered completed with "{value}" and the run waits in ongoing'))
def _turn_answered(context: dict[str, Any], turn: int, value: str) -> None:
    # Turn 2 reads the note turn 1's click left on the page; turn 3 the cookie turn 1's visit set.
    _assert_answered(context["run"], turn, {"note": value} if turn == 2 else {"visit": value})


@when(parsers.parse('the client sends the text "{text}" to the run, whose model is a loopback Gemini'))
def _send_text(context: dict[str, Any], text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    gemini = context["gemini"] = GeminiServer().__enter__()
    context["cleanups"].append(lambda: gemini.__exit__(None, None, None))
    for name, value in gemini.env().items():
        monkeypatch.setenv(name, value)  # the server runs in this process: its model is this one
    gemini.enqueue(function_call_reply("close", {"summary": "the page says: returning visit set-in-turn-1"}))
    assert context["client"].send_message(context["run"]["run_id"], text=text).turn == 4
    _read_turn(context["client"], context["run"])


@then("turn 4 is answered completed by the model, which was shown the page turn 3 left")
def _model_turn(context: dict[str, Any]) -> None:
    answer = _answers(context["run"])[-1]
    assert (answer.turn, answer.role, answer.stop_reason) == (4, "model", events_pb.STOP_REASON_COMPLETED), answer
    assert "returning visit set-in-turn-1" in answer.text
    asked = json.dumps(context["gemini"].requests[0].body, ensure_ascii=False)
    assert "What does the page say now?" in asked and "returning visit set-in-turn-1" in asked


@when("the client ends the run with verity client end")
def _end(context: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    # `verity client end` exits with the run's stop reason's code: 0 for completed.
    assert verity_main(["client", "end", "--target", context["server"].target, context["run"]["run_id"]]) == 0
    assert "completed  stop_reason=completed" in capsys.readouterr().out
    context["ended"] = context["client"].get_run(context["run"]["run_id"]).run
    _read_turn(context["client"], context["run"])


@then("the conversation ends completed with stop reason completed, one stream from seq 1 with ongoing between its four turns")
def _ended(context: dict[str, Any]) -> None:
    events = context["run"]["events"]
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    final = events[-1].final_verdict
    assert (final.status, final.stop_reason, final.verified) == (events_pb.TASK_STATE_COMPLETED, events_pb.STOP_REASON_COMPLETED, True)
    assert "the conversation ended after 4 turn(s)" in final.summary
    assert context["ended"].status == events_pb.TASK_STATE_COMPLETED
    statuses = [e.status_changed.status for e in events if e.HasField("status_changed")]
    assert statuses.count(ONGOING) == 4 and statuses[-1] == events_pb.TASK_STATE_COMPLETED, statuses
    assert sum(1 for e in events if e.HasField("final_verdict")) == 1


@then(parsers.parse('every step of the four turns acted in tab "{tab_id}"'))
def _one_tab(context: dict[str, Any], tab_id: str) -> None:
    started = [e.step_started for e in context["run"]["events"] if e.HasField("step_started") and e.step_started.tab_id]
    assert {"open", "note", "reread", "back", "visit", "turn-4"} <= {s.state_id for s in started}
    assert {s.tab_id for s in started} == {tab_id}
    opened = [e.tab for e in context["run"]["events"] if e.HasField("tab") and e.tab.change == "opened"]
    assert opened == [], opened


@then("the run's messages are a user message and an answer for each of its four turns")
def _messages(context: dict[str, Any]) -> None:
    listed = context["client"].list_messages(context["run"]["run_id"])
    streamed = [e for e in context["run"]["events"] if e.HasField("message")]
    assert [m.seq for m in listed] == [m.seq for m in streamed]
    shape = [(m.message.turn, m.message.role) for m in listed]
    assert shape == [(1, "user"), (1, "tool"), (2, "user"), (2, "tool"), (3, "user"), (3, "tool"), (4, "user"), (4, "model")], shape
    assert listed[0].message.text == "用浏览器 keep a note on the conversation page"
    assert listed[2].message.text == READ_THE_NOTE and listed[4].message.text == OPEN_AGAIN
    assert listed[6].message.text == "What does the page say now?" and "returning visit" in listed[7].message.text


@then("its messages listed three a page are the same eight, on three pages, the last without a token")
def _paged(context: dict[str, Any]) -> None:
    client, run_id = context["client"], context["run"]["run_id"]
    pages: list[list[int]] = []
    token = ""
    while True:
        messages, token = client.list_messages_page(run_id, page_size=3, page_token=token)
        pages.append([m.seq for m in messages])
        if not token:
            break
        context["message_token"] = token
    assert [len(page) for page in pages] == [3, 3, 2], pages
    whole = [m.seq for m in client.list_messages(run_id)]
    assert [seq for page in pages for seq in page] == whole and whole == sorted(whole), (pages, whole)
    assert [m.seq for m in client.list_messages(run_id, page_size=1)] == whole


@then("a page token of another run, or none ListMessages returned, is refused INVALID_ARGUMENT naming page_token")
def _bad_message_tokens(context: dict[str, Any]) -> None:
    client, token = context["client"], context["message_token"]
    for run_id, sent in ((f"{context['run']['run_id']}-other", token), (context["run"]["run_id"], "not-a-token")):
        with pytest.raises(VerityRpcError) as refused:
            client.list_messages_page(run_id, page_size=3, page_token=sent)
        assert refused.value.code.name == "INVALID_ARGUMENT", refused.value
        assert [v.field for v in refused.value.field_violations] == ["page_token"], refused.value.field_violations


def _refused(call: Callable[[], Any], reason: str) -> None:
    with pytest.raises(VerityRpcError) as refused:
        call()
    assert (refused.value.code.name, refused.value.reason) == ("FAILED_PRECONDITION", reason), refused.value


@then(parsers.parse("a message to the ended run is refused FAILED_PRECONDITION with reason {reason}"))
def _refused_ended(context: dict[str, Any], reason: str) -> None:
    _refused(lambda: context["client"].send_message(context["run"]["run_id"], steps_yaml=READ_THE_NOTE), reason)


@when("a second conversation, which needs no browser, waits in ongoing")
def _second(context: dict[str, Any], site: FixtureSite) -> None:
    _start(context, site, "service-chat", "second")
    assert context["second"]["events"][-1].status_changed.status == ONGOING


@then(parsers.parse("a text message to it is refused FAILED_PRECONDITION with reason {reason} when the server has no model"))
def _no_model(context: dict[str, Any], reason: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in API_KEY_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    _refused(lambda: context["client"].send_message(context["second"]["run_id"], text="now open the second result"), reason)
    assert context["client"].get_run(context["second"]["run_id"]).run.status == ONGOING


@when(parsers.parse("the server restarts on its store, with a conversation idle timeout of {seconds:g} seconds"))
def _restart(serve: Callable[..., ServedServer], recipes_dir: Path, context: dict[str, Any], seconds: float) -> None:
    context["server"].stop()
    context["server"] = serve(recipes_dir=recipes_dir, conversation_idle_seconds=seconds)
    context["client"] = context["server"].client()


@then("the first run's stream replays from seq 1 the same events, gap-free")
def _replayed(context: dict[str, Any]) -> None:
    replayed = list(context["client"].stream_run(context["run"]["run_id"]))
    assert [e.SerializeToString() for e in replayed] == [e.SerializeToString() for e in context["run"]["events"]]


@then("the second conversation ended stopped with stop reason interrupted, its stream gap-free from seq 1")
def _interrupted(context: dict[str, Any]) -> None:
    replayed = list(context["client"].stream_run(context["second"]["run_id"]))
    assert [e.seq for e in replayed] == list(range(1, len(replayed) + 1))
    assert replayed[: len(context["second"]["events"])] == context["second"]["events"]
    final = replayed[-1].final_verdict
    assert (final.status, final.stop_reason) == (events_pb.TASK_STATE_STOPPED, events_pb.STOP_REASON_INTERRUPTED), final


@then("the conversation ends stopped with stop reason conversation_idle after waiting in ongoing")
def _idle(context: dict[str, Any]) -> None:
    run = context["run"]
    assert run["events"][-1].status_changed.status == ONGOING
    _read_turn(context["client"], run)
    final = run["events"][-1].final_verdict
    assert (final.status, final.stop_reason) == (events_pb.TASK_STATE_STOPPED, events_pb.STOP_REASON_CONVERSATION_IDLE), final
    assert "conversation idle timeout (0.2s)" in final.summary and "turn 1: hello" in final.summary, final.summary
