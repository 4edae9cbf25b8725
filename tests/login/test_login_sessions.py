"""Binds features/login_sessions.feature: session.storage_state / save_storage_state against the
members site on loopback (tests/fixtures/members_site.py), with the shipped recipes
recipes/login-save.yaml and recipes/login-reuse.yaml copied into the test's own directory (their
relative session file resolves there)."""

from __future__ import annotations

import json
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.execute.record.storage_state import cookie_allowed
from runtime.service.api.rich_errors import load_or_report
from runtime.service.runs.recipe_catalog import RecipeCatalog
from runtime.service.api.rich_errors import ServiceError
from tests.execute.conftest import ExecRunner, RunRecord
from tests.fixtures.members_site import COOKIE, MEMBERS, MembersSite

scenarios("login_sessions.feature")

REPO = Path(__file__).resolve().parents[2]
SESSION_FILE = Path(".verity") / "members-session.json"  # as the shipped recipes name it


@pytest.fixture(scope="module")
def members_site() -> Iterator[MembersSite]:
    with MembersSite() as served:
        yield served


@pytest.fixture
def case() -> dict[str, Any]:
    return {"runs": []}


@given("the members site on loopback")
def site_up(members_site: MembersSite) -> None:
    assert members_site.port > 0


@given("copies of the recipes login-save and login-reuse in a fresh directory")
def copies(tmp_path: Path, case: dict[str, Any]) -> None:
    directory = tmp_path / "recipes"
    directory.mkdir()
    for name in ("login-save", "login-reuse"):
        shutil.copy(REPO / "recipes" / f"{name}.yaml", directory / f"{name}.yaml")
    case["dir"] = directory
    case["session_file"] = directory / SESSION_FILE


def _write_state(case: dict[str, Any], text: str) -> None:
    path: Path = case["session_file"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@given(parsers.parse('a session file with the site\'s cookie and device token, and a cookie and an origin of "{foreign}"'))
def mixed_state(members_site: MembersSite, case: dict[str, Any], foreign: str) -> None:
    token = "seeded-" + members_site.device_token[-8:]
    members_site.sessions[token] = "ada"
    state = {
        "cookies": [
            {"name": COOKIE, "value": token, "domain": "127.0.0.1", "path": "/", "expires": -1, "httpOnly": True, "secure": False, "sameSite": "Lax"},
            {"name": "tracking", "value": "foreign-cookie-value", "domain": f".{foreign}", "path": "/", "expires": -1, "httpOnly": False, "secure": False, "sameSite": "Lax"},
        ],
        "origins": [
            {"origin": members_site.base(), "localStorage": [{"name": "members_device", "value": members_site.device_token}]},
            {"origin": f"https://{foreign}", "localStorage": [{"name": "tracker", "value": "foreign-storage-value"}]},
        ],
    }
    _write_state(case, json.dumps(state))
    case["written_state"] = case["session_file"].read_bytes()


BROKEN = {
    "broken JSON": '{"cookies": [',
    "a cookie without a value": json.dumps({"cookies": [{"name": COOKIE, "domain": "127.0.0.1"}]}),
    "an origin that is a number": json.dumps({"origins": [{"origin": 7, "localStorage": []}]}),
}


@given(parsers.parse("the session file holds {content}"))
def broken_state(case: dict[str, Any], content: str) -> None:
    if content != "nothing: it is missing":
        _write_state(case, BROKEN[content])


# ---------------------------------------------------------------------- runs


def _run(runner: ExecRunner, case: dict[str, Any], path: Path, inputs: dict[str, str]) -> RunRecord:
    record = runner.wait(runner.start(path, inputs), timeout=60)
    case["runs"].append(record)
    return record


@when(parsers.parse('I run the copied "login-save" with {which} password'))
def run_save(runner: ExecRunner, members_site: MembersSite, case: dict[str, Any], which: str) -> None:
    password = MEMBERS["ada"][0] if which == "the right" else "not-the-password"
    if which != "the right":
        # A refused sign-in stays on the login page, which nothing changes later: the copy checks
        # the URL for 1.5 s (guards.timeouts.verify_ms) instead of the shipped default 5 s.
        path = case["dir"] / "login-save.yaml"
        text = path.read_text(encoding="utf-8")
        assert "\nguards:" not in text and "\nplan:\n" in text
        path.write_text(text.replace("\nplan:\n", "\nguards:\n  timeouts: {verify_ms: 1500}\nplan:\n"), encoding="utf-8")
    _run(runner, case, case["dir"] / "login-save.yaml", {"site": members_site.base(), "username": "ada", "password": password})


@when('I run the copied "login-reuse"')
def run_reuse(runner: ExecRunner, members_site: MembersSite, case: dict[str, Any]) -> None:
    _run(runner, case, case["dir"] / "login-reuse.yaml", {"site": members_site.base()})


@when('I run "login-members-no-session" on the members site')
def run_without_session(runner: ExecRunner, members_site: MembersSite, case: dict[str, Any]) -> None:
    _run(runner, case, REPO / "tests" / "fixtures" / "recipes" / "login-members-no-session.yaml", {"site": members_site.base()})


# ---------------------------------------------------------------------- checks


def _verdict_file(record: RunRecord) -> dict[str, Any]:
    return record.file("verdict.json")


@then("the saved session file is owner-only and holds the site's session cookie and device token")
def saved(members_site: MembersSite, case: dict[str, Any]) -> None:
    path: Path = case["session_file"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600, oct(path.stat().st_mode)
    state = json.loads(path.read_text(encoding="utf-8"))
    cookies = {c["name"]: c for c in state["cookies"]}
    assert cookies[COOKIE]["value"] in members_site.sessions and cookies[COOKIE]["httpOnly"] is True, cookies.keys()
    [origin] = state["origins"]
    assert origin["origin"] == members_site.base()
    assert {"name": "members_device", "value": members_site.device_token} in origin["localStorage"]
    saved_record = _verdict_file(case["runs"][-1])["session"]["saved"]
    assert saved_record == {**saved_record, "written": True, "cookies_saved": 1, "origins_saved": 1, "file": str(path)}


@then(parsers.parse('the run typed nothing and read the member name "{name}"'))
def read_without_typing(runner: ExecRunner, name: str) -> None:
    executions = runner.last.file("executions.json")
    assert not [r for r in executions if r["tool"] == "browser_type"], executions
    assert runner.last.file("output.json")["data"]["member"] == name


@then(parsers.parse("the run's evidence says {cookies:d} cookie and {origins:d} origin were loaded from the session file"))
def loaded_counts(runner: ExecRunner, case: dict[str, Any], cookies: int, origins: int) -> None:
    loaded = _verdict_file(runner.last)["session"]["loaded"]
    assert (loaded["cookies_loaded"], loaded["origins_loaded"], loaded["file"]) == (cookies, origins, str(case["session_file"])), loaded


@then(parsers.parse("the run's evidence says {cookies:d} cookie and {origins:d} origin were loaded and {out_cookies:d} cookie and {out_origins:d} origin left out"))
def loaded_and_left_out(runner: ExecRunner, cookies: int, origins: int, out_cookies: int, out_origins: int) -> None:
    loaded = _verdict_file(runner.last)["session"]["loaded"]
    found = (loaded["cookies_loaded"], loaded["origins_loaded"], loaded["cookies_outside_allowed_domains"], loaded["origins_outside_allowed_domains"])
    assert found == (cookies, origins, out_cookies, out_origins), loaded
    events = runner.last.event_lines()
    summaries = [e["payload"]["summary"] for e in events if e["kind"] == "tool_used" and e["payload"]["tool"] == "session.storage_state"]
    assert summaries and f"left out {out_cookies} cookie(s) and {out_origins} origin(s) outside allowed_domains" in summaries[0], summaries


@then("no run file, event or report of either run holds the session cookie or the device token")
def nothing_leaks(members_site: MembersSite, case: dict[str, Any]) -> None:
    runs: list[RunRecord] = case["runs"]
    assert [r.verdict.stop_reason.value for r in runs] == ["completed", "completed"], [r.verdict.summary for r in runs]
    secrets_ = [*members_site.sessions, members_site.device_token]
    assert len(secrets_) >= 2
    state = case["session_file"].read_text(encoding="utf-8")
    assert all(s in state for s in (members_site.device_token,)), "the file itself holds them"
    checked = 0
    for record in runs:
        for path in record.run_dir.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                checked += 1
                for secret in secrets_:
                    assert secret.encode() not in data, f"{path.relative_to(record.run_dir)} holds a session secret"
        for event in record.events:
            text = json.dumps(event.to_dict())
            assert not any(secret in text for secret in secrets_), event.kind if hasattr(event, "kind") else event
    assert checked >= 6


@then(parsers.parse('the verdict names "session.storage_state", the file and "{problem}"'))
def names_the_problem(runner: ExecRunner, case: dict[str, Any], problem: str) -> None:
    summary = runner.last.verdict.summary
    assert "session.storage_state" in summary and str(case["session_file"]) in summary and problem in summary, summary


@then("no browser session was opened")
def no_browser(runner: ExecRunner) -> None:
    executions = runner.last.run_dir / "executions.json"
    assert not executions.exists() or json.loads(executions.read_text(encoding="utf-8")) == [], executions.read_text(encoding="utf-8")
    kinds = {e["kind"] for e in runner.last.event_lines()}
    assert "final_verdict" in kinds and "step_started" not in kinds, kinds


@then("the session file is unchanged and the verdict says it was not saved")
def unchanged(case: dict[str, Any], runner: ExecRunner) -> None:
    assert case["session_file"].read_bytes() == case["written_state"]
    saved_record = _verdict_file(runner.last)["session"]["saved"]
    assert saved_record["written"] is False and "only by a completed run" in saved_record["reason"], saved_record


@when(parsers.parse('the server\'s recipe catalog is sent the copied "{name}" as text'))
def send_inline(case: dict[str, Any], name: str) -> None:
    catalog = RecipeCatalog(None)
    text = (case["dir"] / f"{name}.yaml").read_text(encoding="utf-8")
    with pytest.raises(ServiceError) as refused:
        load_or_report(catalog, "recipe_yaml", text, "")
    case["refused"] = refused.value
    case["line"] = next(i for i, line in enumerate(text.splitlines(), 1) if line.strip().startswith("storage_state:"))


@then(parsers.parse('it is refused as INVALID_ARGUMENT at "{path}" naming its line'))
def refused_inline(case: dict[str, Any], path: str) -> None:
    error: ServiceError = case["refused"]
    assert error.code is grpc.StatusCode.INVALID_ARGUMENT, error
    assert f":{case['line']}:" in error.message and path in error.message and "session_not_allowed" in error.message, error.message


@when(parsers.parse('a cookie for "{domain}" is judged against allowed domains "{allowed}"'))
def judge_cookie(case: dict[str, Any], domain: str, allowed: str) -> None:
    case["cookie_allowed"] = cookie_allowed(domain, [a.strip() for a in allowed.split(",")])


@then(parsers.parse("the cookie is {verdict}"))
def cookie_verdict(case: dict[str, Any], verdict: str) -> None:
    assert case["cookie_allowed"] is (verdict == "loaded"), verdict
