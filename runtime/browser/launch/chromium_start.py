"""Finding Chromium, the command line Verity starts it with, and the spawn itself.

Nothing here imports pyppeteer or the rest of `runtime.browser`: `verity run` spawns its Chromium
from this module before it imports anything else, so the browser starts up on one core while the
run's code is imported on the other (BENCHMARKS.md, "Run start"). Connecting to the spawned
process is `runtime.browser.launch.browser`'s `StartingChromium`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from runtime.browser.launch.chromium_process import ChromiumProfile, reap_stale_profiles, spawn_chromium
from runtime.browser.launch.desktop_handlers import install_handler_stubs, path_with_stubs
from runtime.browser.vocabulary.errors import BrowserLaunchError, LaunchErrorCode

_log = logging.getLogger(__name__)

CHROMIUM_ENV_VAR = "VERITY_CHROME"
CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
# A headless run prefers Chromium's headless shell, the same engine without the desktop browser's
# layer (Debian's `chromium-headless-shell`, Google's `chrome-headless-shell`). Each run's context
# and tab cost its browser process about half the CPU they cost `chromium --headless`, and the
# suite 874 CPU s where it took 1,283 (BENCHMARKS.md, "Suite").
HEADLESS_SHELL_CANDIDATES = ("chrome-headless-shell", "chromium-headless-shell")

# What an automated browser is started with (the switches pyppeteer's launcher has always given
# Verity's Chromium): no background traffic or updates, no crash reports, extensions, default
# apps, translation, popup blocking or hang monitor, and no keyring.
AUTOMATION_FLAGS = (
    "--disable-background-networking",
    "--disable-background-timer-throttling",
    "--disable-breakpad",
    "--disable-browser-side-navigation",
    "--disable-client-side-phishing-detection",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--disable-hang-monitor",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    "--disable-sync",
    "--disable-translate",
    "--metrics-recording-only",
    "--no-first-run",
    "--safebrowsing-disable-auto-update",
    "--enable-automation",
    "--password-store=basic",
    "--use-mock-keychain",
)
HEADLESS_FLAGS = ("--headless", "--hide-scrollbars", "--mute-audio")

OFFLINE_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)

# Cross-origin iframes normally live in other renderer processes (site isolation); keeping them
# in-process lets one DOMSnapshot capture, and one CDP session act on, every frame of a tab.
IN_PROCESS_FRAME_FLAGS = ("--disable-site-isolation-trials",)
IN_PROCESS_FRAME_FEATURES = ("IsolateOrigins", "site-per-process")

# The network fence (README "What the fence covers"). A context's proxy carries HTTP, but WebRTC
# sends UDP straight to STUN/TURN servers and remote candidates; this policy keeps WebRTC to TCP
# through the proxy (measured: 0 datagrams for STUN, TURN, a forged candidate and a late start).
WEBRTC_UDP_FLAG = "--webrtc-ip-handling-policy=disable_non_proxied_udp"
# The desktop browser reads the policy above into a preference; the headless shell has no such
# layer and reads only this switch (measured: without it the shell gathers host candidates on
# every STUN, TURN and forged attempt). Both are passed, so either binary is fenced.
WEBRTC_UDP_FORCE_FLAG = "--force-webrtc-ip-handling-policy=disable_non_proxied_udp"
# Gathering host candidates otherwise multicasts mDNS (224.0.0.251), which leaves loopback.
WEBRTC_FENCE_FEATURES = ("WebRtcHideLocalIpsWithMdns",)

# Headless Chromium still builds each window's omnibox popup, a WebUI page in a renderer of its own,
# for every tab opened in a new context: one such renderer per run's session, and 1.3 s of CPU at
# each launch (BENCHMARKS.md, "Suite"). No page can reach it, and nothing shows it.
BROWSER_UI_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")

# The browser's own calls home that a context's proxy would otherwise see and refuse, each one a
# blocked request charged to the run: autofill asks content-autofill.googleapis.com about every
# form a page shows (measured: 5 CONNECTs after typing into a three-field form).
BROWSER_SERVICE_FEATURES = ("AutofillServerCommunication",)

# DNS is part of the fence (issue 33): every name maps to "not found" in Chromium's own resolver, so
# nothing in the browser looks a name up: not WebRTC's TURN/STUN servers or remote candidates, not
# dns-prefetch or preconnect, not the browser's own update and sign-in services. A context's
# requests are unaffected: they go to its policy proxy (an IP literal) with the name in them, and
# the proxy looks up only the names it allows. Loopback stays reachable for sessions without a
# proxy; `localhost` and `*.localhost` Chromium resolves to loopback itself, never by DNS.
# Measured in a namespace whose resolver counts queries (tests/policy/test_policy_dns.py).
DNS_FENCE_FLAG = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE [::1], EXCLUDE localhost, EXCLUDE *.localhost"

NO_STARTUP_WINDOW_FLAG = "--no-startup-window"

_DISABLE_FEATURES = "--disable-features="
_WEBRTC_POLICY_SWITCHES = ("--webrtc-ip-handling-policy=", "--force-webrtc-ip-handling-policy=")
_HOST_RESOLVER_SWITCH = "--host-resolver-rules="


def merge_disabled_features(args: Sequence[str]) -> list[str]:
    """`args` with every `--disable-features=` folded into one, placed last, ours included.

    Chromium keeps one value per switch: measured on 156 (chrome://version, "Command-line
    Variations"), of two `--disable-features=` only the last counts. pyppeteer's default arguments
    carried `--disable-features=site-per-process` after ours, which had silently dropped every
    feature Verity disabled, so none may stay apart.
    """
    disabled = [*IN_PROCESS_FRAME_FEATURES, *WEBRTC_FENCE_FEATURES, *BROWSER_UI_FEATURES, *BROWSER_SERVICE_FEATURES]
    others: list[str] = []
    for arg in args:
        if arg.startswith(_DISABLE_FEATURES):
            disabled.extend(name for name in arg[len(_DISABLE_FEATURES) :].split(",") if name and name not in disabled)
        else:
            others.append(arg)
    return [*others, _DISABLE_FEATURES + ",".join(disabled)]


def chromium_command(executable: str, *, headless: bool, user_data_dir: str, extra_args: Sequence[str] = ()) -> list[str]:
    """The whole command line Verity starts Chromium with: the automation defaults, the profile,
    headless mode, the offline and in-process-frame flags, `extra_args`, the WebRTC fence, one
    merged `--disable-features=`. A caller's own `--webrtc-ip-handling-policy=` (either form) or
    `--host-resolver-rules=` is dropped: the last one would win, and the fence is not an option."""
    kept = [arg for arg in extra_args if not arg.startswith((*_WEBRTC_POLICY_SWITCHES, _HOST_RESOLVER_SWITCH))]
    ours = [*OFFLINE_FLAGS, *IN_PROCESS_FRAME_FLAGS, *kept, WEBRTC_UDP_FLAG, WEBRTC_UDP_FORCE_FLAG, DNS_FENCE_FLAG, "--remote-debugging-port=0"]
    args = [*AUTOMATION_FLAGS, f"--user-data-dir={user_data_dir}", *(HEADLESS_FLAGS if headless else ())]
    # No first window: every run opens its tab in a context of its own, so the default context's
    # about:blank would be a renderer process nobody uses (about 0.13 s of CPU at each launch,
    # BENCHMARKS.md, "Run start"). A caller's own URL still opens.
    if all(arg.startswith("-") for arg in ours):
        args.append(NO_STARTUP_WINDOW_FLAG)
    return [executable, *merge_disabled_features([*args, *ours])]


def find_chromium(*, headless: bool = True) -> str:
    """Path of the Chromium to use: $VERITY_CHROME; else, for a headless browser, the headless
    shell (HEADLESS_SHELL_CANDIDATES); else chromium / chromium-browser / google-chrome on PATH.
    Raises `BrowserLaunchError(chromium_not_found)` saying how to fix it."""
    configured = os.environ.get(CHROMIUM_ENV_VAR)
    if configured:
        path = Path(configured)
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
        resolved = shutil.which(configured)
        if resolved:
            return resolved
        raise BrowserLaunchError(
            LaunchErrorCode.CHROMIUM_NOT_FOUND,
            f"{CHROMIUM_ENV_VAR}={configured!r} is not an executable file; point it at a Chromium "
            "binary (e.g. /usr/bin/chromium) or unset it to search PATH",
        )
    shells = HEADLESS_SHELL_CANDIDATES if headless else ()
    for name in shells:
        if resolved := shutil.which(name):
            return _wrapped_binary(resolved)
    for name in CHROMIUM_CANDIDATES:
        if resolved := shutil.which(name):
            return resolved
    raise BrowserLaunchError(
        LaunchErrorCode.CHROMIUM_NOT_FOUND,
        "no Chromium found: looked for $VERITY_CHROME, then "
        + ", ".join((*shells, *CHROMIUM_CANDIDATES))
        + " on PATH. Install one (`apt-get install chromium`) or set VERITY_CHROME=/path/to/chrome",
    )


def _wrapped_binary(path: str) -> str:
    """The binary a headless shell's launcher script starts, when the script names it as an
    executable file of the same name (a desktop Chromium's wrapper is used as it is: it may add
    flags of its own, and Debian's `exec`s).

    Debian's /usr/bin/chromium-headless-shell runs its binary without `exec`: the process Verity
    started would be a shell, and Chromium its child, out of reach of the pid Verity watches and
    signals. A binary (ELF), or a script naming no such file, is returned as it is."""
    try:
        with open(path, "rb") as file:
            head = file.read(4096)
    except OSError:
        return path
    if not head.startswith(b"#!"):  # a binary
        return path
    for word in head.decode("utf-8", "replace").split():
        candidate = word.strip("'\"")
        if candidate.startswith("/") and Path(candidate).name == Path(path).name and os.access(candidate, os.X_OK) and Path(candidate).is_file():
            return candidate
    return path


@dataclass(frozen=True)
class LaunchOptions:
    """How to start Chromium. `executable_path=None` means `find_chromium()`."""

    executable_path: str | None = None
    headless: bool = True
    extra_args: Sequence[str] = field(default_factory=tuple)
    # A profile directory to use as it is; by default a marked one is made and removed on close.
    user_data_dir: str | None = None
    # Where the marked profiles are made (default: the system's temporary directory); a server
    # points this into its store directory and reaps what a killed predecessor left there.
    profiles_dir: Path | None = None
    launch_timeout_ms: int = 30_000


class SpawnedChromium:
    """A Chromium process `spawn` started, which nobody has taken yet.

    Whoever connects to it first `claim()`s it (and from then on owns the process and profile);
    `abandon()` kills an unclaimed one with its process group and removes the profile made for it,
    and does nothing to a claimed one, so a command may call it on every way out.
    """

    def __init__(self, process: subprocess.Popen[bytes], profile: ChromiumProfile | None, user_data_dir: str, executable: str, timeout_s: float) -> None:
        self.process = process
        self.profile = profile
        self.user_data_dir = user_data_dir
        self.executable = executable
        self.timeout_s = timeout_s
        self._claimed = False

    def claim(self) -> None:
        """Take the process over; raises if it was taken or abandoned already."""
        if self._claimed:
            raise BrowserLaunchError(LaunchErrorCode.LAUNCH_FAILED, f"Chromium pid {self.process.pid} was already taken or abandoned")
        self._claimed = True

    def abandon(self) -> None:
        """Kill the process (its whole group) and remove the profile we made for it; nothing
        once it was claimed."""
        if self._claimed:
            return
        self._claimed = True
        self.end()

    def end(self) -> None:
        """Kill the process with its group, reap it, and remove the profile made for it, whoever
        holds it (a connect that failed ends the Chromium it claimed)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        if self.profile is not None:
            self.profile.remove()


def spawn(options: LaunchOptions | None = None) -> SpawnedChromium:
    """Start a headless Chromium with the offline flags and return at once, before it listens.
    Never downloads a browser.

    The process is ours (chromium_process.py): an allowlisted environment, its own process group,
    killed by the kernel if we die, in a marked profile directory that closing it removes.
    Profiles a dead predecessor left in the same directory are reaped first. It listens for
    DevTools on a port it picks itself and names in the profile.
    """
    options = options or LaunchOptions()
    executable = options.executable_path or find_chromium(headless=options.headless)
    profile: ChromiumProfile | None = None
    user_data_dir = options.user_data_dir
    if user_data_dir is None:
        reap_stale_profiles(options.profiles_dir or Path(tempfile.gettempdir()))
        profile = ChromiumProfile.create(options.profiles_dir)
        user_data_dir = str(profile.path)
    command = chromium_command(executable, headless=options.headless, user_data_dir=user_data_dir, extra_args=options.extra_args)
    try:
        # No desktop handler starts (desktop_handlers.py): ours come first on the browser's PATH.
        stubs = install_handler_stubs(Path(user_data_dir))
        process = spawn_chromium(command, path=path_with_stubs(stubs, os.environ.get("PATH")))
    except OSError as error:
        if profile is not None:
            profile.remove()
        raise BrowserLaunchError(LaunchErrorCode.LAUNCH_FAILED, f"could not start Chromium at {executable}: {error}") from None
    _log.debug("started Chromium: pid %d, profile %s", process.pid, user_data_dir)
    return SpawnedChromium(process, profile, user_data_dir, executable, options.launch_timeout_ms / 1000)
