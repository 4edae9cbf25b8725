"""A recipe's `session`: cookies and localStorage loaded before the run and saved after it.

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
- Relative paths resolve against the recipe's directory (like `tools.registry`).

Both files are secrets. Their contents never leave this module and the browser: evidence,
events and run files get the path and counts only, and error messages name places, never values.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from runtime.browser import BrowserSession
from runtime.policy.domain_patterns import parse_domain_pattern
from runtime.policy.hosts import HostError, parse_host
from runtime.recipe import Recipe
from runtime.execute.target_check import judge_page_url

MAX_STATE_BYTES = 4 * 1024 * 1024


@dataclass
class SessionKeeper:
    """One run's session files and what it holds of them in memory: the loaded state, the state
    captured for saving (taken by the `close` step before the session ends, and again at the end
    when the session is still open), and the evidence record (counts and paths only)."""

    files: SessionFiles
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


class SessionStateError(Exception):
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


@dataclass(frozen=True)
class SessionFiles:
    """The recipe's session files, resolved; `field` names say which recipe key each came from."""

    load: Path | None = None
    save: Path | None = None

    @classmethod
    def of(cls, recipe: Recipe) -> SessionFiles:
        base = recipe.directory or Path.cwd()

        def resolve(path: str | None) -> Path | None:
            return Path(os.path.abspath(base / Path(path).expanduser())) if path else None

        return cls(resolve(recipe.session.storage_state), resolve(recipe.session.save_storage_state))

    @property
    def used(self) -> bool:
        return self.load is not None or self.save is not None


@dataclass
class LoadedState:
    """What goes into the browser: CDP cookie parameters, localStorage by origin; and counts."""

    cookies: list[dict[str, Any]] = field(default_factory=list)
    local_storage: dict[str, dict[str, str]] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)


def read_storage_state(path: Path, allowed_domains: list[str]) -> LoadedState:
    """Read, check and filter `session.storage_state`. Raises SessionStateError."""
    where = f"session.storage_state: {path}"
    try:
        if path.stat().st_size > MAX_STATE_BYTES:
            raise SessionStateError(f"{where}: the file is larger than {MAX_STATE_BYTES} bytes")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SessionStateError(f"{where}: no such file (a recipe with session.save_storage_state writes one)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise SessionStateError(f"{where}: cannot read the file: {getattr(error, 'strerror', None) or type(error).__name__}") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise SessionStateError(f"{where}:{error.lineno}:{error.colno}: not JSON: {error.msg}") from None
    try:
        state = StorageStateFile.model_validate(raw)
    except ValidationError as error:
        # loc and msg only: pydantic's full text would quote the (secret) input.
        problems = "; ".join(f"{_loc(item['loc'])}: {item['msg']}" for item in error.errors(include_url=False, include_input=False))
        raise SessionStateError(f"{where}: not a storage state ({{cookies: [...], origins: [...]}}): {problems}") from None
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
