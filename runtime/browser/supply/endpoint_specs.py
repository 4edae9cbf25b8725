"""How an operator names the browsers of a server, and how a run and a client refer to them.

    spec = parse_endpoint_spec("ws://10.0.0.5:9222/devtools/browser/A id=eu-1 labels=eu,gpu capacity=2", 0)
    BrowserPin(label="gpu").matches(spec.browser_id, spec.labels)        # True

An endpoint of `--browser-ws` (a flag, a line of the endpoints file, an entry of the config file's
`browser_ws`) is its DevTools URL, optionally followed by `id=NAME`, `labels=A,B` and
`capacity=N` (the most runs it hosts at once; 0, the default, sets no limit of its own). Without
`id=` an endpoint is `browser-N`, its place in the pool; the Chromium a server launches is `local`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from runtime.browser.launch.endpoints import endpoint_problem, redact_endpoint

LOCAL_BROWSER_ID = "local"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
_KEYS = ("id", "labels", "capacity")


@dataclass(frozen=True)
class EndpointSpec:
    url: str
    browser_id: str
    labels: tuple[str, ...] = ()
    capacity: int = 0  # 0: no limit of its own


def default_browser_id(index: int) -> str:
    return f"browser-{index + 1}"


def parse_endpoint_spec(text: str, index: int) -> EndpointSpec:
    """The endpoint `text` names, `index` its place in the pool. Raises ValueError saying what is
    wrong (the URL in it redacted)."""
    words = text.split()
    if not words:
        raise ValueError("an empty endpoint (a ws:// URL, then id=, labels=, capacity= if wanted)")
    url, *options = words
    if problem := endpoint_problem(url):
        raise ValueError(f"{redact_endpoint(url)}: {problem}")
    values: dict[str, str] = {}
    for option in options:
        key, equals, value = option.partition("=")
        if not equals or key not in _KEYS:
            raise ValueError(f"{redact_endpoint(url)}: {option!r} is not one of id=NAME, labels=A,B, capacity=N")
        if key in values:
            raise ValueError(f"{redact_endpoint(url)}: {key}= is given twice")
        values[key] = value
    browser_id = values.get("id", default_browser_id(index))
    labels = tuple(label for label in values.get("labels", "").split(",") if label)
    for name in (browser_id, *labels):
        if not _NAME.match(name):
            raise ValueError(f"{redact_endpoint(url)}: {name!r} is no id or label (letters, digits, '.', '_', '-'; at most 63)")
    capacity_text = values.get("capacity", "0")
    if not capacity_text.isdigit():
        raise ValueError(f"{redact_endpoint(url)}: capacity={capacity_text} is not a whole number of runs (0: no limit)")
    return EndpointSpec(url=url, browser_id=browser_id, labels=labels, capacity=int(capacity_text))


def parse_endpoint_specs(texts: tuple[str, ...] | list[str]) -> list[EndpointSpec]:
    """Every endpoint of a pool, in order; a URL or an id given twice is refused (ValueError)."""
    specs = [parse_endpoint_spec(text, index) for index, text in enumerate(texts)]
    for kind, keys in (("URL", [s.url for s in specs]), ("id", [s.browser_id for s in specs])):
        repeated = next((key for n, key in enumerate(keys) if key in keys[:n]), None)
        if repeated is not None:
            shown = redact_endpoint(repeated) if kind == "URL" else repeated
            raise ValueError(f"the {kind} {shown} is given to two endpoints")
    return specs


@dataclass(frozen=True)
class BrowserPin:
    """A run's say over its browser (RunOptions.browser_id / browser_label): either, both or none."""

    browser_id: str = ""
    label: str = ""

    def __bool__(self) -> bool:
        return bool(self.browser_id or self.label)

    def matches(self, browser_id: str, labels: tuple[str, ...]) -> bool:
        return (not self.browser_id or self.browser_id == browser_id) and (not self.label or self.label in labels)

    def __str__(self) -> str:
        said = [f"id {self.browser_id!r}"] if self.browser_id else []
        said += [f"label {self.label!r}"] if self.label else []
        return " and ".join(said)


class BrowserState(str, Enum):
    READY = "ready"
    BUSY = "busy"
    LOST = "lost"
    REFUSED_BY_FENCE_PROBE = "refused_by_fence_probe"


@dataclass(frozen=True)
class BrowserDescription:
    """One browser as ListBrowsers shows it."""

    browser_id: str
    labels: tuple[str, ...]
    state: BrowserState
    active_runs: int
    capacity: int
    endpoint: str = ""  # redacted DevTools URL; "" for a launched Chromium
