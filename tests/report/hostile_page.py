"""A loopback page whose every readable part is hostile to an HTML report, and the recipe that
reads it. The page's own markup is harmless to the run; what matters is the text it yields:
document.title is RCDATA, so the title's tags are its text, and the body shows escaped tags."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

from runtime.demo.loopback import LoopbackSite

TITLE_TEXT = '<script>window.__reportPwned = "title"</script> Harbour report'
HEADLINE_TEXT = "Harbour <img src=x onerror=\"window.__reportPwned='headline'\"> news"
BODY_TEXT = (
    "The harbour opened at dawn. </td></tr></table></pre><script>window.__reportPwned = 'body'</script> "
    "<a href=\"javascript:window.__reportPwned='link'\">more</a>"
)

PAGE = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>{TITLE_TEXT}</title></head>
<body>
<h1 id="headline">{HEADLINE_TEXT.replace("<", "&lt;").replace(">", "&gt;")}</h1>
<p id="body">{BODY_TEXT.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")}</p>
</body></html>
"""

RECIPE = """\
name: hostile-report
version: "1"
goal: 用浏览器 read the harbour news
inputs:
  site:
    type: string
target:
  start_url: "{site}/hostile.html"
  allowed_domains: ["127.0.0.1"]
  validation_keywords: ["harbour"]
plan:
  - id: open
    navigate: "{start_url}"
  - id: read
    extract:
      fields:
        headline:
          css: "#headline"
        body:
          css: "#body"
  - id: check
    verify:
      - field_present: headline
  - id: done
    close:
      summary: read the harbour news
"""


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        payload = PAGE.encode("utf-8")
        self.send_response(200 if self.path.startswith("/hostile.html") else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class HostileSite(LoopbackSite):
    handler = _Handler
    thread_name = "hostile-report-site"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"
