"""Bindings of features/browser_chromium.feature: finding Chromium (or saying how to install it),
attaching to one already running, and a killed one failing the next action instead of hanging it."""

from __future__ import annotations

import asyncio

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from tests.browser.harness import SessionHarness, find_element, remember
from tests.fixtures.external_chromium import RestartableChromium
from tests.fixtures.browser_loop import LoopThread
from runtime.artifacts import ArtifactStore
from runtime.browser import Browser, BrowserLaunchError, connect_browser, find_chromium, launch_browser, open_session
from tests.fixtures.site_server import FixtureSite

scenarios("browser_chromium.feature")


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


@pytest.fixture
def restarted_chromium(tmp_path: Path) -> Iterator[tuple[str, str]]:
    chromium = RestartableChromium(tmp_path / "restarted")
    first = chromium.start()
    chromium.kill()
    yield first, chromium.start()
    chromium.kill()


@given("a Chromium on a fixed loopback DevTools port, killed and started again on that port", target_fixture="endpoints")
def _restarted(restarted_chromium: tuple[str, str]) -> tuple[str, str]:
    first, second = restarted_chromium
    assert urlsplit(first).netloc == urlsplit(second).netloc and first != second  # same address, a new browser id
    return restarted_chromium


@when("I connect to the first one's DevTools endpoint with a 10 minute attach timeout", target_fixture="attach_error")
def _connect_to_old(loop_thread: LoopThread, endpoints: tuple[str, str]) -> BrowserLaunchError:
    # Expected: refused at once. Before the transport failed the commands of a websocket that never
    # opened, this waited out the attach timeout, so loop_thread.run's 60 s ceiling failed the test.
    async def attach() -> tuple[BrowserLaunchError, list[str]]:
        with pytest.raises(BrowserLaunchError) as caught:
            await connect_browser(endpoints[0], timeout_ms=600_000)
        # The commands' sends, which waited for the socket to open, end too: before they did, each
        # spun on sleep(0) for the life of the process, a core kept busy.
        for _ in range(3):
            await asyncio.sleep(0)
        sending = [task.get_coro().__qualname__ for task in asyncio.all_tasks() if "async_send" in task.get_coro().__qualname__]
        return caught.value, sending

    return loop_thread.run(attach(), timeout=60)


@then(parsers.parse('the connect fails with "{code}" saying "{said}" within the test\'s 60 s ceiling'))
def _refused_at_once(attach_error: tuple[BrowserLaunchError, list[str]], code: str, said: str) -> None:
    error, _ = attach_error
    assert error.code.value == code and said in str(error), error


@then("no command of that connection is still waiting to be sent")
def _no_send_left(attach_error: tuple[BrowserLaunchError, list[str]]) -> None:
    assert attach_error[1] == [], attach_error[1]


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


# Run where nothing was imported before: the test process itself may hold pyppeteer's real module.
_LAUNCH_WITHOUT_BINARY = """
import asyncio, json, sys
import runtime.browser.launch.starting, runtime.browser.tab.tab, runtime.browser.action_handlers.gestures
import pyppeteer
try:
    asyncio.run(pyppeteer.launch(headless=True))
    refusal = None
except Exception as error:
    refusal = f"{type(error).__name__}: {error}"
print(json.dumps({"refusal": refusal, "loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("urllib3", "tqdm", "certifi"))
                  + [m for m in sys.modules if m == "pyppeteer.chromium_downloader" and "runtime" not in str(sys.modules[m])]}))
"""


@when("a fresh Python process loads Verity's browser driver and asks pyppeteer to launch without a binary", target_fixture="no_download")
def _launch_without_binary(tmp_path: Path) -> dict[str, object]:
    # Should pyppeteer's real downloader run after all (the failure this guards against), its
    # download goes to a closed loopback port and its files to the test's directory.
    env = {**os.environ, "PYPPETEER_DOWNLOAD_HOST": "http://127.0.0.1:9", "PYPPETEER_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", _LAUNCH_WITHOUT_BINARY], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[2], env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@then(parsers.parse('the launch is refused with "{said}" and "{hint}"'))
def _refused(no_download: dict[str, object], said: str, hint: str) -> None:
    refusal = str(no_download["refusal"])
    assert refusal.startswith("DownloadRefused") and said in refusal and hint in refusal, refusal


@then("that process loaded none of urllib3, tqdm and pyppeteer's own chromium_downloader")
def _no_downloader(no_download: dict[str, object]) -> None:
    assert no_download["loaded"] == [], no_download["loaded"]


@then(parsers.parse('the launch error is "{code}" and mentions "{hint}" and "{variable}"'))
def _launch_error(launch_error: BrowserLaunchError, code: str, hint: str, variable: str) -> None:
    assert launch_error.code.value == code
    assert hint in str(launch_error) and variable in str(launch_error)
