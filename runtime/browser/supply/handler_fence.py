"""`require_handler_fence(browser)`: can an attached browser start a program outside itself?

A page naming a scheme Chromium hands to the desktop (`<iframe src="mailto:...">`, no gesture
needed) makes a desktop Chromium, `--headless` or not, run `xdg-settings`, `xdg-mime` and then
`xdg-open mailto:...`, each found on the PATH of its browser process (issue 33). Verity's own
Chromium gets a PATH whose first directory holds stubs of those programs (launch/desktop_handlers.py).
A browser attached with `--browser-ws` was started by someone else, and nothing over CDP stops the
hand-off: it never reaches the Fetch or Network domains, `Page.frameRequestedNavigation` only
tells of it, and what Chromium checks first (a registered web handler, enterprise policy, the
profile's preferences, an iframe's sandbox) no CDP command sets for every scheme and frame.

So the browser is judged before any run uses it. Measured on 156: Debian's `chromium-headless-shell`
hands nothing to the desktop, and `Browser.getVersion` names its product `HeadlessChrome/...`,
where the desktop binary says `Chrome/...` even with `--headless`: a headless shell is accepted
as it is. A desktop Chromium is accepted only on this machine, where its browser process can be
read: the pid `SystemInfo.getProcessInfo` names, trusted only when its /proc command line is the
one CDP reports (a pid seen from another machine or namespace names some other process here).
Its PATH, from /proc/<pid>/environ, must give each program Chromium would run either nothing or
Verity's own stub, its files read here (so it must share Verity's mount namespace). Anything that
cannot be read is refused: no proof, no run.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Sequence
from pathlib import Path

from runtime.browser.launch.browser import Browser
from runtime.browser.launch.desktop_handlers import HANDLER_PROGRAMS, stub_script
from runtime.browser.launch.endpoints import redact_endpoint
from runtime.browser.vocabulary.errors import BrowserLaunchError, LaunchErrorCode

HEADLESS_SHELL_PRODUCT = "HeadlessChrome/"
# Where execvp looks when a process has no PATH at all (glibc's default).
DEFAULT_PATH = "/bin:/usr/bin"
_PROC = Path("/proc")


def same_process(reported: Sequence[str], started: Sequence[str]) -> bool:
    """Whether a process started with `started` (its /proc command line) is the browser whose
    command line CDP reports as `reported`. Chromium adds switches of its own, keeps its switches
    before its other arguments and writes `--name=` as `--name` (measured on 156, under Debian's
    script), so: the same program, the switches it was started with in the same order among the
    reported ones, and the same other arguments in the same order."""
    if not reported or not started or reported[0] != started[0]:
        return False
    remaining = iter(_switch(argument) for argument in reported[1:] if argument.startswith("-"))
    switches_kept = all(_switch(argument) in remaining for argument in started[1:] if argument.startswith("-"))
    others = [argument for argument in reported[1:] if not argument.startswith("-")]
    return switches_kept and others == [argument for argument in started[1:] if not argument.startswith("-")]


def _switch(argument: str) -> tuple[str, str]:
    name, _, value = argument.lstrip("-").partition("=")
    return name, value


def openers_on_path(path: str | None, root: Path, cwd: Path) -> list[str]:
    """The program a process with `path` would run for each handler name, where that is not
    Verity's stub, as that process names it; its files are read under `root` (a process of
    Verity's mount namespace: /) and `cwd` (its working directory, for relative entries). A name
    present in any form counts: nothing found runs."""
    found: list[str] = []
    entries = (path if path is not None else DEFAULT_PATH).split(os.pathsep)
    for program in HANDLER_PROGRAMS:
        for entry in entries:
            seen_as = Path(entry or ".") / program
            here = root / str(seen_as).lstrip("/") if seen_as.is_absolute() else cwd / seen_as
            if not os.path.lexists(here):
                continue
            if not _is_our_stub(here, seen_as.parent, program):
                found.append(str(seen_as))
            break
    return found


def _is_our_stub(file: Path, directory: Path, program: str) -> bool:
    expected = stub_script(directory, program).encode("utf-8")
    try:
        # Only a small regular file is read (a FIFO of that name would never answer).
        return file.is_file() and file.stat().st_size == len(expected) and file.read_bytes() == expected
    except OSError:
        return False


def process_problem(pid: int, reported: Sequence[str], proc: Path = _PROC) -> str | None:
    """Why the browser process `pid` (as CDP names it, with `reported` as its command line) may
    start a desktop handler, or cannot be shown not to; None when every handler name gives it
    nothing or Verity's stub."""
    process = proc / str(pid)
    try:
        started = (process / "cmdline").read_bytes().decode("utf-8", "replace").split("\0")
    except OSError:
        return f"its browser process (pid {pid}) is not one this machine can read: a browser elsewhere cannot be checked"
    if not same_process(reported, [argument for argument in started if argument] if started else []):
        return f"process {pid} here is not the browser CDP describes ({reported[0] if reported else 'no command line'}): a browser on another machine or in another namespace cannot be checked"
    try:
        environment = (process / "environ").read_bytes().split(b"\0")
        same_files = os.readlink(process / "ns" / "mnt") == os.readlink(proc / "self" / "ns" / "mnt")
    except OSError as error:
        return f"its environment (/proc/{pid}) cannot be read here ({error.strerror or error})"
    if not same_files:
        # Its PATH names files of another mount namespace (a container, a snap): their symbolic
        # links would be followed here, among other files. Nothing read here proves anything there.
        return f"its files (process {pid}) are in another mount namespace than Verity's, so its PATH cannot be checked"
    path = next((entry[5:].decode("utf-8", "replace") for entry in environment if entry.startswith(b"PATH=")), None)
    openers = openers_on_path(path, Path("/"), process / "cwd")
    if openers:
        return f"its PATH holds {', '.join(openers)}, which Chromium runs to hand a page's mailto: or ssh: URL to the desktop"
    return None


# One verdict per connection, as for the other fences: a reconnected browser is asked again.
_PROBLEMS: weakref.WeakKeyDictionary[Browser, str | None] = weakref.WeakKeyDictionary()


async def handler_fence_problem(browser: Browser) -> str | None:
    """Why an attached browser's pages may start a program outside it (see the module
    docstring); None for a headless shell, or a desktop Chromium of this machine with no opener."""
    try:
        version = await browser.send("Browser.getVersion")
        if str(version.get("product", "")).startswith(HEADLESS_SHELL_PRODUCT):
            return None
        reported = [str(argument) for argument in (await browser.send("Browser.getBrowserCommandLine")).get("arguments", [])]
        processes = (await browser.send("SystemInfo.getProcessInfo")).get("processInfo", [])
        pids = [int(process["id"]) for process in processes if process.get("type") == "browser"]
    except Exception as error:  # noqa: BLE001 - a browser that does not say proves nothing: not fenced
        return f"it does not say what it is or where it runs ({error}; start it with --enable-automation)"
    if len(pids) != 1:
        return f"it names {len(pids)} browser processes, so its own cannot be checked"
    return process_problem(pids[0], reported)


async def require_handler_fence(browser: Browser) -> None:
    """Raise `BrowserLaunchError(handlers_not_fenced)` naming what was found and what to do,
    unless no page of the browser can start a desktop handler; asked once per connection."""
    if browser not in _PROBLEMS:
        _PROBLEMS[browser] = await handler_fence_problem(browser)
    problem = _PROBLEMS[browser]
    if problem is not None:
        raise BrowserLaunchError(
            LaunchErrorCode.HANDLERS_NOT_FENCED,
            f"the browser at {redact_endpoint(browser.ws_endpoint)} is a desktop Chromium whose pages may start programs "
            f"outside it: {problem}; attach a headless shell (chromium-headless-shell hands nothing to the desktop), or start "
            f"this Chromium on this machine with a PATH that holds none of {', '.join(HANDLER_PROGRAMS)}, and attach again",
        )
