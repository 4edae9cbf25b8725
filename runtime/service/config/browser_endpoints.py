"""The DevTools endpoints `verity serve` attaches to: `--browser-ws URL` (repeatable), an endpoints
file (`--browser-ws-file FILE`, or the config file's browser_ws / browser_ws_file), checked at
start-up with the place of each bad one.

An endpoints file holds one endpoint per line: its URL, then `id=`, `labels=` and `capacity=` if
wanted (runtime/browser/supply/endpoint_specs.py); `#` starts a comment (whole-line or after the
endpoint), and blank lines are skipped.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from runtime.browser.launch.endpoints import redact_endpoint
from runtime.browser.supply.endpoint_specs import parse_endpoint_spec
from runtime.service.config.errors import ServiceConfigError


def checked_endpoints(located: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """The endpoints of (place, endpoint) pairs, in order; a bad one, or one repeating a URL or an
    id, is refused naming its place (`FILE:LINE`, `--browser-ws`), any URL with its secrets redacted."""
    urls: dict[str, str] = {}
    ids: dict[str, str] = {}
    endpoints: list[str] = []
    for index, (where, text) in enumerate(located):
        try:
            spec = parse_endpoint_spec(text, index)
        except ValueError as error:
            raise ServiceConfigError(f"{where}: {error}") from None
        if spec.url in urls:
            raise ServiceConfigError(f"{where}: {redact_endpoint(spec.url)} is already listed at {urls[spec.url]}")
        if spec.browser_id in ids:
            raise ServiceConfigError(f"{where}: the id {spec.browser_id} is already given at {ids[spec.browser_id]}")
        urls[spec.url], ids[spec.browser_id] = where, where
        endpoints.append(" ".join(text.split()))
    return tuple(endpoints)


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
