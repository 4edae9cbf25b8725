"""Building the documentation site as CI would, and reading what the built pages would load."""

from __future__ import annotations

import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

from ruamel.yaml import YAML

# Tags that make a browser fetch, and the attribute naming what. <a href> is a link a reader may
# follow, not a load, so it is not here.
_LOADING_ATTRIBUTES = {
    "script": "src",
    "img": "src",
    "iframe": "src",
    "source": "src",
    "video": "src",
    "audio": "src",
    "embed": "src",
    "track": "src",
    "object": "data",
}
_LOADING_RELS = {"stylesheet", "preload", "modulepreload", "prefetch", "preconnect", "dns-prefetch", "icon", "manifest"}


def build_site(config: Path, site_dir: Path, *, without_network: bool) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict`; without_network runs it in a network namespace of its own (root)."""
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(site_dir)]
    if without_network:
        # A fresh namespace has only a loopback that is down: any fetch fails, and so does the build.
        command = ["unshare", "--net", "--", *command]
    # Material prints a notice about its successor on every build; it is not a warning of ours.
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=environment, cwd=config.parent)


def nav_pages(config: Path) -> list[str]:
    """Every page the nav lists, as paths under docs_dir."""
    nav = YAML(typ="safe", pure=True).load(config.read_text(encoding="utf-8"))["nav"]
    pages: list[str] = []

    def walk(entries: list) -> None:
        for entry in entries:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            if isinstance(value, list):
                walk(value)
            else:
                pages.append(value)

    walk(nav)
    return pages


def built_page(site_dir: Path, page: str) -> Path:
    """Where MkDocs writes a page with directory URLs: index.md -> index.html, a.md -> a/index.html."""
    stem = page.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        return site_dir / f"{stem}.html"
    return site_dir / stem / "index.html"


class _Loads(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.outside: list[str] = []
        self.diagram_classes = 0
        self._inline: str | None = None  # inside a <style> or <script> element

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag in ("style", "script"):
            self._inline = tag
        if "mermaid" in values.get("class", "").split():
            # Material's script fetches a renderer from a CDN for such an element.
            self.diagram_classes += 1
        if tag == "link" and _LOADING_RELS & set(values.get("rel", "").lower().split()):
            self._note(tag, values.get("href", ""))
        elif tag in _LOADING_ATTRIBUTES:
            self._note(tag, values.get(_LOADING_ATTRIBUTES[tag], ""))
            self._note(tag, values.get("srcset", ""))
        if "url(" in values.get("style", ""):
            self._note(f"{tag} style", values["style"])

    def handle_endtag(self, tag: str) -> None:
        if tag == self._inline:
            self._inline = None

    def handle_data(self, data: str) -> None:
        # Page text may well mention url() and a URL; only inline styles and scripts load anything.
        if self._inline is not None and ("@import" in data or "url(" in data or "import(" in data):
            self._note(f"inline {self._inline}", data)

    def _note(self, where: str, reference: str) -> None:
        if "//" in reference:
            self.outside.append(f"{where}: {reference.strip()[:160]}")


def outside_loads(site_dir: Path) -> list[str]:
    """Each load a built page would make from another host (and each CDN-rendered diagram)."""
    found = []
    for page in sorted(site_dir.rglob("*.html")):
        reader = _Loads()
        reader.feed(page.read_text(encoding="utf-8"))
        found.extend(f"{page.relative_to(site_dir)}: {load}" for load in reader.outside)
        if reader.diagram_classes:
            found.append(f"{page.relative_to(site_dir)}: {reader.diagram_classes} diagram(s) a CDN script would render")
    return found
