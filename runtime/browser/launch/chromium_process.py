"""The Chromium process: started so that nothing of it outlives, or learns the secrets of, the
process that started it.

- Its environment is an allowlist (`chromium_environment`): no tokens, API keys or proxy settings
  of ours reach the browser or anything a page can make it run.
- It is its own process group, tied to the thread that starts it by PR_SET_PDEATHSIG: when that
  process dies, even by SIGKILL, the kernel kills the browser; its helpers (zygotes, renderers)
  then lose their parent and exit too. util-linux `setpriv --pdeathsig KILL` sets it and then
  execs the browser, so nothing runs in the forked child of our (gRPC-threaded) process: Python in
  a `preexec_fn` there crashed now and then. Without setpriv the browser is not tied, and only
  the reaping below cleans up after a killed owner.
- It runs in a profile directory we create and mark (`ChromiumProfile`): the owner's pid and
  start time, and once started, the browser's process group and executable. A later process can
  then tell a profile whose owner is gone, and kill exactly the processes that belong to it
  (`reap_stale_profiles`) before removing it, never a process it merely guesses is a browser.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

_log = logging.getLogger(__name__)

# What Chromium needs from our environment; everything else stays with us.
ENVIRONMENT_ALLOWLIST = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR",
        "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
        "XDG_DATA_HOME", "FONTCONFIG_FILE", "FONTCONFIG_PATH", "CHROMIUM_FLAGS",
    }
)
ENVIRONMENT_PREFIXES = ("LC_",)

PROFILE_PREFIX = "verity-chromium-"
# The prefix of the temporary directory Chromium makes for its singleton socket.
SINGLETON_DIRECTORY_PREFIX = "org.chromium.Chromium."
OWNER_FILE = "verity-owner.json"


def chromium_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The allowlisted part of `environ` (default: ours)."""
    source = os.environ if environ is None else environ
    return {k: v for k, v in source.items() if k in ENVIRONMENT_ALLOWLIST or k.startswith(ENVIRONMENT_PREFIXES)}


@functools.cache
def _pdeathsig_prefix() -> tuple[str, ...]:
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        _log.warning("setpriv (util-linux) not found: Chromium is not killed with its parent, only reaped later")
        return ()
    return (setpriv, "--pdeathsig", "KILL", "--")


def spawn_chromium(command: Sequence[str], *, path: str | None = None) -> subprocess.Popen[bytes]:
    """Start Chromium in its own process group, killed when its parent dies, with the allowlisted
    environment (its PATH replaced by `path` when given). Its output is discarded (the DevTools
    endpoint is read from the profile)."""
    environment = chromium_environment()
    if path is not None:
        environment["PATH"] = path
    return subprocess.Popen(
        [*_pdeathsig_prefix(), *command],
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        process_group=0,
    )


def process_start_ticks(pid: int) -> int | None:
    """The start time of `pid` in clock ticks since boot (tells a pid from a later reuse of it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return int(fields[19]) if len(fields) > 19 else None


# A profile is a few hundred small files. On a filesystem that discards each file's blocks as it is
# unlinked (ext4 mounted with `discard`, as on the machine of these figures), every unlink waits on the
# device: measured 0.47-0.55 s for shutil.rmtree of one profile, 0.19-0.21 s with the unlinks
# spread over 8 threads (BENCHMARKS.md, "Run start").
REMOVE_THREADS = 8


def remove_tree(path: Path) -> None:
    """Remove `path` and everything in it, ignoring errors as `shutil.rmtree(ignore_errors=True)`
    does, with the files unlinked by several threads at once. Symlinks are removed, never followed."""
    files: list[str] = []
    directories: list[str] = []
    for root, subdirectories, names in os.walk(path):  # top-down: a directory before its children
        directories.append(root)
        files.extend(os.path.join(root, name) for name in names)
        files.extend(os.path.join(root, name) for name in subdirectories if os.path.islink(os.path.join(root, name)))
    if files:
        with ThreadPoolExecutor(max_workers=min(REMOVE_THREADS, len(files)), thread_name_prefix="verity-remove") as pool:
            for _ in pool.map(_unlink_quietly, files):
                pass
    for directory in reversed(directories):
        with contextlib.suppress(OSError):
            os.rmdir(directory)
    # Whatever the walk did not see (a file created meanwhile) goes the ordinary way.
    shutil.rmtree(path, ignore_errors=True)


def _unlink_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


@dataclass(frozen=True)
class ChromiumProfile:
    """A profile directory we made for one browser, marked with who owns it."""

    path: Path

    @classmethod
    def create(cls, parent: Path | None = None) -> ChromiumProfile:
        """A new profile directory in `parent` (default: the temporary directory), marked as ours.

        It is made and marked under a hidden name, then renamed into place: a profile name
        without an owner marker means a dead owner (`reap_stale_profiles`), and another process
        reaping the same directory in between would otherwise have removed a profile that was
        only being born, and later killed the browser started in it."""
        if parent is not None:
            parent.mkdir(parents=True, exist_ok=True)
        staging = cls(Path(tempfile.mkdtemp(prefix=f".{PROFILE_PREFIX}{os.getpid()}-", dir=parent)))
        staging._write_owner({"owner_pid": os.getpid(), "owner_start": process_start_ticks(os.getpid())})
        path = staging.path.with_name(staging.path.name.removeprefix("."))
        staging.path.rename(path)
        return cls(path)

    @property
    def flag(self) -> str:
        return f"--user-data-dir={self.path}"

    def record_browser(self, process: subprocess.Popen[bytes]) -> None:
        """Note the browser's process group and executable, to find its helpers if it dies."""
        owner = self._read_owner() or {}
        try:
            executable = os.path.realpath(f"/proc/{process.pid}/exe")
        except OSError:
            executable = ""
        self._write_owner({**owner, "chromium_pgid": process.pid, "chromium_executable": executable})

    def remove(self) -> None:
        """Remove the profile, and the directory of the browser's singleton socket with it."""
        singleton = self._singleton_directory()
        if singleton is not None:
            remove_tree(singleton)
        remove_tree(self.path)

    def _singleton_directory(self) -> Path | None:
        """Chromium keeps its singleton socket in a temporary directory of its own
        (TMPDIR/org.chromium.Chromium.XXXXXX), linked from the profile's SingletonSocket, and
        removes it only when it exits on its own: a killed one leaves it behind."""
        try:
            socket_path = Path(os.readlink(self.path / "SingletonSocket"))
        except OSError:
            return None
        directory = socket_path.parent
        if not directory.name.startswith(SINGLETON_DIRECTORY_PREFIX) or socket_path.name != "SingletonSocket":
            return None
        return directory

    def owner_alive(self) -> bool:
        owner = self._read_owner()
        if owner is None:
            return False
        pid, started = owner.get("owner_pid"), owner.get("owner_start")
        return isinstance(pid, int) and started is not None and process_start_ticks(pid) == started

    def _read_owner(self) -> dict[str, object] | None:
        try:
            data = json.loads((self.path / OWNER_FILE).read_text())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def _write_owner(self, data: dict[str, object]) -> None:
        partial = self.path / (OWNER_FILE + ".partial")
        partial.write_text(json.dumps(data))
        partial.replace(self.path / OWNER_FILE)


@dataclass(frozen=True)
class _Process:
    pid: int
    pgid: int
    executable: str
    arguments: tuple[str, ...]


def _processes() -> list[_Process]:
    found: list[_Process] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            arguments = tuple(a.decode("utf-8", "replace") for a in (entry / "cmdline").read_bytes().split(b"\0") if a)
            stat = (entry / "stat").read_text()
            executable = os.path.realpath(entry / "exe")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        found.append(_Process(int(entry.name), int(fields[2]), executable, arguments))
    return found


def reap_stale_profiles(parent: Path) -> list[Path]:
    """Kill the processes of every profile in `parent` whose owner is gone, and remove those
    profiles. A process belongs to a profile when its command line names the profile directory,
    or when it is in the browser's recorded process group and runs the browser's executable."""
    if not parent.is_dir():
        return []
    stale = [
        ChromiumProfile(p) for p in parent.iterdir() if p.name.startswith(PROFILE_PREFIX) and p.is_dir()
    ]
    stale = [profile for profile in stale if not profile.owner_alive()]
    if not stale:
        return []
    processes = _processes()
    for profile in stale:
        owner = profile._read_owner() or {}
        group, executable = owner.get("chromium_pgid"), owner.get("chromium_executable")
        doomed = [
            p.pid
            for p in processes
            if profile.flag in p.arguments or (p.pgid == group and executable and p.executable == executable)
        ]
        for pid in doomed:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if doomed:
            _log.warning("killed %d Chromium process(es) left behind with profile %s", len(doomed), profile.path.name)
        profile.remove()
    return [profile.path for profile in stale]
