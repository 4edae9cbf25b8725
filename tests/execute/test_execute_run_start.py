"""Binds features/execute_run_start.feature: `verity run` starts Chromium first and imports only
what a run needs, as real subprocesses (Chromium on loopback pages)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.browser.launch.chromium_process import PROFILE_PREFIX
from runtime.demo import DEMO_RECIPE, DemoSite
from runtime.llm.settings import API_KEY_VARIABLES
from tests.execute.conftest import RECIPES
from tests.fixtures.one_page_site import OnePageSite

scenarios("execute_run_start.feature")

VERITY = [sys.executable, "-m", "runtime.cli.main"]
STARTED = re.compile(r"started Chromium: pid (\d+), profile (\S+)")


@dataclass
class Command:
    code: int
    stderr: str
    temporary: Path
    run_dir: Path
    # Every module the command's process had imported when its run had ended (EXEC-100), when listed.
    modules: set[str] | None = None


# `verity run` as `python -m runtime.cli.main` runs it (runtime.cli.main's `main`), then the names
# of every module the process imported, written to the file named first.
LISTING_MODULES = """
import json, sys
from runtime.cli.main import main
listing, sys.argv[1:] = sys.argv[1], sys.argv[2:]
code = main()
with open(listing, "w", encoding="utf-8") as out:
    json.dump(sorted(sys.modules), out)
sys.exit(code)
"""


@pytest.fixture
def temporary() -> Iterator[Path]:
    """A short temporary directory of the command's own. Chromium puts its singleton socket
    under TMPDIR and exits (code 21) when that path is longer than a socket path may be, as
    pytest's tmp_path is."""
    path = Path(tempfile.mkdtemp(prefix="vrs-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _verity_run(args: list[str], tmp_path: Path, temporary: Path, *, list_modules: bool = False) -> Command:
    # The browser's profile goes to the system's temporary directory: a directory of its own
    # shows exactly what this command left there.
    env = {**os.environ, "TMPDIR": str(temporary)}
    listing = tmp_path / "modules.json"
    program = [sys.executable, "-c", LISTING_MODULES, str(listing)] if list_modules else VERITY
    done = subprocess.run(
        [*program, "run", *args, "--out", str(tmp_path / "run"), "--log-level", "DEBUG"],
        capture_output=True, text=True, timeout=90, cwd=tmp_path, env=env,
    )
    modules = set(json.loads(listing.read_text(encoding="utf-8"))) if list_modules and listing.exists() else None
    return Command(done.returncode, done.stderr, temporary, tmp_path / "run", modules)


@when('I run "verity run" on the demo recipe with debug logging and a temporary directory of its own', target_fixture="command")
def run_demo(demo_site: DemoSite, tmp_path: Path, temporary: Path) -> Command:
    return _verity_run([str(DEMO_RECIPE), "-i", f"site={demo_site.quote_base}", "-i", f"search_site={demo_site.search_base}"], tmp_path, temporary)


@when('I run "verity run" on the broken recipe with debug logging and a temporary directory of its own', target_fixture="command")
def run_broken(tmp_path: Path, temporary: Path) -> Command:
    return _verity_run([str(RECIPES / "broken.yaml")], tmp_path, temporary)


@then(parsers.parse("the command exits {code:d}"))
def exits(command: Command, code: int) -> None:
    assert command.code == code, command.stderr[-3000:]


@then("the command started exactly one Chromium")
def one_chromium(command: Command) -> None:
    started = STARTED.findall(command.stderr)
    assert len(started) == 1, f"expected one Chromium started, the log shows {len(started)}: {started}\n{command.stderr[-3000:]}"
    assert Path(started[0][1]).parent == command.temporary, started


@then("that Chromium is no longer running")
def chromium_gone(command: Command) -> None:
    pid, profile = STARTED.findall(command.stderr)[0]
    try:
        arguments = Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace")
    except OSError:
        return  # no such process
    # The pid may have been reused by an unrelated process; ours would name its profile.
    assert profile not in arguments, f"Chromium {pid} still runs with profile {profile}"


@then("no Chromium profile is left in the temporary directory")
def no_profile(command: Command) -> None:
    left = sorted(p.name for p in command.temporary.iterdir() if p.name.startswith(PROFILE_PREFIX))
    assert left == [], f"profiles left behind: {left}"


@when(parsers.parse('a fresh interpreter imports what "verity run" loads before its run starts'), target_fixture="modules")
def modules_of_run_command() -> set[str]:
    # The command's own module, then the executor it hands the run to (runtime.cli.run_recipe),
    # imported as `verity run` imports them: through the CLI's parser for the run command.
    script = (
        "import json, sys\n"
        "from runtime.cli.main import build_parser\n"
        "build_parser(['run'])\n"
        "import runtime.cli.run_recipe\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    return set(json.loads(done.stdout))


def _named(modules: set[str], names: str) -> list[str]:
    """The modules that are one of the quoted, comma-separated `names` or inside one of them."""
    wanted = [name.strip().strip('"') for name in names.split(",")]
    return sorted(m for m in modules for name in wanted if m == name or m.startswith(name + "."))


def _inside(modules: set[str], package: str) -> list[str]:
    """The modules inside `package`, not the package itself: its names load on first use
    (runtime/lazy_exports.py), so importing it loads none of its modules."""
    return sorted(m for m in modules if m.startswith(package + "."))


def _run_modules(command: Command) -> set[str]:
    assert command.modules is not None, "the command did not list its modules"
    return command.modules


@then(parsers.parse("none of {names} is among its modules"))
def none_imported(modules: set[str], names: str) -> None:
    assert _named(modules, names) == [], "imported before the run starts"


@then(parsers.parse('no module inside "{package}" is among its modules'))
def none_inside(modules: set[str], package: str) -> None:
    assert _inside(modules, package) == [], "imported before the run starts"


@then(parsers.parse('"{name}" is among its modules'))
def imported(modules: set[str], name: str) -> None:
    assert name in modules, f"{name} was not imported: the check would pass for the wrong reason"


@then(parsers.parse("none of {names} is among the modules the command imported"))
def none_imported_by_run(command: Command, names: str) -> None:
    assert _named(_run_modules(command), names) == [], "imported by a run whose plan has no agent step"


@then(parsers.parse('no module inside "{package}" is among the modules the command imported'))
def none_inside_run(command: Command, package: str) -> None:
    assert _inside(_run_modules(command), package) == [], "imported by a run whose plan has no agent step"


@then(parsers.parse('"{name}" is among the modules the command imported'))
def imported_by_run(command: Command, name: str) -> None:
    assert name in _run_modules(command), f"{name} was not imported: the check would pass for the wrong reason"


# ----------------------------------------------------------------- the reserved context (EXEC-075)

# A host the recipe below does not allow; it names this machine, so the request could not leave
# loopback even if the fence failed.
UNLISTED_HOST = "localhost"

FENCED_RECIPE = """name: reserved-context-fence
goal: read the quote page in the browser
inputs:
  site: {description: base URL}
target:
  start_url: "{site}/quote.html"
  allowed_domains: ["127.0.0.1"]
  validation_keywords: ["quote"]
plan:
  - id: open
    navigate: "{start_url}"
  - id: read
    extract:
      fields:
        price: {css: "#price", type: number}
"""


@given("a loopback page that shows a quote and asks for an image from a host the recipe does not allow", target_fixture="fenced_page")
def fenced_page() -> Iterator[OnePageSite]:
    with OnePageSite("/quote.html") as site:
        site.html = (
            "<!doctype html><title>Gold quote</title><h1>Gold quote</h1><p>Price: <span id=price>2,041.50</span></p>"
            f'<img src="http://{UNLISTED_HOST}:{site.port}/pixel.png" alt="">'
        )
        yield site


@when('I run "verity run" on a recipe for that page with debug logging and a temporary directory of its own', target_fixture="command")
def run_fenced(fenced_page: OnePageSite, tmp_path: Path, temporary: Path) -> Command:
    recipe = tmp_path / "fenced.yaml"
    recipe.write_text(FENCED_RECIPE, encoding="utf-8")
    return _verity_run([str(recipe), "-i", f"site=http://127.0.0.1:{fenced_page.port}"], tmp_path, temporary, list_modules=True)


@then("the debug log says the run's session took the context reserved at start")
def took_reserved(command: Command) -> None:
    assert "takes the browser context reserved ahead" in command.stderr, command.stderr[-3000:]


@then("verdict.json counts 1 blocked request, to the host the recipe does not allow")
def one_blocked(command: Command) -> None:
    blocked = json.loads((command.run_dir / "verdict.json").read_text(encoding="utf-8"))["blocked_requests"]
    assert blocked["count"] == 1, blocked
    assert UNLISTED_HOST in json.dumps(blocked["samples"]), blocked


# ----------------------------------------------------------------- the readable-text worker (EXEC-076)

ARTICLE = (
    "<!doctype html><html><head><title>Gold climbs</title></head><body><nav><a href=/>Home</a> <a href=/m>Markets</a></nav>"
    "<article><h1>Gold climbs for a third day</h1>"
    + "".join(f"<p>Paragraph {i}: gold rose again as buyers returned to the market after a quiet week, traders said.</p>" for i in range(8))
    + "</article><footer>Contact us</footer></body></html>"
)
ARTICLE_URL = "http://127.0.0.1:1/gold.html"

# Reads the article, kills the worker, reads it again; prints both readings, the two worker pids,
# the names in the second worker's environment and whether trafilatura was imported in this
# interpreter.
WORKER_SCRIPT = """
import json, sys
from runtime.browser.launch import readable_text as rt
html, url = json.loads(sys.stdin.read())
first = rt.readable_text(html, url)
(worker,) = rt._READER.workers._idle
worker.kill()
worker.wait()
second = rt.readable_text(html, url)
(replacement,) = rt._READER.workers._idle
with open(f"/proc/{replacement.pid}/environ", "rb") as environ:
    names = [entry.split(b"=", 1)[0].decode() for entry in environ.read().split(b"\\0") if entry]
print(json.dumps({"readings": [first, second], "pids": [worker.pid, replacement.pid], "environment": names,
                  "trafilatura_here": any(m == "trafilatura" or m.startswith("trafilatura.") for m in sys.modules)}))
"""


@when(
    "a fresh interpreter with an API key in its environment reads an article page's readable text, kills the worker, and reads it again",
    target_fixture="worker_run",
)
def worker_run() -> dict:
    environment = {**os.environ, "GEMINI_API_KEY": "worker-test-key", "GOOGLE_API_KEY": "worker-test-key"}
    done = subprocess.run(
        [sys.executable, "-c", WORKER_SCRIPT], input=json.dumps([ARTICLE, ARTICLE_URL]), capture_output=True, text=True, timeout=120, check=True,
        env=environment,
    )
    return json.loads(done.stdout)


@then("both readings are trafilatura's own reading of that page")
def trafilatura_reading(worker_run: dict) -> None:
    import trafilatura

    expected = (trafilatura.extract(ARTICLE, url=ARTICLE_URL, include_comments=False, include_tables=True) or "").strip()
    assert "Gold climbs for a third day" in expected and "Paragraph 7" in expected, expected
    assert worker_run["readings"] == [expected, expected], worker_run["readings"]


@then("trafilatura is not among that interpreter's modules")
def trafilatura_elsewhere(worker_run: dict) -> None:
    assert worker_run["trafilatura_here"] is False


@then("the second reading came from another worker process")
def another_worker(worker_run: dict) -> None:
    first, second = worker_run["pids"]
    assert first != second, worker_run["pids"]


# Reads the article once and prints the reading.
ONE_READING_SCRIPT = """
import json, sys
from runtime.browser.launch import readable_text as rt
print(json.dumps(rt.readable_text(*json.loads(sys.stdin.read()))))
"""


@given('a directory holding a package named "runtime" that leaves a mark when it is imported', target_fixture="decoy")
def decoy(tmp_path: Path) -> Path:
    package = tmp_path / "runtime"
    package.mkdir()
    (package / "__init__.py").write_text(f"open({str(tmp_path / 'imported')!r}, 'w').write('the decoy runtime was imported')\n", encoding="utf-8")
    return tmp_path


@when("a fresh interpreter started in that directory reads an article page's readable text", target_fixture="decoy_reading")
def decoy_reading(decoy: Path) -> str:
    # The interpreter itself runs with -P (the directory off its path), so only the worker it starts can meet the decoy.
    done = subprocess.run(
        [sys.executable, "-P", "-c", ONE_READING_SCRIPT], input=json.dumps([ARTICLE, ARTICLE_URL]), capture_output=True, text=True,
        timeout=120, check=True, cwd=decoy,
    )
    return str(json.loads(done.stdout))


@then("the reading is trafilatura's own reading of that page")
def decoy_reading_is_trafilaturas(decoy_reading: str) -> None:
    import trafilatura

    assert decoy_reading == (trafilatura.extract(ARTICLE, url=ARTICLE_URL, include_comments=False, include_tables=True) or "").strip()
    assert "Gold climbs for a third day" in decoy_reading


@then("the directory's package left no mark")
def no_mark(decoy: Path) -> None:
    assert not (decoy / "imported").exists(), (decoy / "imported").read_text(encoding="utf-8")


@then("the worker's environment held no API key")
def no_key_in_worker(worker_run: dict) -> None:
    names = worker_run["environment"]
    assert "PATH" in names and "PYTHONPATH" in names, names
    assert not [name for name in names if name in API_KEY_VARIABLES or "KEY" in name or "TOKEN" in name], names
