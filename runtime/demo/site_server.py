"""The bundled demo site, served on loopback for `verity demo` (and the executor's tests).

One server, two hosts, so allowed_domains matters:

- quote pages on ``http://127.0.0.1:PORT``: /quotes/<metal> (200), anything else under /quotes (404);
- the search page on ``http://localhost:PORT/search?q=...``: results link first to an unofficial
  mirror on localhost (not an allowed domain), then to the old, dead quote URL, then to the live
  quote page on 127.0.0.1;
- /status/<code> answers that HTTP status, /blocked is a captcha wall (for blocker tests).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from string import Template
from urllib.parse import parse_qs, urlsplit

from runtime.demo.loopback import LoopbackHTTPServer, LoopbackSite

PAGES = Path(__file__).parent / "site"


@dataclass(frozen=True)
class Quote:
    price: str
    as_of: str


QUOTES: dict[str, Quote] = {
    "gold": Quote("2,345.60", "2025-01-15 16:00 UTC"),
    "silver": Quote("29.84", "2025-01-15 16:00 UTC"),
    "platinum": Quote("1,012.25", "2025-01-15 16:00 UTC"),
}


def _page(page_name: str, **values: str) -> str:
    return Template((PAGES / page_name).read_text(encoding="utf-8")).safe_substitute({k: html.escape(v) for k, v in values.items()})


class _DemoHandler(BaseHTTPRequestHandler):
    server: LoopbackHTTPServer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass

    def _send(self, status: int, body: str) -> None:
        payload = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        parts = urlsplit(self.path)
        port = self.server.server_address[1]
        quote_match = re.fullmatch(r"/quotes/([a-z]+)", parts.path)
        if quote_match and quote_match.group(1) in QUOTES:
            metal = quote_match.group(1)
            quote = QUOTES[metal]
            self._send(200, _page("quote.html", name=metal, Name=metal.capitalize(), price=quote.price, as_of=quote.as_of))
        elif parts.path.startswith("/mirror/") and parts.path.removeprefix("/mirror/") in QUOTES:
            metal = parts.path.removeprefix("/mirror/")
            self._send(200, _page("mirror.html", Name=metal.capitalize(), price=QUOTES[metal].price))
        elif parts.path == "/search":
            query = parse_qs(parts.query).get("q", [""])[0]
            self._send(200, _page("search.html", query=query).replace("$results", self._results(query, port)))
        elif re.fullmatch(r"/status/[1-5]\d\d", parts.path):
            status = int(parts.path.rsplit("/", 1)[1])
            self._send(status, _page("status.html", status=str(status)))
        elif parts.path == "/blocked":
            self._send(200, _page("blocked.html"))
        else:
            self._send(404, _page("not_found.html", path=parts.path))

    @staticmethod
    def _results(query: str, port: int) -> str:
        words = set(re.findall(r"[a-z]+", query.lower()))
        metals = [m for m in QUOTES if m in words]
        if not metals:
            return "    <li>No results.</li>"
        metal = metals[0]
        links = [
            (f"http://localhost:{port}/mirror/{metal}", f"{metal.capitalize()} quote — unofficial mirror"),
            (f"http://127.0.0.1:{port}/quotes/{metal}-old", f"{metal.capitalize()} quote (archived link)"),
            (f"http://127.0.0.1:{port}/quotes/{metal}", f"{metal.capitalize()} spot quote — Demo Metals Exchange"),
        ]
        return "\n".join(f'    <li><a href="{html.escape(url)}">{html.escape(text)}</a></li>' for url, text in links)


class DemoSite(LoopbackSite):
    """`with DemoSite() as site:` serves the demo on a free loopback port until the block ends."""

    handler = _DemoHandler
    thread_name = "verity-demo-site"

    @property
    def quote_base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def search_base(self) -> str:
        return f"http://localhost:{self.port}"
