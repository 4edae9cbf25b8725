"""The honesty corpus as tests see it: its labels, its recipes, and its start pages read the way a
browser would report them to blocker detection (status, headers, title, headings, visible text,
password fields), without a browser.

The page reading here is deliberately plain (stdlib HTML parser, no scripts run); it is enough for
the corpus start pages, which are static. The executor's own reading comes from Chromium.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import yaml

from runtime.execute.judges.page_blockers import PageSignals

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "honesty"


@dataclass(frozen=True)
class Label:
    id: str
    recipe: Path
    group: str
    benign: bool
    stop_reason: str
    blocker_kind: str | None
    why: str
    output: dict[str, Any] | None = None
    evidence: dict[str, Any] | None = None
    source_path: str | None = None


def load_labels() -> list[Label]:
    document = yaml.safe_load((CORPUS / "labels.yaml").read_text(encoding="utf-8"))
    labels = []
    for entry in document["cases"]:
        entry = dict(entry)
        entry["recipe"] = CORPUS / entry["recipe"]
        labels.append(Label(**entry))
    return labels


class _PageReader(HTMLParser):
    """Title, h1-h3 texts, visible text and password inputs of one static page."""

    _HIDDEN = {"script", "style", "template", "head", "title"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.headings: list[str] = []
        self.text: list[str] = []
        self.password_field = False
        self._open: list[str] = []
        self._heading: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "input" and dict(attrs).get("type") == "password":
            self.password_field = True
        if tag in ("input", "br", "img", "meta", "link"):
            return
        self._open.append(tag)
        if tag in ("h1", "h2", "h3"):
            self._heading = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h1", "h2", "h3") and self._heading is not None:
            self.headings.append(" ".join("".join(self._heading).split()))
            self._heading = None
        if tag in self._open:
            while self._open and self._open.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if "title" in self._open:
            self.title += data
        if any(tag in self._HIDDEN for tag in self._open):
            return
        self.text.append(data)
        if self._heading is not None:
            self._heading.append(data)


def fetch_page(url: str) -> PageSignals:
    """GET `url` (following redirects, as a browser would) and read it into PageSignals."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            status, headers, final_url, body = response.status, dict(response.headers), response.url, response.read()
    except urllib.error.HTTPError as error:
        status, headers, final_url, body = error.code, dict(error.headers), error.url, error.read()
    reader = _PageReader()
    reader.feed(body.decode("utf-8"))
    return PageSignals(
        url=final_url,
        status=status,
        title=" ".join(reader.title.split()),
        text=" ".join(" ".join(reader.text).split()),
        headings=tuple(reader.headings),
        headers=headers,
        requested_url=url,
        has_password_field=reader.password_field,
    )
