"""A recipe's storage state (its `session:` section): cookies and localStorage loaded before the
run and saved after it. (Not the browser session, which holds them while the run goes on.)

The file is Playwright's storageState JSON, which users already have::

    {"cookies": [{"name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite"}],
     "origins": [{"origin": "https://example.com", "localStorage": [{"name", "value"}]}]}

- `session.storage_state` is read and checked before the browser starts: a missing, unreadable or
  malformed file stops the run (`invalid_input`) naming the field, the file and the place in it.
- The domain policy applies to every cookie and origin: a cookie whose domain `allowed_domains`
  does not admit (a `.example.com` cookie counts for `*.example.com` too) and an origin it does
  not admit are neither loaded nor saved; how many were left out is in the evidence.
- `session.save_storage_state` is written when the run completed (a failed login must not replace
  a good session), atomically, created owner-only (0600).
- Relative paths resolve against the recipe's directory (like `tools.registry`), when the run's
  order is prepared (runtime/plan/order.py).

Both files are secrets. Their contents never leave this module and the browser: evidence,
events and run files get the path and counts only, and error messages name places, never values.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from runtime.browser import BrowserSession
from runtime.events import EventLog, ToolUsed
from runtime.execute.step_outcome import RunStopped
from runtime.execute.judges.target_check import judge_page_url
from runtime.outcomes import StopReason
from runtime.plan.order import StorageStateFiles
from runtime.policy.domain_patterns import parse_domain_pattern
from runtime.policy.hosts import HostError, parse_host

MAX_STATE_BYTES = 4 * 1024 * 1024


@dataclass
class StorageStateKeeper:
    """One run's storage-state files and what it holds of them in memory: the loaded state, the
    state captured for saving (taken by the `close` step before the session ends, and again at
    the end when the session is still open), and the evidence record (counts and paths only)."""

    files: StorageStateFiles
    allowed_domains: list[str]
    loaded: LoadedState | None = None
    captured: tuple[list[dict[str, Any]], dict[str, dict[str, str]]] | None = None
    capture_error: str = ""
    record: dict[str, Any] = field(default_factory=dict)

    async def capture(self, session: BrowserSession) -> None:
        """Take the session's cookies and localStorage now, when they are to be saved."""
        if self.files.save is None or session.stopped:
            return
        try:
            self.captured = (await session.storage.cookies(), await session.storage.local_storage())
        except Exception as error:  # noqa: BLE001 - the browser went away; its text may quote a cookie
            self.capture_error = f"the browser could not give its state ({type(error).__name__})"

    def read(self) -> None:
        """Read the file to load, before the browser starts: a file that cannot be used is the
        run's input error (invalid_input)."""
        if self.files.load is not None:
            try:
                self.loaded = read_storage_state(self.files.load, self.allowed_domains)
            except StorageStateError as error:
                raise RunStopped(StopReason.INVALID_INPUT, str(error)) from None

    async def load_into(self, session: BrowserSession, events: EventLog, action_id: str) -> None:
        """Follow localStorage from the first document on, and load the file's state into the
        fresh context; the evidence is counts and the path, never a value."""
        loaded = self.loaded
        try:
            await session.storage.follow(loaded.local_storage if loaded else {})
            if loaded is not None:
                await session.storage.set_cookies(loaded.cookies)
        except Exception as error:  # noqa: BLE001 - a CDP refusal; its text may quote a cookie, so only its type
            events.emit(ToolUsed(tool="session.storage_state", action_id=action_id, phase="error", summary=type(error).__name__, error_code="load_failed"))
            raise RunStopped(StopReason.EXECUTE_ERROR, f"the browser refused the session state ({type(error).__name__})") from None
        if loaded is not None:
            self.record["loaded"] = counts = loaded.evidence
            events.emit(
                ToolUsed(
                    tool="session.storage_state",
                    action_id=action_id,
                    phase="success",
                    summary=(
                        f"loaded {counts['cookies_loaded']} cookie(s) and localStorage of {counts['origins_loaded']} origin(s) from {counts['file']}; "
                        f"left out {counts['cookies_outside_allowed_domains']} cookie(s) and {counts['origins_outside_allowed_domains']} origin(s) outside allowed_domains"
                    ),
                )
            )

    async def save(self, ended: StopReason, session: BrowserSession | None, events: EventLog, new_action_id: Callable[[str], str]) -> str | None:
        """Write session.save_storage_state when the run completed: from the live session, else
        from what the close step captured before it ended the session. What went wrong, or None."""
        path = self.files.save
        assert path is not None
        record = self.record
        if ended is not StopReason.COMPLETED:
            record["saved"] = {"file": str(path), "written": False, "reason": f"the run ended {ended.value}; the session is saved only by a completed run"}
            return None
        if session is not None and not session.stopped:
            await self.capture(session)
        action_id = new_action_id("session_state")

        def failed(detail: str) -> str:
            record["saved"] = {"file": str(path), "written": False, "reason": detail}
            events.emit(ToolUsed(tool="session.save_storage_state", action_id=action_id, phase="error", summary=detail, error_code="save_failed"))
            return detail

        if self.captured is None:
            return failed(f"session.save_storage_state: {path}: {self.capture_error or 'the run opened no browser session to save'}")
        try:
            saved = write_storage_state(path, *self.captured, self.allowed_domains)
        except OSError as error:
            return failed(f"session.save_storage_state: {path}: cannot write the file: {error.strerror or type(error).__name__}")
        finally:
            self.captured = None  # the values are written (or not); the run keeps none of them
        record["saved"] = {**saved, "written": True}
        events.emit(
            ToolUsed(
                tool="session.save_storage_state",
                action_id=action_id,
                phase="success",
                summary=(
                    f"saved {saved['cookies_saved']} cookie(s) and localStorage of {saved['origins_saved']} origin(s) to {saved['file']} (0600); "
                    f"left out {saved['cookies_outside_allowed_domains']} cookie(s) and {saved['origins_outside_allowed_domains']} origin(s) outside allowed_domains"
                ),
            )
        )
        return None


class StorageStateError(Exception):
    """A storage-state file that cannot be used; the message names the field, file and place."""


class _FileModel(BaseModel):
    # Playwright adds fields over time (partitionKey ...): unknown ones are ignored, not errors.
    model_config = ConfigDict(extra="ignore")


class StoredCookie(_FileModel):
    name: str
    value: str
    domain: str = Field(min_length=1)
    path: str = "/"
    expires: float = -1
    httpOnly: bool = False  # noqa: N815 - Playwright's key
    secure: bool = False
    sameSite: Literal["Strict", "Lax", "None"] | None = None  # noqa: N815 - Playwright's key


class StoredEntry(_FileModel):
    name: str
    value: str


class StoredOrigin(_FileModel):
    origin: str = Field(min_length=1)
    localStorage: list[StoredEntry] = Field(default_factory=list)  # noqa: N815 - Playwright's key


class StorageStateFile(_FileModel):
    cookies: list[StoredCookie] = Field(default_factory=list)
    origins: list[StoredOrigin] = Field(default_factory=list)


@dataclass
class LoadedState:
    """What goes into the browser: CDP cookie parameters, localStorage by origin; and counts."""

    cookies: list[dict[str, Any]] = field(default_factory=list)
    local_storage: dict[str, dict[str, str]] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)


def read_storage_state(path: Path, allowed_domains: list[str]) -> LoadedState:
    """Read, check and filter `session.storage_state`. Raises StorageStateError."""
    where = f"session.storage_state: {path}"
    try:
        if path.stat().st_size > MAX_STATE_BYTES:
            raise StorageStateError(f"{where}: the file is larger than {MAX_STATE_BYTES} bytes")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StorageStateError(f"{where}: no such file (a recipe with session.save_storage_state writes one)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise StorageStateError(f"{where}: cannot read the file: {getattr(error, 'strerror', None) or type(error).__name__}") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise StorageStateError(f"{where}:{error.lineno}:{error.colno}: not JSON: {error.msg}") from None
    try:
        state = StorageStateFile.model_validate(raw)
    except ValidationError as error:
        # loc and msg only: pydantic's full text would quote the (secret) input.
        problems = "; ".join(f"{_loc(item['loc'])}: {item['msg']}" for item in error.errors(include_url=False, include_input=False))
        raise StorageStateError(f"{where}: not a storage state ({{cookies: [...], origins: [...]}}): {problems}") from None
    loaded = LoadedState()
    for cookie in state.cookies:
        if cookie_allowed(cookie.domain, allowed_domains):
            loaded.cookies.append(_cookie_param(cookie))
    for stored in state.origins:
        if origin_allowed(stored.origin, allowed_domains):
            loaded.local_storage.setdefault(stored.origin.rstrip("/"), {}).update({e.name: e.value for e in stored.localStorage})
    loaded.evidence = {
        "file": str(path),
        "cookies_loaded": len(loaded.cookies),
        "cookies_outside_allowed_domains": len(state.cookies) - len(loaded.cookies),
        "origins_loaded": len(loaded.local_storage),
        "origins_outside_allowed_domains": len(state.origins) - sum(1 for o in state.origins if origin_allowed(o.origin, allowed_domains)),
        "local_storage_entries_loaded": sum(len(entries) for entries in loaded.local_storage.values()),
    }
    return loaded


def write_storage_state(path: Path, cookies: list[dict[str, Any]], local_storage: dict[str, dict[str, str]], allowed_domains: list[str]) -> dict[str, Any]:
    """Write `session.save_storage_state` (CDP cookies, localStorage by origin), owner-only and
    atomically; the evidence (counts and the path). Raises OSError."""
    kept = [_stored_cookie(c) for c in cookies if cookie_allowed(str(c.get("domain", "")), allowed_domains)]
    origins = [
        {"origin": origin, "localStorage": [{"name": k, "value": v} for k, v in entries.items()]}
        for origin, entries in sorted(local_storage.items())
        if entries and origin_allowed(origin, allowed_domains)
    ]
    document = json.dumps({"cookies": kept, "origins": origins}, ensure_ascii=False, indent=2)
    path.parent.mkdir(parents=True, exist_ok=True)
    # mkstemp creates the file 0600; the rename keeps that mode whatever the old file had.
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(document)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    non_empty = sum(1 for entries in local_storage.values() if entries)
    return {
        "file": str(path),
        "cookies_saved": len(kept),
        "cookies_outside_allowed_domains": len(cookies) - len(kept),
        "origins_saved": len(origins),
        "origins_outside_allowed_domains": non_empty - len(origins),
        "local_storage_entries_saved": sum(len(o["localStorage"]) for o in origins),
    }


def cookie_allowed(domain: str, allowed_domains: list[str]) -> bool:
    """Does `allowed_domains` admit the cookie's host? A cookie goes to every port of its host, so
    ports are not compared; a domain cookie (`.example.com`) also counts for `*.example.com`."""
    if not allowed_domains:
        return True
    try:
        host = parse_host(domain.lstrip("."))
    except HostError:
        return False
    for text in allowed_domains:
        pattern = parse_domain_pattern(text)
        if pattern.matches(host, pattern.port or 0) or (pattern.wildcard and pattern.host.bare == host.bare):
            return True
    return False


def origin_allowed(origin: str, allowed_domains: list[str]) -> bool:
    return judge_page_url(origin.rstrip("/") + "/", allowed_domains).allowed


def _cookie_param(cookie: StoredCookie) -> dict[str, Any]:
    param: dict[str, Any] = {"name": cookie.name, "value": cookie.value, "domain": cookie.domain, "path": cookie.path, "httpOnly": cookie.httpOnly, "secure": cookie.secure}
    if cookie.expires > 0:
        param["expires"] = cookie.expires
    if cookie.sameSite is not None:
        param["sameSite"] = cookie.sameSite
    return param


def _stored_cookie(cookie: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": cookie.get("name", ""),
        "value": cookie.get("value", ""),
        "domain": cookie.get("domain", ""),
        "path": cookie.get("path", "/"),
        "expires": -1 if cookie.get("session") else cookie.get("expires", -1),
        "httpOnly": bool(cookie.get("httpOnly")),
        "secure": bool(cookie.get("secure")),
        "sameSite": cookie.get("sameSite", "Lax"),
    }


def _loc(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(the document)"
