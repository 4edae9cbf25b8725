"""Run a dead-link docs recipe against Debian's own Python documentation (package python3.11-doc,
/usr/share/doc/python3.11/html) served on loopback under /3/, and print how the fallback search
went: the verdict, what it followed and the ranked links it chose from.

    uv run --frozen python -m tools.check_debian_python_docs [RECIPE]

RECIPE defaults to tests/fixtures/recipes/search/docs-dead-link-default.yaml (no result_selector).
It starts Chromium, like the suite. Nothing leaves loopback: the docs are local files.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import unquote, urlsplit

from runtime.demo.loopback import LoopbackSite
from runtime.run_layout import EXECUTIONS_FILE, PLANS_FILE, VERDICT_FILE

DOCS = Path("/usr/share/doc/python3.11/html")
# Debian links jquery.js and underscore.js to /usr/share/javascript; serve what the links reach there.
SERVED_ROOTS = (DOCS.resolve(), Path("/usr/share/javascript").resolve())
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css", ".png": "image/png", ".svg": "image/svg+xml", ".json": "application/json"}
DEFAULT_RECIPE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "recipes" / "search" / "docs-dead-link-default.yaml"


class _Docs(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        path = unquote(urlsplit(self.path).path)
        file = (DOCS / path.removeprefix("/3/")).resolve() if path.startswith("/3/") else None
        if file is None or not any(file.is_relative_to(root) for root in SERVED_ROOTS) or not file.is_file():
            body, status, kind = b"<!doctype html><title>404 Not Found</title><h1>Not Found</h1>", 404, TYPES[".html"]
        else:
            body, status, kind = file.read_bytes(), 200, TYPES.get(file.suffix, "application/octet-stream")
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class DebianDocs(LoopbackSite):
    handler = _Docs
    thread_name = "debian-docs"


def main(argv: list[str]) -> int:
    if not (DOCS / "search.html").is_file():
        print(f"{DOCS} has no search.html: install python3.11-doc", file=sys.stderr)
        return 2
    recipe = Path(argv[0]) if argv else DEFAULT_RECIPE
    with DebianDocs() as docs, tempfile.TemporaryDirectory() as work:
        run_dir = Path(work) / "run"
        command = [sys.executable, "-m", "runtime.cli.main", "run", str(recipe), "-i", f"docs=http://127.0.0.1:{docs.port}/3", "--out", str(run_dir)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        verdict = json.loads((run_dir / VERDICT_FILE).read_text(encoding="utf-8"))
        repairs = json.loads((run_dir / PLANS_FILE).read_text(encoding="utf-8"))["plan_repairs"]
        replans = [r for r in json.loads((run_dir / EXECUTIONS_FILE).read_text(encoding="utf-8")) if r["state_id"].endswith(".replan")]
        print(f"recipe:  {recipe}")
        print(f"verdict: {verdict['status']} / {verdict['stop_reason']} (exit {done.returncode})")
        for repair in repairs:
            print(f"replan {repair['attempt']}: query {repair['query']!r}: {repair['result']}")
            print(f"  after the page it replaced: {repair['failure_summary'][:300]}")
        print(f"summary: {verdict.get('summary', '')[:400]}")
        for replan in replans:
            for link in replan.get("evidence", {}).get("ranked", []):
                print(f"  ranked: {link['url']}  [{link['why']}, score {link['score']}]  {link['text']!r}")
        return 0 if verdict["stop_reason"] == "completed" else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
