"""Probes of plan steps by class (wave 8): late walls, external programs, forged signals.

Each probe is a page of tools/probes/plan_walls/ and the verdict written for it before it ran
(PROBES below). The pages are served on 127.0.0.1:PORT (allowed) and, for frames, on
localhost:PORT (another allowed origin); a logging xdg-open (and the other openers) is first on
the PATH of the Chromium the probe launches, as in the hidden round, so a program started by a
page shows up in its log. Run:

    uv run --frozen --no-sync python tools/probe_plan_walls.py [ID_PREFIX...]

Prints one line per probe: expected, observed, and what was blocked; exits 1 when one differs.
Popups that hand a URL to the desktop from their first script (ext-popup-*) are recorded since
POLICY-039: a new tab waits, paused, until a watch of its hand-offs is on its flat session. Closed shadow roots' walls (closed-*, late-closed-*) are
judged since BROWSER-078. A wall drawn in a layer over the quote (covered-*) is judged since
VERDICT-041; on the code before it, 11 of its 12 walls ended completed with the value under them.
Walls that are not fixed layers (walls-*) are judged since VERDICT-042; on the code before it, 10
of its 11 walls ended completed with the value under them, and 2 of its 3 dismissible popups
ended login_required.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from runtime.browser import LaunchOptions, find_chromium, launch_browser  # noqa: E402
from runtime.browser.launch.desktop_handlers import handler_attempts  # noqa: E402
from runtime.demo.loopback import LoopbackSite  # noqa: E402
from runtime.events import EventLog  # noqa: E402
from runtime.execute import BrowserProvider, start_run  # noqa: E402
from runtime.plan import prepare_run  # noqa: E402
from runtime.recipe import load_recipe_with_registry  # noqa: E402
from tests.fixtures.external_protocols.site import LoggingHandlers  # noqa: E402

PAGES = ROOT / "tools" / "probes" / "plan_walls"
RUN_CEILING_SECONDS = 120.0
WALL = ("replans_exhausted", "login_required")
# The quote read at the instant a click reaches the page (an act's read_at_press).
PRESS_READ = """  - id: read
    act:
      click: {css: "#refresh"}
      read_at_press: {quote: {css: "#quote"}}
"""
# The quote read in a tab the page opens.
TAB_READ = """  - {id: more, act: {click: {role: link, name: Full quote}}, as: more}
  - {id: read, extract: {fields: {quote: {css: "#quote", required: true}}}, tab: more}
"""
# An evaluate step reads the quote instead of an extract.
EVALUATE_READ = """  - id: read
    evaluate:
      script: "const q = document.querySelector('#quote'); return {quote: q ? q.textContent : 'none'}"
      fields: [quote]
"""


@dataclass(frozen=True)
class Probe:
    id: str
    page: str
    expect: tuple[str, str | None]
    value: str | None = None
    # Steps between navigate and extract, as YAML lines of the plan.
    middle: str = ""
    field: str = '{css: "#quote", required: true}'
    external: bool = False  # the page tries to hand a URL to the desktop
    # A read other than the extract step (YAML lines of the plan, a step with id `read`).
    read: str = ""
    checked: bool = True  # a verify step on the page after the read


PROBES = (
    # 1. late walls: the page passes validation, then shows a sign-in wall (no value may be kept).
    Probe("late-timer", "late-timer.html", WALL, middle='  - wait: {text: "Sign in to see the price"}\n'),
    Probe("late-pushstate", "late-pushstate.html", WALL, middle='  - wait: {url: "signin"}\n'),
    Probe("late-shadow", "late-shadow.html", WALL, middle='  - wait: {until: {element: {css: "input[type=password]"}}}\n'),
    Probe("late-shadow-cover", "late-shadow-cover.html", WALL, middle='  - wait: {until: {element: {css: "input[type=password]"}}}\n'),
    Probe("shadow-wall-at-load", "shadow-wall-at-load.html", WALL),
    Probe("shadow-benign", "shadow-benign.html", ("completed", None), "Q-1011", '  - wait: {text: "Quote: Q-1011"}\n'),
    Probe("late-closed-shadow", "late-closed-shadow.html", WALL, middle='  - wait: {until: {title_includes: "Sign in"}}\n'),
    Probe("closed-shadow-at-load", "closed-shadow-at-load.html", WALL),
    Probe("closed-shadow-benign", "closed-shadow-benign.html", ("completed", None), "Q-1015"),
    # Wave 8, closed roots: a declarative closed root's wall and benign card, and a closed root
    # attached after validation to an empty placeholder (the light DOM's text and tags unchanged).
    Probe("closed-declarative-wall", "closed-declarative-wall.html", WALL),
    Probe("closed-declarative-benign", "closed-shadow-benign-declarative.html", ("completed", None), "Q-1017"),
    Probe("late-closed-placeholder", "late-closed-placeholder.html", WALL, middle='  - wait: {until: {element: {css: "body[data-gate=shown]"}}}\n'),
    Probe("verify-after-wall", "late-timer.html", WALL, middle='  - wait: {text: "Sign in to see the price"}\n  - verify:\n      - text_includes: "Members only"\n'),
    Probe("evaluate-after-wall", "late-timer.html", WALL, middle='  - wait: {text: "Sign in to see the price"}\n', read=EVALUATE_READ),
    Probe("evaluate-unchecked-wall", "late-timer.html", WALL, middle='  - wait: {text: "Sign in to see the price"}\n', read=EVALUATE_READ, checked=False),
    Probe("extract-unchecked-wall", "late-timer.html", WALL, middle='  - wait: {text: "Sign in to see the price"}\n', checked=False),
    Probe("evaluate-refused-path", "evaluate-away.html", ("replans_exhausted", "domain_not_allowed"), middle="  - act: {click: {css: '#away'}}\n", read=EVALUATE_READ),
    Probe("press-after-wall", "press-wall.html", WALL, middle='  - wait: {text: "Sign in to see the price"}\n', read=PRESS_READ, checked=False),
    Probe("tab-wall", "tab-wall.html", WALL, read=TAB_READ),
    Probe("tab-benign", "tab-benign.html", ("completed", None), "Q-1042", read=TAB_READ, checked=False),
    Probe("late-docwrite", "late-docwrite.html", WALL, middle='  - wait: {text: "Sign in to see the price"}\n'),
    Probe("nested-frame", "nested-frame.html", WALL, field='{css: "#quote", frame: {css: "#inner", frame: "#outer"}, required: true}'),
    Probe("srcdoc-wall", "srcdoc-wall.html", WALL, field='{css: "#quote", frame: "#box", required: true}'),
    Probe("srcdoc-benign", "srcdoc-benign.html", ("completed", None), "Q-1007", field='{css: "#quote", frame: "#box", required: true}', checked=False),
    Probe("srcdoc-sandboxed", "srcdoc-sandboxed.html", ("completed", None), "Q-1012", field='{css: "#quote", frame: "#box", required: true}', checked=False),
    # Wave 9, data: frames: the frame's content is the embedding page's own markup (Chromium gives
    # it an opaque origin, as a sandboxed srcdoc frame); expected before running, as srcdoc frames.
    Probe("data-benign", "data-benign.html", ("completed", None), "Q-1021", field='{css: "#quote", frame: "#box", required: true}', checked=False),
    Probe("data-base64-benign", "data-base64-benign.html", ("completed", None), "Q-1022", field='{css: "#quote", frame: "#box", required: true}', checked=False),
    Probe("data-wall", "data-wall.html", WALL, field='{css: "#quote", frame: "#box", required: true}'),
    # Wave 9, closed roots inside frames (the frame's document drawn in a closed root) and a wait
    # for text only a closed root shows; expected before running.
    Probe("frame-closed-wall", "frame-closed-wall.html", WALL, field='{css: "#quote", frame: "#box", required: true}'),
    Probe("frame-closed-other", "frame-closed-other.html", WALL, field='{css: "#quote", frame: "#box", required: true}'),
    Probe("frame-closed-benign", "frame-closed-benign.html", ("completed", None), "Q-1032", field='{css: "#quote", frame: "#box", required: true}', checked=False),
    Probe("wait-closed-text", "wait-closed-text.html", ("completed", None), "Q-1033", middle='  - wait: {text: "Quote ready"}\n'),
    Probe("wait-closed-late", "wait-closed-late.html", ("completed", None), "Q-1034", middle='  - wait: {text: "Quote ready"}\n'),
    Probe("blank-written-wall", "blank-written-wall.html", WALL, field='{css: "#quote", frame: "#box", required: true}'),
    Probe("frame-turns", "frame-turns.html", WALL, middle='  - wait: {text: "Partner updated"}\n', field='{css: "#quote", frame: "#box", required: true}'),
    Probe("frame-navigates", "frame-navigates.html", WALL, middle='  - wait: {text: "Partner updated"}\n', field='{css: "#quote", frame: "#box", required: true}'),
    # 2. external programs: no program starts, the attempt is a blocked request, the value is the page's own.
    Probe("ext-window-open-mailto", "ext-window-open-mailto.html", ("completed", None), "Q-2000", "  - act: {click: {css: '#go'}}\n", external=True),
    # Written first as completed; a top-frame navigation to a refused scheme ends the page path by
    # design (honesty labels rule 7), the attempt named: the expectation was wrong.
    Probe("ext-location-tel", "ext-location-tel.html", ("replans_exhausted", "scheme_not_allowed"), None, "  - act: {click: {css: '#go'}}\n", external=True),
    Probe("ext-load-sms", "ext-load-sms.html", ("replans_exhausted", "scheme_not_allowed"), None, external=True),
    # Written first as completed (or verification_failed): an act refuses a link or form that goes to
    # a refused scheme before it clicks (nothing is attempted), and names it.
    Probe("ext-form-mailto", "ext-form-mailto.html", ("replans_exhausted", "scheme_not_allowed"), None, "  - act: {click: {role: button, name: Send}}\n", external=True),
    Probe("ext-meta-refresh", "ext-meta-refresh.html", ("replans_exhausted", "scheme_not_allowed"), None, external=True),
    Probe("ext-popup-hands-off", "ext-popup-hands-off.html", ("completed", None), "Q-2000", "  - act: {click: {css: '#go'}}\n", external=True),
    # Wave 9, popups that navigate themselves (or are navigated by their opener) to a desktop
    # scheme: expected before running, as a window opened on one: no program starts, the page's
    # value, and the attempt recorded as external_protocol.
    Probe("ext-popup-self-ssh", "ext-popup-self-ssh.html", ("completed", None), "Q-2000", "  - act: {click: {css: '#go'}}\n", external=True),
    Probe("ext-popup-blank-ircs", "ext-popup-blank-ircs.html", ("completed", None), "Q-2000", "  - act: {click: {css: '#go'}}\n", external=True),
    Probe("ext-popup-blank-mailto", "ext-popup-blank-mailto.html", ("completed", None), "Q-2000", "  - act: {click: {css: '#go'}}\n", external=True),
    Probe("ext-a-ssh", "ext-a-ssh.html", ("replans_exhausted", "scheme_not_allowed"), None, "  - act: {click: {css: '#go'}}\n", external=True),
    Probe("ext-frame-scripts", "ext-frame-scripts.html", ("completed", None), "Q-2000", external=True),
    Probe("ext-frame-click", "ext-frame-click.html", ("replans_exhausted", "scheme_not_allowed"), None, "  - act: {click: {text: 'Mail us', frame: '#box'}}\n", external=True),
    # 3. forged signals: a page that imitates the fence is judged as the page it is.
    Probe("forge-replay", "forge-start.html", ("completed", None), "Q-3001", '  - wait: {url: "q-replay"}\n'),
    # The top frame's load fails for a URL the proxy refused before for an image: a failed load, not
    # a refusal (written first as navigation_failed; the proxy answers a dropped upstream with 502).
    Probe("forge-failed-load", "forge-fail-start.html", ("replans_exhausted", "server_error"), middle='  - wait: {url: "q-fail"}\n'),
    Probe("forge-body-200", "forge-body-200.html", ("completed", None), "Q-3002"),
    # 4. the value under a wall (issue 33, h12): a layer drawn over the quote. Expected before running:
    # a layer that covers the page for a person and says it is a wall (the phrase sets, a password
    # field, a captcha box) is that wall, on a long page too; a bar, a corner dialog, a header, a
    # layer the pointer passes through, or a full-screen layer that is no wall, is not.
    Probe("covered-login-short", "covered-login-short.html", WALL),
    Probe("covered-login-long", "covered-login-long.html", WALL),
    Probe("covered-paywall-modal", "covered-paywall-modal.html", WALL),
    Probe("covered-paywall-plain", "covered-paywall-plain.html", WALL),
    Probe("covered-late-append", "covered-late-append.html", WALL, middle='  - wait: {until: {element: {css: "#gate"}}}\n'),
    Probe("covered-late-slide", "covered-late-slide.html", WALL, middle='  - wait: {until: {element: {css: "body[data-gate=shown]"}}}\n'),
    Probe("covered-captcha", "covered-captcha.html", ("replans_exhausted", "captcha")),
    Probe("covered-closed-shadow", "covered-closed-shadow.html", WALL),
    Probe("covered-inert", "covered-inert.html", WALL),
    Probe("covered-blur", "covered-blur.html", WALL),
    Probe("covered-denied", "covered-denied.html", ("replans_exhausted", "access_denied")),
    Probe("covered-dialog-modal", "covered-dialog-modal.html", WALL),
    Probe("covered-benign-cookie-bar", "covered-benign-cookie-bar.html", ("completed", None), "Q-5101"),
    Probe("covered-benign-newsletter", "covered-benign-newsletter.html", ("completed", None), "Q-5102"),
    Probe("covered-benign-sticky-header", "covered-benign-sticky-header.html", ("completed", None), "Q-5103"),
    Probe("covered-benign-gradient", "covered-benign-gradient.html", ("completed", None), "Q-5104"),
    Probe("covered-benign-header-signin", "covered-benign-header-signin.html", ("completed", None), "Q-5105"),
    Probe("covered-benign-lightbox", "covered-benign-lightbox.html", ("completed", None), "Q-5106"),
    # 5. walls that are not fixed layers (h14), expected before running: a wall drawn absolute or
    # sticky over the article, one the pointer passes through, one in a frame drawn over the page,
    # at load or after validation, is that wall; a sign-in or newsletter popup a person can dismiss
    # ("Maybe later", "No thanks", a close button) is no wall, nor is a hero image, a sticky header,
    # a tooltip, a sticky cookie bar or a corner box.
    Probe("walls-absolute-long", "walls-absolute-long.html", WALL),
    Probe("walls-absolute-short", "walls-absolute-short.html", WALL),
    Probe("walls-absolute-login", "walls-absolute-login.html", WALL),
    Probe("walls-absolute-truncated", "walls-absolute-truncated.html", WALL),
    Probe("walls-sticky-long", "walls-sticky-long.html", WALL),
    Probe("walls-pointer-none", "walls-pointer-none.html", WALL),
    Probe("walls-pointer-none-absolute", "walls-pointer-none-absolute.html", WALL),
    Probe("walls-late-absolute", "walls-late-absolute.html", WALL, middle='  - wait: {until: {element: {css: "#gate"}}}\n'),
    Probe("walls-late-pointer-none", "walls-late-pointer-none.html", WALL, middle='  - wait: {until: {element: {css: "body[data-gate=shown]"}}}\n'),
    Probe("walls-iframe-same", "walls-iframe-same.html", WALL),
    Probe("walls-iframe-other", "walls-iframe-other.html", WALL),
    Probe("walls-dismissible-signin", "walls-dismissible-signin.html", ("completed", None), "Q-6012"),
    Probe("walls-dismissible-continue", "walls-dismissible-continue.html", ("completed", None), "Q-6013"),
    Probe("walls-dismissible-newsletter", "walls-dismissible-newsletter.html", ("completed", None), "Q-6014"),
    # The lead is free; the paywall is laid over the rest of the article from below the first
    # screen, the value with it (off the viewport: no point there can be hit-tested).
    Probe("walls-below-fold", "walls-below-fold.html", WALL),
    Probe("walls-benign-below-fold", "walls-benign-below-fold.html", ("completed", None), "Q-6021"),
    Probe("walls-benign-hero", "walls-benign-hero.html", ("completed", None), "Q-6015"),
    Probe("walls-benign-sticky-header", "walls-benign-sticky-header.html", ("completed", None), "Q-6016"),
    Probe("walls-benign-tooltip", "walls-benign-tooltip.html", ("completed", None), "Q-6017"),
    Probe("walls-benign-cookie-bar", "walls-benign-cookie-bar.html", ("completed", None), "Q-6018"),
    Probe("walls-benign-corner-newsletter", "walls-benign-corner-newsletter.html", ("completed", None), "Q-6019"),
)

RECIPE = """
name: probe-{id}
goal: Read the probe page's quote
inputs:
  page_url: {{description: the probe page}}
target:
  start_url: "{{page_url}}"
  allowed_domains: ["127.0.0.1:{port}", "localhost:{port}"]
  validation_keywords: ["Probe quote"]
guards:
  max_replans: 0
{tools}plan:
  - id: open
    navigate: "{{start_url}}"
{middle}{read}{check}  - close: {{summary: "read the probe page's quote"}}
output:
  values: {{quote: "{{steps.read.quote}}"}}
"""
CHECK = """  - id: check
    verify:
      - text_includes: "{steps.read.quote}"
"""
EXTRACT_READ = """  - id: read
    extract:
      fields:
        quote: {field}
"""


class _Pages(BaseHTTPRequestHandler):
    server: Any
    replayed: set[str] = set()
    lock = threading.Lock()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's signature
        pass

    def _send(self, status: int, body: bytes, headers: dict[str, str], kind: str = "text/html; charset=utf-8") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        path = urlsplit(self.path).path
        port = self.server.server_address[1]
        if path == "/q-replay":
            # First asked by an image: a redirect to data: the proxy refuses (and logs for this URL);
            # then the top frame's own document, a good quote with the fence's header forged.
            with self.lock:
                first = path not in self.replayed
                self.replayed.add(path)
            if first:
                self._send(302, b"", {"Location": "data:text/html,moved"})
            else:
                body = b"<!doctype html><title>Probe quote</title><h1>Probe quote</h1><p>Quote: <span id=quote>Q-3001</span></p>"
                self._send(200, body, {"X-Verity-Blocker": "domain_not_allowed"})
            return
        if path == "/q-fail":
            # First asked by an image: a redirect to data: the proxy refuses (and logs for this URL);
            # then the top frame's navigation there, which the server drops without an answer.
            with self.lock:
                first = path not in self.replayed
                self.replayed.add(path)
            if first:
                self._send(302, b"", {"Location": "data:text/html,moved"})
            else:
                self.close_connection = True
            return
        file = PAGES / path.lstrip("/")
        if not file.is_file() or file.parent != PAGES:
            self._send(404, b"<title>Not found</title><h1>Not found</h1>", {})
            return
        text = file.read_text(encoding="utf-8").replace("__OTHER__", f"http://localhost:{port}")
        self._send(200, text.encode("utf-8"), {})


class ProbeSite(LoopbackSite):
    handler = _Pages
    thread_name = "probe-plan-walls"


async def run_probe(provider: BrowserProvider, site: ProbeSite, probe: Probe, runs: Path) -> dict[str, Any]:
    read = probe.read or EXTRACT_READ.format(field=probe.field)
    tools = "tools:\n  allow: [open_url, browser_extract, browser_evaluate, browser_click, browser_verify, browser_wait, close]\n" if probe.read else ""
    check = CHECK if probe.checked else ""
    text = RECIPE.format(id=probe.id, port=site.port, middle=probe.middle, read=read, tools=tools, check=check)
    recipe, registry = load_recipe_with_registry(text, f"probe-{probe.id}.yaml")
    run_dir = runs / probe.id
    order = prepare_run(recipe, {"page_url": f"http://127.0.0.1:{site.port}/{probe.page}"}, registry=registry, run_id=probe.id, run_dir=run_dir)
    handle = start_run(order, events=EventLog(probe.id), browser=provider)
    await asyncio.wait_for(handle.task, RUN_CEILING_SECONDS)
    written = json.loads((run_dir / "verdict.json").read_text(encoding="utf-8"))
    output = json.loads((run_dir / "output.json").read_text(encoding="utf-8"))
    return {"verdict": written, "value": (output.get("data") or {}).get("quote")}


async def main(prefixes: list[str]) -> int:
    chosen = [p for p in PROBES if not prefixes or any(p.id.startswith(x) for x in prefixes)]
    with tempfile.TemporaryDirectory(prefix="probe-walls-") as tmp:
        handlers = LoggingHandlers(Path(tmp) / "logging-handlers")
        os.environ["PATH"] = f"{handlers.directory}{os.pathsep}{os.environ.get('PATH', '')}"
        browser = await launch_browser(LaunchOptions(executable_path=find_chromium(headless=False)))
        argv = Path(f"/proc/{browser.pid}/cmdline").read_bytes().decode().split("\0")
        profile = Path(next(arg for arg in argv if arg.startswith("--user-data-dir=")).partition("=")[2])
        differ = 0
        try:
            with ProbeSite() as site:
                for probe in chosen:
                    got = await run_probe(BrowserProvider(browser=browser), site, probe, Path(tmp) / "runs")
                    verdict = got["verdict"]
                    observed = (verdict.get("stop_reason"), verdict.get("blocker_kind"))
                    blocked = verdict.get("blocked_requests") or {}
                    external = [s["target"] for s in blocked.get("samples", []) if s.get("method") == "EXTERNAL_PROTOCOL"]
                    ok = observed == probe.expect and (probe.value is None or got["value"] == probe.value)
                    # An act refused before its click attempts nothing: its blocker names the URL instead.
                    attempted = probe.external and (probe.expect[0] == "completed" or "top frame" in str(verdict.get("summary", "")))
                    ok = ok and (not attempted or bool(external)) and not handlers.calls()
                    differ += not ok
                    print(f"{'held  ' if ok else 'DIFFER'} {probe.id}: expected {probe.expect} {probe.value!r}; observed {observed} {got['value']!r}; "
                          f"blocked {blocked.get('by_kind')} external={external} xdg-open={handlers.calls()} stubs={handler_attempts(profile)}")
                    if not ok:
                        print("       summary:", str(verdict.get("summary", ""))[:400])
        finally:
            await browser.close()
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(sys.argv[1:])))
