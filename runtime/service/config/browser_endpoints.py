"""The DevTools endpoints `verity serve` attaches to: `--browser-ws URL` (repeatable), an endpoints
file (`--browser-ws-file FILE`, or the config file's browser_ws / browser_ws_file), checked at
start-up with the place of each bad one.

An endpoints file holds one URL per line; `#` starts a comment (whole-line or after the URL), and
blank lines are skipped.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from runtime.browser.launch.endpoints import endpoint_problem, redact_endpoint
from runtime.service.config.errors import ServiceConfigError


def checked_endpoints(located: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """The URLs of (place, url) pairs, in order; a bad or repeated one is refused naming its place
    (`FILE:LINE`, `--browser-ws`) and the URL with its secrets redacted."""
    seen: dict[str, str] = {}
    for where, url in located:
        if problem := endpoint_problem(url):
            raise ServiceConfigError(f"{where}: {redact_endpoint(url)}: {problem}")
        if url in seen:
            raise ServiceConfigError(f"{where}: {redact_endpoint(url)} is already listed at {seen[url]}")
        seen[url] = where
    return tuple(seen)


def read_endpoints_file(path: Path) -> list[tuple[str, str]]:
    """(`FILE:LINE`, url) for each URL of an endpoints file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ServiceConfigError(f"{path}: cannot read the browser endpoints: {getattr(error, 'strerror', None) or error}") from None
    located = []
    for number, line in enumerate(text.splitlines(), start=1):
        url = line.partition("#")[0].strip()
        if url:
            located.append((f"{path}:{number}", url))
    if not located:
        raise ServiceConfigError(f"{path}: lists no browser endpoint (one ws:// URL per line, # comments)")
    return located


def endpoints_from_flags(urls: list[str] | None, file: Path | None) -> tuple[str, ...] | None:
    """`--browser-ws` (each) then `--browser-ws-file`'s lines; None when neither was given."""
    if not urls and file is None:
        return None
    located = [("--browser-ws", url) for url in urls or []]
    if file is not None:
        located += read_endpoints_file(file)
    return checked_endpoints(located)
