"""Binds features/report_html.feature: reports of real runs (`verity demo`, `verity run`, a served
run) opened in the suite's real Chromium, and `verity report` on run directories a test lays out."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.browser import Browser
from runtime.report.page import CONTENT_SECURITY_POLICY
from runtime.client import VerityClient
from tests.fixtures.browser_loop import LoopThread
from tests.report.hostile_page import BODY_TEXT, HEADLINE_TEXT, RECIPE, TITLE_TEXT, HostileSite
from tests.report.report_browser import REPORT_ARTIFACTS, RenderedReport, open_report
from tests.service.service_harness import ServeProcess

scenarios("report_html.feature")

VERITY = [sys.executable, "-m", "runtime.cli.main"]


@dataclass
class Command:
    code: int
    stdout: str
    stderr: str
    run_dir: Path
    rendered: dict[str, RenderedReport] = field(default_factory=dict)

    def file(self, name: str) -> Any:
        return json.loads((self.run_dir / name).read_text(encoding="utf-8"))

    @property
    def report(self) -> Path:
        return self.run_dir / "report.html"


def verity(args: list[str], run_dir: Path, timeout: float = 120) -> Command:
    done = subprocess.run([*VERITY, *args], capture_output=True, text=True, timeout=timeout, cwd=run_dir.parent)
    return Command(done.returncode, done.stdout, done.stderr, run_dir)


def rendered(command: Command, loop_thread: LoopThread, browser: Browser, name: str) -> RenderedReport:
    if name not in command.rendered:
        command.rendered[name] = open_report(loop_thread, browser, command.report, name)
    return command.rendered[name]


# --- the demo ----------------------------------------------------------------------------------


@when('I run "verity demo"', target_fixture="command")
def _demo(tmp_path: Path) -> Command:
    command = verity(["demo", "--out", str(tmp_path / "demo")], tmp_path / "demo")
    assert command.code == 0, (command.stdout[-2000:], command.stderr[-2000:])
    return command


@then("it printed the report's path in the run directory")
def _printed_path(command: Command) -> None:
    assert f"report:  {command.report}" in command.stdout, command.stdout
    assert command.report.is_file()


@then("executions.json names the screenshot of every state that prepared a page")
def _screenshots_named(command: Command) -> None:
    executions = command.file("executions.json")
    preparing = [r for r in executions if any(t["action"] == "prepare_page" and t["ok"] for t in r["tool_results"])]
    assert preparing, "the demo prepares pages"
    for record in preparing:
        shot = record["screenshot"]
        assert shot and shot.startswith("artifacts/screenshot/") and (command.run_dir / shot).is_file(), record
    for record in executions:
        if record not in preparing:
            assert record["screenshot"] is None, record


@then('the events announce the report as a "report" artifact just before the final verdict')
def _report_artifact(command: Command) -> None:
    events = [json.loads(line) for line in (command.run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    kinds = [e["kind"] for e in events]
    assert kinds[-3:] == ["artifact", "status_changed", "final_verdict"], kinds[-5:]
    artifact = events[-3]["payload"]
    assert artifact["artifact_kind"] == "report" and artifact["media_type"] == "text/html"
    assert Path(artifact["path"]).resolve() == command.report.resolve()
    assert artifact["size"] == command.report.stat().st_size


@then(parsers.parse('Chromium shows the verdict "{stop_reason}", the valid output and one row per executed state in order'))
def _verdict_and_rows(command: Command, loop_thread: LoopThread, shared_browser: Browser, stop_reason: str) -> None:
    shown = rendered(command, loop_thread, shared_browser, "demo-report")
    assert shown["stopReason"] == stop_reason and shown["verified"] == "true"
    assert shown["outputValid"] == "true" and "2345.6" in shown["outputText"]
    executions = command.file("executions.json")
    assert [row["id"] for row in shown["states"]] == [r["state_id"] for r in executions]
    assert len(executions) == command.file("verdict.json")["executed_states"]


@then("every state that took a screenshot shows its thumbnail, decoded")
def _thumbnails(command: Command, loop_thread: LoopThread, shared_browser: Browser) -> None:
    shown = rendered(command, loop_thread, shared_browser, "demo-report")
    executions = command.file("executions.json")
    for record, row in zip(executions, shown["states"], strict=True):
        if record["screenshot"]:
            assert row["thumbnails"] and all(t["complete"] and t["width"] > 0 for t in row["thumbnails"]), row
            assert row["links"] == [record["screenshot"]]
        else:
            assert row["thumbnails"] == [], row
    assert {image["scheme"] for image in shown["images"]} == {"data"}


@then("the replan history shows each plan repair")
def _replans(command: Command, loop_thread: LoopThread, shared_browser: Browser) -> None:
    shown = rendered(command, loop_thread, shared_browser, "demo-report")
    repairs = command.file("plans.json")["plan_repairs"]
    assert repairs and shown["replans"] == len(repairs)
    assert all(repair["query"] in shown["text"] for repair in repairs)


@then("a copy of the report alone in an empty directory renders the same thumbnails and fetches nothing")
def _self_contained(command: Command, loop_thread: LoopThread, shared_browser: Browser, tmp_path: Path) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    copy = shutil.copy(command.report, alone / "report.html")
    shown = open_report(loop_thread, shared_browser, Path(copy), "demo-report-alone")
    thumbnails = [t for row in shown["states"] for t in row["thumbnails"]]
    assert thumbnails and all(t["complete"] and t["width"] > 0 for t in thumbnails)
    assert [url for url in shown.requested if not url.startswith("data:")] == [Path(copy).resolve().as_uri()]


@then("a screenshot of the rendered report is kept under reports/report/")
def _kept(command: Command, loop_thread: LoopThread, shared_browser: Browser) -> None:
    shown = rendered(command, loop_thread, shared_browser, "demo-report")
    assert shown.screenshot.parent == REPORT_ARTIFACTS
    with Image.open(shown.screenshot) as image:
        assert image.width >= 1000 and image.height > 600


# --- hostile page text -------------------------------------------------------------------------


@pytest.fixture
def hostile_site() -> Iterator[HostileSite]:
    with HostileSite() as site:
        yield site


@given("a page whose title, text and values hold script tags, handlers and javascript: links", target_fixture="recipe")
def _hostile_recipe(hostile_site: HostileSite, tmp_path: Path) -> Path:
    recipe = tmp_path / "hostile.yaml"
    recipe.write_text(RECIPE, encoding="utf-8")
    return recipe


@when("a run reads that page and its report is opened in Chromium", target_fixture="command")
def _hostile_run(recipe: Path, hostile_site: HostileSite, tmp_path: Path, loop_thread: LoopThread, shared_browser: Browser) -> Command:
    command = verity(["run", str(recipe), "-i", f"site={hostile_site.base_url}", "--out", str(tmp_path / "hostile")], tmp_path / "hostile")
    assert command.code == 0, (command.stdout[-2000:], command.stderr[-2000:])
    rendered(command, loop_thread, shared_browser, "hostile-report")
    return command


@then("the hostile text shows as literal text in the evidence and the output")
def _literal(command: Command) -> None:
    shown = command.rendered["hostile-report"]
    assert TITLE_TEXT in shown["text"]
    values = command.file("output.json")["data"]
    assert values["headline"] == HEADLINE_TEXT and BODY_TEXT in values["body"]
    # The output is shown as JSON, so its quotes are escaped; the tags are there as text.
    assert json.dumps(HEADLINE_TEXT)[1:-1] in shown["outputText"] and "</td></tr></table></pre><script>" in shown["outputText"]
    assert any(TITLE_TEXT in row["text"] for row in shown["states"])


@then("the report has no script element, no javascript: link and no image but thumbnails, and no handler ran")
def _inert(command: Command) -> None:
    shown = command.rendered["hostile-report"]
    assert shown["scripts"] == 0 and shown["javascriptLinks"] == 0 and shown["handlers"] == 0
    assert shown["pwned"] is None
    assert all(image["className"] == "thumbnail" and image["scheme"] == "data" for image in shown["images"])


@then("the report forbids scripts in its Content-Security-Policy")
def _csp(command: Command) -> None:
    shown = command.rendered["hostile-report"]
    assert shown["csp"] == CONTENT_SECURITY_POLICY and "default-src 'none'" in shown["csp"] and "script-src" not in shown["csp"]


# --- a served run ------------------------------------------------------------------------------

@pytest.fixture
def served(tmp_path: Path) -> Iterator[ServeProcess]:
    recipes = tmp_path / "recipes"
    recipes.mkdir()
    (recipes / "hostile.yaml").write_text(RECIPE, encoding="utf-8")
    process = ServeProcess(
        ["--store", str(tmp_path / "verity.db"), "--runs-dir", str(tmp_path / "runs"), "--recipes-dir", str(recipes)], cwd=str(tmp_path)
    )
    yield process
    process.close()


@given('"verity serve" with the hostile page\'s recipe', target_fixture="server")
def _server(served: ServeProcess) -> ServeProcess:
    return served


@when("a client starts a run and follows it to its final verdict", target_fixture="served_run")
def _served_run(server: ServeProcess, hostile_site: HostileSite) -> dict[str, Any]:
    with VerityClient(server.target, None) as client:
        run_id = client.start_run(recipe_name="hostile-report", inputs={"site": hostile_site.base_url}, timeout_seconds=90).run_id
        kinds = [event.WhichOneof("payload") for event in client.stream_run(run_id)]
        response = client.get_run(run_id)
    return {"run_id": run_id, "kinds": kinds, "response": response}


@then("GetRun lists the report artifact, a file in the run's directory")
def _get_run_lists_report(served_run: dict[str, Any], tmp_path: Path) -> None:
    assert served_run["kinds"][-1] == "final_verdict", served_run["kinds"]
    reports = [a for a in served_run["response"].artifacts if a.artifact_kind == "report"]
    assert len(reports) == 1 and reports[0].media_type == "text/html" and reports[0].size > 0
    run_dir = tmp_path / "runs" / served_run["run_id"]
    path = Path(reports[0].path)
    on_disk = path if path.is_absolute() else run_dir / path  # GetRun names artifacts relative to the run directory
    assert on_disk.resolve() == (run_dir / "report.html").resolve() and on_disk.stat().st_size == reports[0].size


# --- verity report on run directories laid out by hand -----------------------------------------


def _screenshot(run_dir: Path) -> str:
    relative = "artifacts/screenshot/00c0ffee00c0ffee.png"
    (run_dir / relative).parent.mkdir(parents=True)
    Image.new("RGB", (1280, 720), (30, 90, 160)).save(run_dir / relative)
    return relative


@given("a run directory with executions.json and a screenshot but no verdict, plans or output", target_fixture="run_dir")
def _killed_run(tmp_path: Path) -> Path:
    run_dir = tmp_path / "killed"
    run_dir.mkdir()
    record = {"index": 1, "state_id": "open", "kind": "navigate", "outcome": "ok", "ok": True, "duration_ms": 812.0,
              "observation_summary": "opened the harbour page", "screenshot": _screenshot(run_dir), "evidence": {"url": "http://127.0.0.1/"}}
    (run_dir / "executions.json").write_text(json.dumps([record]), encoding="utf-8")
    (run_dir / "events.jsonl").write_text("", encoding="utf-8")
    return run_dir


@given("a run directory whose executions.json names a screenshot outside it", target_fixture="run_dir")
def _outside_run(tmp_path: Path) -> Path:
    run_dir = tmp_path / "tampered"
    run_dir.mkdir()
    outside = tmp_path / "secret.png"
    Image.new("RGB", (64, 64), (200, 0, 0)).save(outside)
    records = [
        {"index": 1, "state_id": "open", "kind": "navigate", "outcome": "ok", "ok": True, "screenshot": "../secret.png"},
        {"index": 2, "state_id": "again", "kind": "observe", "outcome": "ok", "ok": True, "screenshot": str(outside)},
    ]
    (run_dir / "executions.json").write_text(json.dumps(records), encoding="utf-8")
    return run_dir


@when('I run "verity report" on it', target_fixture="command")
def _report_on(run_dir: Path) -> Command:
    return verity(["report", str(run_dir)], run_dir)


@when('I run "verity report" on an empty directory', target_fixture="command")
def _report_on_empty(tmp_path: Path) -> Command:
    empty = tmp_path / "empty"
    empty.mkdir()
    return verity(["report", str(empty)], empty)


@then("the command exits 0 and prints the report's path")
def _exits_ok(command: Command) -> None:
    assert command.code == 0, command.stderr
    assert command.stdout.strip() == str(command.report) and command.report.is_file()


@then("the report names the missing files and shows the state with its thumbnail")
def _killed_report(command: Command) -> None:
    page = command.report.read_text(encoding="utf-8")
    for name in ("verdict.json", "plans.json", "output.json"):
        assert f"{name} is missing" in page
    assert 'data-state-id="open"' in page and 'src="data:image/jpeg;base64,' in page
    assert 'href="artifacts/screenshot/00c0ffee00c0ffee.png"' in page


@then("the command exits 3 naming the directory")
def _exits_3(command: Command) -> None:
    assert command.code == 3 and "Traceback" not in command.stderr
    assert f"{command.run_dir}: not a run directory" in command.stderr
    assert not command.report.exists()


@then("the report neither shows nor links the outside file")
def _outside_not_read(command: Command) -> None:
    page = command.report.read_text(encoding="utf-8")
    assert "data:image" not in page and "secret.png" not in page
    assert page.count('<tr class="state"') == 2
