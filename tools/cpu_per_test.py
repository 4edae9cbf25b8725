"""A pytest plugin that writes each test's CPU, every process it started included, as JSON lines.

It reads a cgroup v1 `cpuacct` group's `cpuacct.usage` before and after each test, so Chromium's
processes, `verity` subprocesses and servers count too; the pytest process's own share is read
from `getrusage`. Run the suite on one worker inside that group, or the tests overlap:

    mkdir /sys/fs/cgroup/cpuacct/verity-cpu
    bash -c 'echo $$ > /sys/fs/cgroup/cpuacct/verity-cpu/cgroup.procs;
      CPU_CGROUP=verity-cpu CPU_OUT=/tmp/cpu.jsonl PYTHONPATH=tools VERITY_TEST_WORKERS=0 tools/test -p cpu_per_test'

Each line: {"id": node id, "cpu": seconds of the whole group, "self": seconds of this process,
"wall": seconds}. BENCHMARKS.md, "Suite", has what it found.
"""

from __future__ import annotations

import json
import os
import resource
import time
from pathlib import Path

_GROUP = Path("/sys/fs/cgroup/cpuacct") / os.environ.get("CPU_CGROUP", "verity-cpu") / "cpuacct.usage"
_OUT = Path(os.environ.get("CPU_OUT", "cpu-per-test.jsonl"))
_started: dict[str, tuple[float, float, float]] = {}


def _group_seconds() -> float:
    return int(_GROUP.read_text()) / 1e9


def _own_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def pytest_runtest_setup(item: object) -> None:
    _started[item.nodeid] = (_group_seconds(), _own_seconds(), time.monotonic())  # type: ignore[attr-defined]


def pytest_runtest_logfinish(nodeid: str, location: object) -> None:
    if nodeid not in _started:
        return
    group, own, wall = _started.pop(nodeid)
    line = {"id": nodeid, "cpu": _group_seconds() - group, "self": _own_seconds() - own, "wall": time.monotonic() - wall}
    with _OUT.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")
