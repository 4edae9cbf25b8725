"""A run's secrets and the one authority that keeps them out of everything a run leaves behind.

    secrets = Secrets()
    secrets.add("api_key", "SK-LIVE-...")       # a marked input, an @env: input, a password typed
    secrets.redact("value '' -> 'SK-LIVE-...'")  # "value '' -> '«secret:api_key»'"
    secrets.reveal("«secret:api_key»")           # the value itself: only where it is typed

Redaction replaces a value wherever it appears (whole or inside a longer text) by its marker
`«secret:name»`: never the value, a prefix of it or its length. It is applied at the boundaries
where evidence is written (the event log before it fans out, the run files, span attributes, the
model gateway's outgoing requests, log records), not by each writer.

Log records: `install_log_redaction()` puts a record factory in front of Python's logging that
rewrites every record's message with the secrets of every run alive in the process, so a record
logged at any level, by any library (a CDP message at DEBUG), never carries a value.

Inputs from the environment: `@env:NAME` as an input value means "read NAME from the
environment"; such inputs are secret (see `read_env_inputs`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import threading
import weakref
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, quote_plus

MARK_OPEN, MARK_CLOSE = "«secret:", "»"
ENV_PREFIX = "@env:"
# A password typed that is no input's value is named this in its marker.
PASSWORD_NAME = "password"
# A number (not a text) is compared with the secrets only from this many characters on.
MIN_NUMBER_DIGITS = 4
_MARKER = re.compile(re.escape(MARK_OPEN) + r"([A-Za-z0-9_.-]+)" + re.escape(MARK_CLOSE))


def marker(name: str) -> str:
    return f"{MARK_OPEN}{name}{MARK_CLOSE}"


class Secrets:
    """One run's secret values by name. Thread-safe: the event log may emit from worker threads."""

    def __init__(self) -> None:
        self._by_name: dict[str, str] = {}
        self._forms: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        # Longest first, so a secret containing another is replaced whole.
        self._ordered: tuple[tuple[str, str], ...] = ()
        _LIVE.add(self)

    def __bool__(self) -> bool:
        return bool(self._ordered)

    def __repr__(self) -> str:  # never the values
        return f"Secrets(names={sorted(self._by_name)})"

    def add(self, name: str, value: Any) -> str:
        """Register `value` as secret; returns the name its marker uses. A value already known
        keeps its first name; an empty value is nothing to hide."""
        text = "" if value is None else str(value)
        if not text:
            return name
        with self._lock:
            for known_name, known in self._by_name.items():
                if known == text:
                    return known_name
            unique, n = name, 1
            while unique in self._by_name:
                n += 1
                unique = f"{name}_{n}"
            self._by_name[unique] = text
            # The value as JSON writes it inside a string too (once and twice escaped: a CDP
            # message logged inside another), so quotes or non-ASCII in it cannot slip past.
            forms = [(unique, form) for form in _escaped_forms(text)]
            self._forms.extend(forms)
            self._ordered = tuple(sorted(self._forms, key=lambda item: -len(item[1])))
            return unique

    def name_of(self, value: str) -> str | None:
        return next((name for name, known in self._by_name.items() if known == value), None)

    def values(self) -> tuple[str, ...]:
        """The values themselves, for the one place that must find them on a page (a screenshot
        covers them); never for writing anywhere."""
        return tuple(self._by_name.values())

    @property
    def names(self) -> list[str]:
        return sorted(self._by_name)

    def placeholders(self) -> list[str]:
        """The markers a model may write in place of the values (agent_step tells it these)."""
        return [marker(name) for name in self.names]

    def redact_text(self, text: str) -> str:
        for name, value in self._ordered:
            if value in text:
                text = text.replace(value, marker(name))
        return text

    def redact(self, value: Any) -> Any:
        """`value` with every secret replaced by its marker: texts, dict keys and values, lists,
        tuples and dataclasses, recursively. Unchanged objects are returned as they are."""
        if not self._ordered:
            return value
        return self._redact(value)

    def _redact(self, value: Any) -> Any:
        if isinstance(value, str):
            redacted = self.redact_text(value)
            return value if redacted == value else redacted
        if isinstance(value, (int, float)) and not isinstance(value, bool) and len(str(value)) >= MIN_NUMBER_DIGITS:
            # A number read from the page (an integer field) that is a secret's value. Shorter
            # numbers are counters and indexes far more often than secrets: they stay numbers.
            name = self.name_of(str(value))
            return value if name is None else marker(name)
        if isinstance(value, dict):
            return {self._redact(k) if isinstance(k, str) else k: self._redact(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._redact(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self._redact(v) for v in value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {}
            for f in dataclasses.fields(value):
                if not f.init:
                    continue
                current = getattr(value, f.name)
                redacted = self._redact(current)
                if redacted is not current:
                    changes[f.name] = redacted
            return dataclasses.replace(value, **changes) if changes else value
        return value

    def contains(self, text: str) -> bool:
        return any(value in text for _, value in self._ordered)

    def reveal(self, text: str) -> str:
        """The markers in `text` replaced by their values: only where a value is used for real
        (typed into a field). Unknown markers stay as they are."""

        def value_of(match: re.Match[str]) -> str:
            return self._by_name.get(match.group(1), match.group(0))

        return _MARKER.sub(value_of, text)

    def close(self) -> None:
        """Leave the process-wide set (logs stop redacting this run's values)."""
        _LIVE.discard(self)


# The characters each way of writing a value into a URL leaves as they are: RFC 3986's unreserved
# set (Python's quote), encodeURIComponent's, and the form encoding of a GET form, URLSearchParams
# and sendBeacon's bodies (where a space is also '+').
_URL_SAFE = ("", "!'()*", "*")


def _escaped_forms(text: str) -> list[str]:
    forms = {text}
    for ascii_only in (False, True):
        once = json.dumps(text, ensure_ascii=ascii_only)[1:-1]
        forms |= {once, json.dumps(once, ensure_ascii=ascii_only)[1:-1]}
    # The value inside a URL or a form body, percent-encoded as a browser or a script writes it
    # (upper-case hex; lower-case too, as some scripts write it): a refused URL in an event, a
    # request body in the evidence (SECRET-007).
    for safe in _URL_SAFE:
        for plain in (quote(text, safe=safe), quote_plus(text, safe=safe)):
            # A browser's form encoding writes '~' as %7E; Python's quote never does.
            for encoded in {plain, plain.replace("~", "%7E")}:
                forms |= {encoded, re.sub(r"%[0-9A-F]{2}", lambda pair: pair.group(0).lower(), encoded)}
    return sorted(forms)


# Every run's registry alive in this process: log records are redacted with all of them.
_LIVE: weakref.WeakSet[Secrets] = weakref.WeakSet()


def redact_everywhere(text: str) -> str:
    for secrets in list(_LIVE):
        if secrets:
            text = secrets.redact_text(text)
    return text


_installed = False
_install_lock = threading.Lock()


def install_log_redaction() -> None:
    """Wrap logging's record factory once per process (see the module docstring)."""
    global _installed
    with _install_lock:
        if _installed:
            return
        previous = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            if not any(_LIVE):
                return record
            try:
                message = record.getMessage()
            except Exception:  # noqa: BLE001 - a malformed record is logging's to report, as before
                return record
            redacted = redact_everywhere(message)
            if redacted != message:
                record.msg, record.args = redacted, None
            if record.exc_info and record.exc_info[1] is not None:
                record.exc_text = redact_everywhere(logging.Formatter().formatException(record.exc_info))
            return record

        logging.setLogRecordFactory(factory)
        _installed = True


class EnvInputError(ValueError):
    """An `@env:` input whose variable is not set (or not allowed): names the variable only."""

    def __init__(self, input_name: str, message: str) -> None:
        super().__init__(message)
        self.input_name = input_name


def env_input_names(raw: Mapping[str, Any]) -> set[str]:
    """The inputs given as `@env:NAME`."""
    return {name for name, value in raw.items() if isinstance(value, str) and value.startswith(ENV_PREFIX)}


def read_env_inputs(raw: Mapping[str, Any], environ: Mapping[str, str], allowed_prefix: str = "") -> tuple[dict[str, Any], list[EnvInputError]]:
    """`raw` with each `@env:NAME` value read from `environ`, and the problems (a variable that
    is not set, or outside `allowed_prefix` when one is given)."""
    values: dict[str, Any] = dict(raw)
    problems: list[EnvInputError] = []
    for name in sorted(env_input_names(raw)):
        variable = str(raw[name])[len(ENV_PREFIX):]
        if not variable:
            problems.append(EnvInputError(name, f"{raw[name]!r} names no environment variable (write @env:NAME)"))
        elif allowed_prefix and not variable.startswith(allowed_prefix):
            problems.append(EnvInputError(name, f"environment variable {variable} may not be read here: only variables named {allowed_prefix}*"))
        elif variable not in environ:
            problems.append(EnvInputError(name, f"environment variable {variable} is not set"))
        else:
            values[name] = environ[variable]
    return values, problems
