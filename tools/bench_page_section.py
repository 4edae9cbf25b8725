"""Benchmark: the page section of an agent's model request, beside Playwright's ariaSnapshot.

    npm install --prefix /tmp/pw playwright-core@1.64.1      # once; never commit node_modules
    uv run python tools/bench_page_section.py [--playwright /tmp/pw/node_modules]

Pages: genindex-all.html and library/json.html of Debian's python3.11-doc
(/usr/share/doc/python3.11/html), and three of this script's own: a long form, a table of 500
rows, and the demo's small quote page. For each, the `<page>` section exactly as an agent's first
request carries it (the tab's tree as runtime/execute/agent/page_view.py puts it there, in the
prompt of runtime/llm/prompt.py), in characters, beside `page.ariaSnapshot({mode: "ai"})` of the
same page on the same Chromium (tools/bench_observe_playwright.cjs, one run), and the target of
issue 32: at most half of Playwright's on a page larger than one snapshot page (the tree's default
budget), no larger than it on a smaller page. Also how long the tree took, and what it left out
(lines saying `… N more` or `: … (counts)`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for folder in (REPO, REPO / "tools"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from bench_observe import _playwright_round, serve_folder  # noqa: E402

from runtime.artifacts import ArtifactStore  # noqa: E402
from runtime.browser import BrowserLaunchError, SnapshotTree, launch_browser, open_session  # noqa: E402
from runtime.browser.tab.snapshot_tree import DEFAULT_TREE_CHARS  # noqa: E402
from runtime.demo import DemoSite  # noqa: E402
from runtime.execute.agent.page_view import page_section  # noqa: E402
from runtime.llm import PageContext, build_agent_prompt  # noqa: E402

PYTHON_DOCS = Path("/usr/share/doc/python3.11/html")
LEFT_OUT = re.compile(r"^\s*- … \d+ more|: … \(", re.MULTILINE)


def long_form() -> str:
    """A long form: 12 fieldsets of 6 labelled fields each (text, email, select, checkbox, radio
    pair, textarea), with help text, as an application or checkout form is."""
    sets = []
    for s in range(1, 13):
        fields = [
            f'<p><label>Name {s} <input name="name{s}" placeholder="Full name"></label> <small>As on your passport.</small></p>',
            f'<p><label>Email {s} <input type="email" name="email{s}"></label></p>',
            f'<p><label>Country {s} <select name="country{s}">' + "".join(f"<option>Country {c}</option>" for c in range(1, 31)) + "</select></label></p>",
            f'<p><label><input type="checkbox" name="agree{s}"> I agree to term {s}</label></p>',
            f'<p><label><input type="radio" name="plan{s}" value="a"> Plan A</label> <label><input type="radio" name="plan{s}" value="b"> Plan B</label></p>',
            f'<p><label>Notes {s} <textarea name="notes{s}"></textarea></label></p>',
        ]
        sets.append(f"<fieldset><legend>Section {s}</legend>{''.join(fields)}</fieldset>")
    return (
        "<!doctype html><html><head><title>Long form</title></head><body><main><h1>Application</h1>"
        f"<form>{''.join(sets)}<button>Submit</button></form></main></body></html>"
    )


def table_of_rows(rows: int = 500) -> str:
    """A table of `rows` orders, each with a link and a button."""
    body = "".join(
        f'<tr><td>{n}</td><td><a href="#o{n}">Order {n}</a></td><td>Customer {n}</td><td>{n * 7 % 1000}.{n % 100:02d} EUR</td>'
        f"<td><button>Cancel {n}</button></td></tr>"
        for n in range(1, rows + 1)
    )
    return (
        "<!doctype html><html><head><title>Orders</title></head><body><main><h1>Orders</h1>"
        "<table><thead><tr><th>#</th><th>Order</th><th>Customer</th><th>Total</th><th>Action</th></tr></thead>"
        f"<tbody>{body}</tbody></table></main></body></html>"
    )


def section_of(tree: SnapshotTree) -> str:
    """The <page> section of a request whose page is `tree`, as the agent sends it."""
    prompt = build_agent_prompt("", [], PageContext(tree.url, tree.tab_id, tree.title), page_section(tree))
    return prompt[prompt.index("<page>") : prompt.index("</page>") + len("</page>")]


async def measure(urls: list[tuple[str, str]], node_modules: Path | None) -> int:
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    browser = await launch_browser()
    rows = []
    try:
        with tempfile.TemporaryDirectory() as run_dir:
            session = await open_session(browser, artifacts=ArtifactStore(run_dir))
            for label, url in urls:
                opened = await session.open_url(url, timeout_ms=60_000)
                if not opened.ok:
                    print(f"bench_page_section: could not open {url}: {opened.error}", file=sys.stderr)
                    return 1
                taken = await session.snapshot_tree(timeout_ms=120_000)
                if not taken.ok:
                    print(f"bench_page_section: the tree of {url} failed: {taken.error}", file=sys.stderr)
                    return 1
                tree: SnapshotTree = taken.value
                ours = len(section_of(tree))
                theirs = None
                if node_modules is not None:
                    round_ = await asyncio.to_thread(_playwright_round, node_modules, chromium, url, 1)
                    theirs = int(round_["ai_chars"])
                rows.append((label, ours, theirs, tree, len(LEFT_OUT.findall(tree.text))))
    finally:
        await browser.close()
    print("| page | page section (chars) | ariaSnapshot mode=ai (chars) | ratio | target | tree ms | lines | lines saying what was left out |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    met = True
    for label, ours, theirs, tree, cut in rows:
        if theirs is None:
            ratio, target = "-", "-"
        else:
            large = theirs > DEFAULT_TREE_CHARS
            ok = ours <= theirs / 2 if large else ours <= theirs
            met = met and ok
            ratio = f"{ours / theirs:.3f}"
            target = f"{'<= 0.5' if large else '<= 1'} ({'met' if ok else 'NOT met'})"
        print(f"| {label} | {ours:,} | {theirs if theirs is None else f'{theirs:,}'} | {ratio} | {target} | {tree.capture_ms:.0f} | {len(tree.lines)} | {cut} |")
    return 0 if met else 3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playwright", type=Path, help="node_modules holding playwright-core (compare with ariaSnapshot mode=ai)")
    args = parser.parse_args()
    if args.playwright is not None and not (args.playwright / "playwright-core").is_dir():
        parser.error(f"--playwright {args.playwright}: no playwright-core in it (npm install --prefix /tmp/pw playwright-core@1.64.1)")
    with contextlib.ExitStack() as stack:
        own = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        (own / "form.html").write_text(long_form(), encoding="utf-8")
        (own / "table.html").write_text(table_of_rows(), encoding="utf-8")
        docs = stack.enter_context(serve_folder(PYTHON_DOCS))
        mine = stack.enter_context(serve_folder(own))
        demo = stack.enter_context(DemoSite())
        urls = [
            ("genindex-all.html", f"{docs}/genindex-all.html"),
            ("library/json.html", f"{docs}/library/json.html"),
            ("long form (72 fields)", f"{mine}/form.html"),
            ("table of 500 rows", f"{mine}/table.html"),
            ("small quote page", f"{demo.quote_base}/quotes/gold"),
        ]
        try:
            return asyncio.run(measure(urls, args.playwright))
        except BrowserLaunchError as error:
            print(f"bench_page_section: {error}", file=sys.stderr)
            return 2


if __name__ == "__main__":
    raise SystemExit(main())
