"""Compare Verity's locators with Playwright's on the same Chromium and the same loopback pages.

    npm install --prefix /tmp/pw playwright-core      # once; never commit node_modules
    uv run python tools/compare_playwright_locators.py --node-modules /tmp/pw/node_modules

Not part of the suite (it needs Node and playwright-core). On the pages of the fixture site, the
Sphinx-like docs and the honesty corpus, the cases are the hand-written ones (tools/locator_cases.py) plus one `{role, name, exact: true}` locator for
every named element Verity's snapshot shows. Each case is resolved by Verity (visible
matches, the chosen or listed candidates) and by Playwright (`tools/compare_playwright_locators.cjs`:
visible matches, each one's role and name from its aria snapshot), and the differences are
printed. Playwright gets /usr/bin/chromium (or --chromium); it never downloads a browser, and a
proxy on a closed loopback port keeps it on loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from runtime.artifacts import ArtifactStore  # noqa: E402
from runtime.browser import ActionErrorCode, BrowserActionError, Target, launch_browser, open_session  # noqa: E402
from tests.fixtures.site_server import FixtureSite  # noqa: E402
from tools.bench_observe import serve_folder  # noqa: E402
from tools.locator_cases import HAND_WRITTEN  # noqa: E402

# Names are compared at the length Verity lists them.
LISTED_NAME = 120
FIXTURES = REPO / "tests/fixtures"
# Pages of the fixture site (served by FixtureSite), and static folders served as they are. Pages
# that navigate away by themselves (honesty's late/, moves_on.html) or try to leave loopback (hostile/) are left out.
SITE_PAGES = sorted(
    "/" + str(p.relative_to(FIXTURES / "site")) for p in (FIXTURES / "site").rglob("*.html")
    if p.name not in ("never_load.html", "popups.html", "moves_on.html") and "execute" not in p.parts
)
STATIC_FOLDERS = {
    "sphinx_docs": FIXTURES / "sphinx_docs",
    "honesty": FIXTURES / "honesty/pages",
}
STATIC_PAGES = sorted(
    f"{label}:/{p.relative_to(folder)}" for label, folder in STATIC_FOLDERS.items() for p in folder.rglob("*.html")
    if "late" not in p.relative_to(folder).parts
)
PAGES = SITE_PAGES + STATIC_PAGES
# Roles Verity's snapshots show that ARIA does not have (Playwright cannot look them up).
NOT_ARIA = frozenset({"label", "iframe"})


# Roles ARIA gives no name: an aria snapshot shows them without one.
NAMELESS = frozenset({"caption", "code", "definition", "deletion", "emphasis", "generic", "insertion", "mark", "paragraph",
                      "presentation", "strong", "subscript", "suggestion", "superscript", "term", "time"})


def _match(role: str, name: str) -> str:
    # A role of Verity's snapshots that ARIA lacks is an element with no role (and so no name) in an
    # aria snapshot.
    if role in NOT_ARIA or role == "presentation" or not role:
        role, name = "", ""
    if role in NAMELESS:
        name = ""
    return f'{role} "{name[:LISTED_NAME]}"'


def page_url(site: FixtureSite, bases: dict[str, str], path: str) -> str:
    label, _, rest = path.rpartition(":")
    return bases[label] + rest if label else site.url(path)


async def verity_side(site: FixtureSite, bases: dict[str, str], run_dir: str) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Every case with Verity's answer: {count, matches: [role "name"]} or {error}."""
    browser = await launch_browser()
    cases: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    try:
        session = await open_session(browser, artifacts=ArtifactStore(run_dir))
        tab = session.tab()
        for path in PAGES:
            opened = await session.open_url(page_url(site, bases, path))
            if not opened.ok:
                raise SystemExit(f"compare: cannot open {path}: {opened.error}")
            # One page holding the whole default budget (400 elements), as snapshots listed before paging.
            snapshot = (await session.snapshot(max_chars=1_000_000)).value
            locators = [loc for page, loc in HAND_WRITTEN if page == path]
            for element in snapshot.elements:
                if (element.visible and element.role and element.role not in NOT_ARIA and element.name and element.frame == "main"
                        and len(element.name) < LISTED_NAME):
                    locator = {"role": element.role, "name": element.name, "exact": True}
                    if locator not in locators:
                        locators.append(locator)
            for locator in locators:
                try:
                    # Exact unless the case says otherwise, as in recipes and on the Playwright side.
                    found = await tab.resolve(Target.from_params({"exact": True, **locator}))
                    chosen = found.how["chosen"]
                    answer: dict[str, Any] = {"count": found.how["matches"], "matches": [_match(chosen["role"], chosen["name"])]}
                except BrowserActionError as error:
                    if error.error.code is ActionErrorCode.AMBIGUOUS_TARGET:
                        listed = error.error.details["candidates"]
                        answer = {"count": error.error.details["count"], "matches": [_match(c["role"], c["name"]) for c in listed]}
                    elif error.error.code is ActionErrorCode.NOT_FOUND:
                        answer = {"count": 0, "matches": []}
                    else:
                        answer = {"error": error.error.message}
                cases.append((path, locator, answer))
    finally:
        await browser.close()
    return cases


def playwright_side(site: FixtureSite, bases: dict[str, str], cases: list[tuple[str, dict[str, Any], dict[str, Any]]], node_modules: Path,
                    chromium: str) -> list[dict[str, Any]]:
    request = {"executable": chromium, "cases": [{"url": page_url(site, bases, path), "locator": loc} for path, loc, _ in cases]}
    env = {**os.environ, "NODE_PATH": str(node_modules)}
    done = subprocess.run(
        ["node", str(REPO / "tools/compare_playwright_locators.cjs")],
        input=json.dumps(request), capture_output=True, text=True, env=env, timeout=600, check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"compare: the Playwright side failed:\n{done.stderr}")
    answers: list[dict[str, Any]] = json.loads(done.stdout)
    for answer in answers:
        if "matches" in answer:
            # An element with no role is `- text: ...` in an aria snapshot ("text" is no ARIA role).
            answer["matches"] = [_match("" if m["role"] == "text" else m["role"], m["name"]) for m in answer["matches"]]
    return answers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--node-modules", type=Path, required=True, help="a node_modules folder holding playwright-core")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    if not (args.node_modules / "playwright-core").is_dir():
        parser.error(f"--node-modules {args.node_modules}: no playwright-core in it (npm install playwright-core)")
    with contextlib.ExitStack() as stack:
        site = stack.enter_context(FixtureSite())
        run_dir = stack.enter_context(tempfile.TemporaryDirectory())
        bases = {label: stack.enter_context(serve_folder(folder)) for label, folder in STATIC_FOLDERS.items()}
        cases = asyncio.run(verity_side(site, bases, run_dir))
        answers = playwright_side(site, bases, cases, args.node_modules, args.chromium)
    differ = 0
    for (path, locator, ours), theirs in zip(cases, answers, strict=True):
        # An aria snapshot of an element with no role starts with its first child's line: only
        # that there is such an element can be compared.
        if "matches" in ours and "matches" in theirs:
            theirs["matches"] = [" \"\"" if mine == " \"\"" else line for mine, line in zip(ours["matches"], theirs["matches"])] + theirs["matches"][len(ours["matches"]):]
        if ours == theirs:
            continue
        differ += 1
        print(f"{path} {json.dumps(locator, ensure_ascii=False)}\n  verity:     {ours}\n  playwright: {theirs}")
    print(f"{len(cases)} locators on {len(PAGES)} pages: {len(cases) - differ} agree, {differ} differ")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
