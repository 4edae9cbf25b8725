"""The programs Chromium runs to hand a URL to the desktop, replaced by stubs of ours (issue 33).

A page can name a scheme Chromium does not handle itself (`mailto:`, `ssh:`, `ircs:`, `tel:` ...)
from a frame, a popup, a link or a script, with or without a gesture. Chromium on Linux then looks
for the desktop's handler and starts it: measured on 156, an `<iframe src="mailto:...">` with no
gesture made it run `xdg-settings check default-url-scheme-handler mailto chromium.desktop`,
`xdg-settings get ...`, `xdg-mime query default x-scheme-handler/mailto` and then
`xdg-open mailto:...`, each found on PATH. Verity's Chromium is started with a PATH whose first
directory holds a stub of ours for every such program: a stub writes down that it was asked (for
the tests) and exits 1, so no handler starts, whatever the scheme or the desktop. Chromium needs
nothing else from those names. What the page attempted is recorded per run from CDP
(runtime/browser/tab/external_protocols.py).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

# xdg-utils (what Chromium runs), and the openers xdg-open itself would fall back to.
HANDLER_PROGRAMS = (
    "xdg-open", "xdg-settings", "xdg-mime", "gio", "gvfs-open", "gnome-open", "kde-open", "kde-open5", "kfmclient",
    "exo-open", "x-www-browser", "sensible-browser", "www-browser",
)
STUB_DIRECTORY = "verity-desktop-handlers"
ATTEMPTS_FILE = "attempts.log"


def install_handler_stubs(user_data_dir: Path) -> Path:
    """Write the stubs into a directory of the browser's profile (removed with it); its path."""
    directory = user_data_dir / STUB_DIRECTORY
    directory.mkdir(parents=True, exist_ok=True)
    for program in HANDLER_PROGRAMS:
        stub = directory / program
        stub.write_text(stub_script(directory, program))
        stub.chmod(0o755)
    return directory


def stub_script(directory: Path, program: str) -> str:
    """The text of our stub for `program` in `directory`: it logs its call there and exits 1."""
    log = shlex.quote(str(directory / ATTEMPTS_FILE))
    return f'#!/bin/sh\n# Verity: no program outside the browser starts.\nprintf "%s\\t%s\\n" {program} "$*" >> {log}\nexit 1\n'


def path_with_stubs(stubs: Path, path: str | None) -> str:
    """`path` with the stub directory first, so every handler name finds our stub."""
    return os.pathsep.join([str(stubs), *([path] if path else [])])


def handler_attempts(user_data_dir: Path) -> list[tuple[str, str]]:
    """What the stubs of a profile were asked so far: (program, its arguments) each."""
    try:
        lines = (user_data_dir / STUB_DIRECTORY / ATTEMPTS_FILE).read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return []
    return [(program, arguments) for program, _, arguments in (line.partition("\t") for line in lines if line)]
