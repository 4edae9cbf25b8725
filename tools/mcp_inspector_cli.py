"""The MCP Inspector's CLI mode (a client that is not ours) against `verity mcp` over stdio.

    npm install --prefix /tmp/verity-inspector @modelcontextprotocol/inspector
    uv run python tools/mcp_inspector_cli.py --inspector /tmp/verity-inspector/node_modules/.bin/mcp-inspector

Not in the suite: it needs npm's package at hand. Each Inspector command starts its own
`verity mcp --allowed-domains 127.0.0.1` on stdio (a fresh store and runs directory in a temporary
directory, one recipe there), makes one request and prints the answer as JSON, which this script
checks:

1. `tools/list`: the recipe is a tool with its goal as the description and its input as the
   input schema; the browser tools are listed beside it;
2. `tools/call` of the recipe on a loopback page: the verdict is completed and verified, and the
   structured output is the page's heading;
3. `tools/call` of `browser_navigate` to the page: ok, the page section shows its heading;
4. `tools/call` of `browser_navigate` to `localhost` (another host than the allowed 127.0.0.1):
   refused by the fence.

It prints one line per request (what was asked, how long the Inspector took, what came back) and
exits 1 on the first answer that is not what it should be. Everything stays on loopback.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from runtime.demo.loopback import LoopbackSite  # noqa: E402

PAGE = b"""<!doctype html><html><head><title>Inspector page</title></head><body>
<h1>The inspected harbour</h1><p>A loopback page for the MCP Inspector.</p></body></html>"""
RECIPE = """\
name: inspector-heading
goal: read the heading of a page with the browser
inputs:
  site: {type: string, description: Base URL of the page}
target:
  start_url: "{site}/page.html"
  allowed_domains: ["127.0.0.1"]
plan:
  - {id: open, navigate: "{start_url}"}
  - {id: read, extract: {fields: {heading: {css: "h1"}}}}
  - {id: check, verify: [{field_present: heading}]}
output:
  schema: {type: object, required: [heading], properties: {heading: {type: string}}}
"""
CALL_CEILING_SECONDS = 180


class Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args: Any) -> None:
        pass


def inspect(inspector: str, home: Path, method: str, *request: str) -> tuple[dict[str, Any], float]:
    """One Inspector CLI command against a fresh `verity mcp` on stdio: its JSON answer and seconds."""
    verity = [
        str(REPO / ".venv" / "bin" / "verity"), "mcp", "--recipes-dir", str(home / "recipes"), "--store", str(home / "verity.db"),
        "--runs-dir", str(home / "runs"), "--allowed-domains", "127.0.0.1", "--allow-private-network", "--grace-seconds", "1",
    ]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(
        [inspector, "--cli", *verity, "--method", method, *request], capture_output=True, text=True, timeout=CALL_CEILING_SECONDS, cwd=REPO
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"the Inspector failed ({method}, exit {done.returncode}): {done.stderr.strip()[-1500:]}")
    return json.loads(done.stdout), seconds


def expect(holds: bool, what: str, answer: Any) -> None:
    if not holds:
        print(f"FAILED: {what}\n{json.dumps(answer, ensure_ascii=False)[:3000]}", file=sys.stderr)
        raise SystemExit(1)


def inspector_version(binary: Path) -> str:
    """The version of the Inspector package the binary belongs to (its package.json, above it)."""
    for folder in binary.resolve().parents:
        manifest = folder / "package.json"
        if manifest.is_file() and (package := json.loads(manifest.read_text(encoding="utf-8"))).get("name") == "@modelcontextprotocol/inspector":
            return str(package.get("version"))
    return "(version unknown)"


def texts(answer: dict[str, Any]) -> list[str]:
    return [block.get("text", "") for block in answer.get("content", []) if block.get("type") == "text"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inspector", required=True, help="the mcp-inspector binary (node_modules/.bin/mcp-inspector)")
    args = parser.parse_args()
    version = inspector_version(Path(args.inspector))
    with tempfile.TemporaryDirectory(prefix="verity-inspector-") as temp, LoopbackSite(handler=Page) as site:
        home = Path(temp)
        (home / "recipes").mkdir()
        (home / "recipes" / "heading.yaml").write_text(RECIPE, encoding="utf-8")
        base = f"http://127.0.0.1:{site.port}"
        print(f"MCP Inspector {version} (CLI mode) against verity mcp on stdio; page {base}/page.html")

        listed, seconds = inspect(args.inspector, home, "tools/list")
        tools = {tool["name"]: tool for tool in listed.get("tools", [])}
        recipe = tools.get("inspector-heading", {})
        expect(recipe.get("description") == "read the heading of a page with the browser", "the recipe is a tool, its goal the description", listed)
        expect(recipe.get("inputSchema", {}).get("required") == ["site"], "the recipe's input is the tool's required argument", recipe)
        expect({"browser_navigate", "browser_snapshot", "browser_take_screenshot", "browser_close"} <= set(tools), "the browser tools are listed", sorted(tools))
        print(f"tools/list: {len(tools)} tools ({seconds:.1f} s): the recipe inspector-heading (input site) and the browser tools")

        ran, seconds = inspect(args.inspector, home, "tools/call", "--tool-name", "inspector-heading", "--tool-arg", f"site={base}")
        verdict = json.loads(texts(ran)[0])
        expect(verdict.get("status") == "completed" and verdict.get("verified") is True, "the recipe's run completed, verified", ran)
        expect(ran.get("structuredContent") == {"heading": "The inspected harbour"}, "its structured output is the heading", ran)
        print(f"tools/call inspector-heading: {verdict['status']}, verified, output {json.dumps(ran['structuredContent'])} ({seconds:.1f} s)")

        opened, seconds = inspect(args.inspector, home, "tools/call", "--tool-name", "browser_navigate", "--tool-arg", f"url={base}/page.html")
        said = texts(opened)
        expect(not opened.get("isError") and json.loads(said[0]).get("ok") is True, "browser_navigate opened the page", opened)
        expect(len(said) > 1 and 'heading "The inspected harbour"' in said[1], "the page section shows the heading", opened)
        print(f"tools/call browser_navigate {base}/page.html: ok, the page's tree in the answer ({seconds:.1f} s)")

        refused, seconds = inspect(args.inspector, home, "tools/call", "--tool-name", "browser_navigate", "--tool-arg", f"url=http://localhost:{site.port}/page.html")
        result = json.loads(texts(refused)[0])
        expect(refused.get("isError") is True and result.get("ok") is False, "a navigation to another host is refused", refused)
        print(f"tools/call browser_navigate http://localhost:{site.port}/page.html: refused, {result['error']['code']} ({seconds:.1f} s)")
    print("all answers as expected")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
