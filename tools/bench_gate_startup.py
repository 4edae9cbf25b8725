"""What one nested `verity bdd ...` of the gate's tests costs, layer by layer.

The gate's scenarios (tests/gate) each write a sample project and run the real `verity` console
script on it, which runs a real pytest on the sample. This times each layer in fresh processes on
one such sample: the interpreter, the CLI's imports, the inner pytest (with the sample's own
pytest.ini, and again with every installed pytest plugin autoloaded) and the whole command.

Wall time depends on the machine's load; CPU time (user + sys of the child) much less, so both
are printed, each the minimum over --runs.

    uv run python tools/bench_gate_startup.py --runs 7
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "gate"))

from gate_sample_project import ADDING_FEATURE, CONTRACT_DEMO_001, PYTEST_INI, SampleProject  # noqa: E402

VERITY = str(Path(sys.executable).parent / "verity")
INNER_PYTEST = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "runtime.gate.pytest_plugin"]


def _layers(report: Path) -> list[tuple[str, list[str]]]:
    inner = [*INNER_PYTEST, f"--verity-gate-report={report}"]
    return [
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ("verity --help", [VERITY, "--help"]),
        ("import runtime.cli.bdd (what `verity bdd` loads)", [sys.executable, "-c", "import runtime.cli.bdd"]),
        ("inner pytest --collect-only, the sample's pytest.ini", inner),
        # `-o addopts=` drops the sample's --disable-plugin-autoload: what a project that keeps autoload pays.
        ("inner pytest --collect-only, every plugin autoloaded", [*inner[:3], "-o", "addopts=", *inner[3:]]),
        ("verity bdd validate", [VERITY, "bdd", "validate"]),
        ("verity bdd gate", [VERITY, "bdd", "gate", "--out", str(report.parent / "gate-out")]),
    ]


def _measure(command: list[str], cwd: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    completed = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if completed.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {completed.returncode}:\n{completed.stdout}{completed.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each layer; the minimum is printed (default 5)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-gate-") as scratch:
        project = SampleProject(Path(scratch) / "project")
        project.write("pytest.ini", PYTEST_INI)
        project.write("contracts/demo.yaml", "contracts:\n" + CONTRACT_DEMO_001)
        project.write("features/demo_adding.feature", ADDING_FEATURE)
        project.write_adding_test()
        layers = _layers(Path(scratch) / "pytest-report.json")
        walls: dict[str, list[float]] = {label: [] for label, _ in layers}
        cpus: dict[str, list[float]] = {label: [] for label, _ in layers}
        # Rounds interleave the layers, so a burst of load on the machine touches all of them alike.
        for _ in range(args.runs):
            for label, command in layers:
                wall, cpu = _measure(command, project.root)
                walls[label].append(wall)
                cpus[label].append(cpu)
    print(f"{'layer':55s} {'wall':>8s} {'CPU':>8s}   (minimum of {args.runs} runs)")
    for label, _ in layers:
        print(f"{label:55s} {min(walls[label]):7.3f}s {min(cpus[label]):7.3f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
