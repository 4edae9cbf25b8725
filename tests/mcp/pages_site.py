"""A loopback site of fixed pages for the MCP browser tests: `pages` (path -> HTML) on
127.0.0.1 (and, as another origin, localhost); any other path is a 404 page. `paths` holds the
path of every request it got."""

from __future__ import annotations

from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler

from runtime.demo.loopback import LoopbackSite

NOT_FOUND_PAGE = "<!doctype html><title>Not found</title><h1>Not found</h1>"


class PagesSite(LoopbackSite):
    def __init__(self, pages: Mapping[str, str], thread_name: str) -> None:
        self.paths: list[str] = []
        self.thread_name = thread_name
        site = self

        class Page(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
                pass

            def do_GET(self) -> None:  # noqa: N802 - stdlib name
                site.paths.append(self.path)
                payload = pages.get(self.path, NOT_FOUND_PAGE).encode("utf-8")
                self.send_response(200 if self.path in pages else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        super().__init__(handler=Page)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"
