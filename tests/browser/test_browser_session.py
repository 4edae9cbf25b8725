"""Session guarantees: popups + sticky primary tab, timeouts, crashes, attach, idempotency,
serial execution, isolation, context compression, and the launch error."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from tests.browser.harness import SessionHarness, find_element, last, page_text, remember
from tests.fixtures.browser_loop import LoopThread
from runtime.artifacts import ArtifactStore
from runtime.browser import (
    Action,
    Browser,
    BrowserLaunchError,
    ObservationContext,
    connect_browser,
    find_chromium,
    launch_browser,
    open_session,
)
from tests.fixtures.site_server import FixtureSite

scenarios("browser_session.feature")


# --- popups ----------------------------------------------------------------------------------------


@then("the result reports a new tab opened by the primary tab")
def _new_tab(harness: SessionHarness) -> None:
    opened = last(harness).data["opened_tabs"]
    assert len(opened) == 1, opened
    assert opened[0]["opener_tab_id"] == harness.session.primary_tab_id
    assert opened[0]["tab_id"] != harness.session.primary_tab_id
    harness.results["new_tab"] = opened[0]["tab_id"]


@then(parsers.parse('a tab event "{kind}" was emitted for it'))
def _tab_event(harness: SessionHarness, kind: str) -> None:
    assert any(e.kind == kind and e.tab_id == harness.results["new_tab"] for e in harness.tab_events)


@then(parsers.parse('the new tab shows "{text}"'))
def _new_tab_shows(harness: SessionHarness, text: str) -> None:
    tab_id = harness.results["new_tab"]
    result = harness.run(harness.session.wait("text_includes", text, tab_id=tab_id, timeout_ms=5000))
    assert result.ok, result.error
    # The default target is still the primary tab, not the popup that just opened.
    assert harness.run(harness.session.snapshot()).value.tab_id == harness.session.primary_tab_id


@then(parsers.parse("the new tab's URL contains \"{fragment}\""))
def _new_tab_url(harness: SessionHarness, fragment: str) -> None:
    tab_id = harness.results["new_tab"]
    result = harness.run(harness.session.wait("url", fragment, tab_id=tab_id, timeout_ms=5000))
    assert result.ok, result.error


# --- moving and closing tabs (BROWSER-041) --------------------------------------------------------------


@when("I make the new tab the primary tab")
def _switch(harness: SessionHarness) -> None:
    result = harness.run(harness.session.switch_tab(harness.results["new_tab"]))
    assert result.ok and result.data["primary_tab_id"] == harness.results["new_tab"], result


@then("an action that names no tab acts in the new tab")
def _acts_in_new(harness: SessionHarness) -> None:
    assert harness.session.primary_tab_id == harness.results["new_tab"]
    snapshot = harness.run(harness.session.snapshot()).value
    assert (snapshot.tab_id, snapshot.title) == (harness.results["new_tab"], "Popup target")


@when("I close the new tab")
def _close_new(harness: SessionHarness) -> None:
    result = harness.run(harness.session.close_tab(harness.results["new_tab"]))
    assert result.ok and result.data["closed"] is True, result
    harness.results["closed"] = result


@then("the first tab is the primary tab again and an action that names no tab acts in it")
def _first_again(harness: SessionHarness) -> None:
    first = harness.results["closed"].data["opener_tab_id"]
    assert harness.session.primary_tab_id == first == harness.results["closed"].data["primary_tab_id"]
    snapshot = harness.run(harness.session.snapshot()).value
    assert (snapshot.tab_id, snapshot.title) == (first, "Popups")
    assert harness.session.tabs[harness.results["new_tab"]].closed


@then(parsers.re(r"the tab events were (?P<kinds>.*), each naming the primary tab after it$"))
def _tab_events_in_order(harness: SessionHarness, kinds: str) -> None:
    new, first = harness.results["new_tab"], harness.session.primary_tab_id
    seen = [(e.kind, e.tab_id, e.primary_tab_id) for e in harness.tab_events if e.kind != "navigated"]
    assert [kind for kind, _, _ in seen] == re.findall(r'"([^"]*)"', kinds)
    assert seen == [("opened", new, first), ("primary", new, new), ("primary", first, first), ("closed", new, first)]


@then(parsers.parse("closing the session's only open tab fails with \"{code}\""))
def _last_tab_stays(harness: SessionHarness, code: str) -> None:
    result = harness.run(harness.session.close_tab(harness.session.primary_tab_id))
    assert not result.ok and result.error.code.value == code, result
    assert harness.run(harness.session.snapshot()).value.title == "Popups"


@when("I open a new tab")
def _open_new_tab(harness: SessionHarness) -> None:
    result = harness.run(harness.session.new_tab())
    assert result.ok, result.error
    harness.results["new_tab"] = result.data["tab_id"]
    assert result.data["primary_tab_id"] == harness.session.primary_tab_id != result.data["tab_id"]
    # The session's own incognito context: its policy proxy and storage, not the browser's default.
    context = harness.session.tab(result.data["tab_id"]).page.target.browserContext
    assert context is harness.session.tab().page.target.browserContext and context._id


@then(parsers.parse('a tab event "{kind}" was emitted for it with no opener'))
def _opened_without_opener(harness: SessionHarness, kind: str) -> None:
    assert [(e.kind, e.opener_tab_id) for e in harness.tab_events if e.tab_id == harness.results["new_tab"]] == [(kind, None)]


@then(parsers.parse('opening "{path}" in the new tab shows "{title}" there and leaves the primary tab on "{primary_title}"'))
def _open_in_new_tab(harness: SessionHarness, site: FixtureSite, path: str, title: str, primary_title: str) -> None:
    tab_id = harness.results["new_tab"]
    opened = harness.run(harness.session.in_tab(tab_id).open_url(site.url(path)))
    assert opened.ok and opened.tab_id == tab_id, opened
    assert harness.run(harness.session.in_tab(tab_id).snapshot()).value.title == title
    assert harness.run(harness.session.snapshot()).value.title == primary_title


@then(parsers.parse('the tab event "{kind}" names the new tab at "{path}"'))
def _navigated_event(harness: SessionHarness, kind: str, path: str) -> None:
    urls = [e.url for e in harness.tab_events if e.kind == kind and e.tab_id == harness.results["new_tab"]]
    assert urls and urls[-1].endswith(path), urls


# --- timeouts ----------------------------------------------------------------------------------------


@when(parsers.parse('I open "{path}" with a timeout of {ms:d} ms'))
def _open_with_timeout(harness: SessionHarness, site: FixtureSite, path: str, ms: int) -> None:
    remember(harness, harness.run(harness.session.open_url(site.url(path), timeout_ms=ms)))
    harness.results["timeout_ms"] = ms


# A page that hangs is caught by the harness's own ceiling; what is checked here is that the
# navigation gave up by itself, inside the action's budget, and said so.
@then("the error says the page did not finish loading within the timeout")
def _gave_up_within(harness: SessionHarness) -> None:
    error = harness.results["last"].error
    found = re.search(r"did not finish loading within (\d+) ms", error.message)
    assert found and 0 < int(found.group(1)) <= harness.results["timeout_ms"], error


# --- a crashed browser ---------------------------------------------------------------------------------


@pytest.fixture
def doomed_browser(loop_thread: LoopThread) -> Iterator[Browser]:
    browser = loop_thread.run(launch_browser())
    yield browser
    loop_thread.run(browser.close())


@given(parsers.parse('a separate browser with a session showing "{path}"'), target_fixture="harness")
def _separate(loop_thread: LoopThread, doomed_browser: Browser, site: FixtureSite, path: str,
              tmp_path: Path) -> SessionHarness:
    artifacts = ArtifactStore(tmp_path / "doomed")
    session = loop_thread.run(open_session(doomed_browser, artifacts=artifacts))
    assert loop_thread.run(session.open_url(site.url(path))).ok
    harness = SessionHarness(loop_thread, session, artifacts, [])
    harness.results["browser"] = doomed_browser
    return harness


@when("the Chromium process is killed")
def _kill(harness: SessionHarness) -> None:
    browser: Browser = harness.results["browser"]
    assert browser.pid is not None
    os.kill(browser.pid, signal.SIGKILL)


@when("I take a snapshot in that session")
def _snapshot_after_kill(harness: SessionHarness) -> None:
    remember(harness, harness.run(harness.session.snapshot(timeout_ms=10_000), timeout=30))


# --- attaching to a running Chromium --------------------------------------------------------------------


@pytest.fixture
def external_chromium(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    profile = tmp_path / "external-profile"
    process = subprocess.Popen(
        [find_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--remote-debugging-address=127.0.0.1",
         "--remote-debugging-port=0", f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    port_file = profile / "DevToolsActivePort"
    deadline = time.monotonic() + 20
    while not (port_file.exists() and len(port_file.read_text().splitlines()) >= 2):
        assert time.monotonic() < deadline, "Chromium never wrote DevToolsActivePort"
        time.sleep(0.05)
    port, path = port_file.read_text().splitlines()[:2]
    yield process, f"ws://127.0.0.1:{port}{path}"
    process.kill()
    process.wait(timeout=10)


@given("a Chromium started with a remote debugging port on loopback", target_fixture="external")
def _external(external_chromium: tuple[subprocess.Popen[bytes], str]) -> tuple[subprocess.Popen[bytes], str]:
    return external_chromium


@when(parsers.parse('I connect to its DevTools endpoint and open "{path}"'), target_fixture="harness")
def _connect(loop_thread: LoopThread, external: tuple[subprocess.Popen[bytes], str], site: FixtureSite,
             path: str, tmp_path: Path) -> SessionHarness:
    browser = loop_thread.run(connect_browser(external[1]))
    artifacts = ArtifactStore(tmp_path / "attached")
    session = loop_thread.run(open_session(browser, artifacts=artifacts))
    harness = SessionHarness(loop_thread, session, artifacts, [])
    harness.results["browser"] = browser
    remember(harness, loop_thread.run(session.open_url(site.url(path))))
    return harness


@then(parsers.parse("the connected session's snapshot lists {role} \"{name}\""))
def _connected_snapshot(harness: SessionHarness, role: str, name: str) -> None:
    find_element(harness.run(harness.session.snapshot()).value, role, name)


@then("after disconnecting, that Chromium is still running")
def _still_running(harness: SessionHarness, external: tuple[subprocess.Popen[bytes], str]) -> None:
    harness.run(harness.results["browser"].close())
    harness.run(harness.results["browser"].close())  # closing twice is harmless
    # Not a grace period and a hope: the Chromium still answers its DevTools endpoint afterwards.
    port = urlsplit(external[1]).port
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=30) as answer:
        assert answer.status == 200 and "Browser" in json.loads(answer.read())
    assert external[0].poll() is None


# --- idempotency and serial execution --------------------------------------------------------------------


@when(parsers.parse('I perform click on "{name}" with action_id "{action_id}"'))
def _click_with_id(harness: SessionHarness, name: str, action_id: str) -> None:
    action = Action(name="act", action_id=action_id,
                    params={"kind": "click", "target": {"role": "button", "name": name}})
    harness.results.setdefault("performed", []).append(harness.run(harness.session.perform(action)))


@then("the second result is a replay of the first")
def _replayed(harness: SessionHarness) -> None:
    first, second = harness.results["performed"]
    assert first.ok and not first.replayed
    assert second.replayed and second.data == first.data


@when(parsers.parse('I submit five clicks on "{name}" at once'))
def _five_at_once(harness: SessionHarness, name: str) -> None:
    async def click(index: int) -> tuple[float, object]:
        result = await harness.session.click({"role": "button", "name": name}, action_id=f"burst-{index}")
        return time.perf_counter(), result

    async def burst() -> list[tuple[float, object]]:
        return list(await asyncio.gather(*(click(i) for i in range(5))))

    harness.results["burst"] = harness.run(burst())


@then("all five succeed without overlapping")
def _no_overlap(harness: SessionHarness) -> None:
    finished = harness.results["burst"]
    assert all(result.ok for _, result in finished)
    ends = [end for end, _ in finished]
    assert ends == sorted(ends), "results came back out of submission order"
    for (previous_end, _), (end, result) in zip(finished, finished[1:]):
        started = end - result.duration_ms / 1000
        assert started >= previous_end - 0.005, "two actions of one session ran at the same time"


# --- isolation -------------------------------------------------------------------------------------------


@given(parsers.parse('a second browser session showing "{path}"'), target_fixture="second")
def _second(harness: SessionHarness, shared_browser: Browser, site: FixtureSite, path: str,
            tmp_path: Path) -> Iterator[SessionHarness]:
    session = harness.run(open_session(shared_browser, artifacts=ArtifactStore(tmp_path / "second")))
    assert harness.run(session.open_url(site.url(path))).ok
    yield SessionHarness(harness.loop_thread, session, harness.artifacts, [])
    harness.run(session.stop())


@when(parsers.parse('the first session stores "{value}" in localStorage'))
def _store(harness: SessionHarness, value: str) -> None:
    harness.run(harness.session.tab().evaluate(f"localStorage.setItem('k', '{value}')"))
    assert harness.run(harness.session.tab().evaluate("localStorage.getItem('k')")) == value


@then("the second session's localStorage has no value")
def _isolated(second: SessionHarness) -> None:
    assert second.run(second.session.tab().evaluate("localStorage.getItem('k')")) is None


# --- observation context ----------------------------------------------------------------------------------


@given("an observation context", target_fixture="context")
def _context() -> ObservationContext:
    return ObservationContext()


@when(parsers.parse('I add observe "o1", snapshot "s1", snapshot "s2", observe "o2" and snapshot "s3" of {size:d} characters'))
def _fill_context(context: ObservationContext, size: int) -> None:
    context.add_observe("o1", "O1 " + "x" * size)
    context.add_snapshot("s1", "S1 " + "y" * size)
    context.add_snapshot("s2", "S2 " + "z" * size)
    context.add_observe("o2", "O2 " + "w" * size)
    context.add_snapshot("s3", "S3 " + "v" * size)


@then(parsers.parse('the rendered context shows "o1" and "s1" as placeholders'))
def _placeholders(context: ObservationContext) -> None:
    rendered = {entry.label: entry.text for entry in context.render()}
    assert rendered["o1"] == "[older observe o1 omitted]"
    assert rendered["s1"] == "[older snapshot s1 omitted]"


@then(parsers.parse('it keeps "s2", "o2" and "s3", each at most {limit:d} characters'))
def _kept(context: ObservationContext, limit: int) -> None:
    rendered = {entry.label: entry.text for entry in context.render()}
    for label in ("s2", "o2", "s3"):
        assert rendered[label].startswith(label.upper()) and len(rendered[label]) <= limit
        assert "[cut " in rendered[label]
    assert [entry.label for entry in context.render()] == ["o1", "s1", "s2", "o2", "s3"]


# --- what Chromium builds for a session ------------------------------------------------------------------


@then("the browser has no browser interface target, in the session's context or any other")
def _no_browser_ui(harness: SessionHarness) -> None:
    # Every kind of target, the hidden ones too (an empty filter entry matches all).
    targets = harness.run(harness.session.browser.send("Target.getTargets", {"filter": [{}]}))["targetInfos"]
    context_id = harness.session.tab().page.target._targetInfo["browserContextId"]
    listed = "\n".join(f"{t['type']} {t.get('browserContextId', '')} {t['url']}" for t in targets)
    assert not [t for t in targets if t["type"] == "browser_ui"], listed
    mine = [t for t in targets if t.get("browserContextId") == context_id]
    assert {t["type"] for t in mine} == {"tab", "page"} and len(mine) == 2, listed


# --- launch errors ---------------------------------------------------------------------------------------


@given("no Chromium on PATH and no VERITY_CHROME")
def _no_chromium(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("VERITY_CHROME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))


@when("I look for Chromium", target_fixture="launch_error")
def _look() -> BrowserLaunchError:
    with pytest.raises(BrowserLaunchError) as caught:
        find_chromium()
    return caught.value


@given("a PATH holding chromium and a chromium-headless-shell script that starts its binary without exec", target_fixture="binaries")
def _binaries(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Path]:
    # Stand-ins, never run: find_chromium only reads the script and checks what is executable.
    on_path, lib = tmp_path / "bin", tmp_path / "lib"
    on_path.mkdir()
    lib.mkdir()
    made = {"chromium": on_path / "chromium", "binary": lib / "chromium-headless-shell", "script": on_path / "chromium-headless-shell"}
    made["chromium"].write_text("#!/bin/sh\nexec /nowhere/chromium \"$@\"\n")
    made["binary"].write_bytes(b"\x7fELF stand-in")
    made["script"].write_text(f"#!/bin/sh -e\n\n{made['binary']} \"$@\"\n")  # Debian's shape: no exec
    for path in made.values():
        path.chmod(0o755)
    monkeypatch.delenv("VERITY_CHROME", raising=False)
    monkeypatch.setenv("PATH", str(on_path))
    return made


@when("I look for Chromium headless and headful", target_fixture="found")
def _look_both() -> dict[str, str]:
    return {"headless": find_chromium(headless=True), "headful": find_chromium(headless=False)}


@then("the headless one is the script's binary and the headful one is chromium")
def _found_both(found: dict[str, str], binaries: dict[str, Path]) -> None:
    assert found == {"headless": str(binaries["binary"]), "headful": str(binaries["chromium"])}, found


@then("without the shell on PATH the headless one is chromium too")
def _without_shell(binaries: dict[str, Path]) -> None:
    binaries["script"].unlink()
    assert find_chromium(headless=True) == str(binaries["chromium"])


@then(parsers.parse('the launch error is "{code}" and mentions "{hint}" and "{variable}"'))
def _launch_error(launch_error: BrowserLaunchError, code: str, hint: str, variable: str) -> None:
    assert launch_error.code.value == code
    assert hint in str(launch_error) and variable in str(launch_error)


def test_page_text_of_the_primary_tab(harness: SessionHarness, site: FixtureSite) -> None:
    harness.run(harness.session.open_url(site.url("/popups.html")))
    assert "Popups" in page_text(harness)
