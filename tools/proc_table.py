"""The machine's processes as /proc shows them now, for the benchmarks that sum CPU by process
(bench_run_cpu.py, bench_tab_cost.py, machine_cpu.py).

There is no event for "a process used CPU": these tools read this table again and again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Process:
    pid: int
    parent: int
    name: str  # the kernel's short name (comm), which Chromium's helpers keep when they rewrite argv
    cpu: float  # user + system seconds so far
    started: int  # clock ticks after boot: with the pid, names one process even after the pid is reused


def process_table() -> dict[int, Process]:
    """Every process alive now, by pid (one that exits while the table is read is left out)."""
    table: dict[int, Process] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2:].split()
            table[int(entry)] = Process(
                int(entry), int(fields[1]), stat[stat.index("(") + 1:stat.rfind(")")],
                (int(fields[11]) + int(fields[12])) / TICKS, int(fields[19]),
            )  # fmt: skip
    return table


def descendants(table: dict[int, Process], root: int) -> list[Process]:
    """`root` and every process below it in `table`."""
    children: dict[int, list[int]] = {}
    for process in table.values():
        children.setdefault(process.parent, []).append(process.pid)
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        if pid in table:
            found.append(table[pid])
        pending.extend(children.get(pid, []))
    return found
