"""The run's side of the verified action cache (runtime/store/action_cache.py): the `cache` switch
says whether it is read (`use`) and written (`use`, `refresh`); what happened to each agent step
(replayed, fell back, learned, missed) is kept for the verdict.

The store is called off the event loop (one thread per call). A store that fails (a locked file,
a database gone) never fails a run: the step goes to its model as it would without a cache, and
the verdict says why.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

if TYPE_CHECKING:
    # Only a plan with an agent step has a store (runtime/cli/cache.py run_cache); the others
    # never load the store's modules.
    from runtime.store.action_cache import ActionCache, CacheEntry, CacheKey

_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalised_url(url: str) -> str:
    """The URL a cached path is keyed on: scheme and host lower-cased, a default port dropped,
    the query's parameters sorted, no fragment."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url.strip()
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    netloc = host if port is None or _DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"
    query = urlencode(sorted(parse_qsl(parts.query, keep_blank_values=True)))
    return urlunsplit((scheme, netloc, parts.path or "/", query, ""))


class RunActionCache:
    """The cache as one run uses it; `store` is None when the run has no cache at all."""

    def __init__(self, store: ActionCache | None, mode: str = "use") -> None:
        self.store = store
        self.mode = mode
        # What happened to each agent step, by state id, as the verdict reports it.
        self.steps: dict[str, dict[str, Any]] = {}

    @property
    def reads(self) -> bool:
        return self.store is not None and self.mode == "use"

    @property
    def writes(self) -> bool:
        return self.store is not None and self.mode in ("use", "refresh")

    async def find(self, state_id: str, key: CacheKey) -> CacheEntry | None:
        if not self.reads:
            return None
        assert self.store is not None
        try:
            return await asyncio.to_thread(self.store.find, key)
        except Exception as error:  # noqa: BLE001 - the cache is an optimisation: the model still answers
            self.note(state_id, store_error=f"{type(error).__name__}: {error}")
            return None

    async def remember(self, state_id: str, entry: CacheEntry) -> bool:
        """Store a verified step's path; False (and why, in the verdict) when the store fails."""
        assert self.store is not None
        try:
            await asyncio.to_thread(self.store.put, entry)
        except Exception as error:  # noqa: BLE001 - a run that verified stays verified
            self.note(state_id, store_error=f"{type(error).__name__}: {error}")
            return False
        return True

    async def replayed(self, key: CacheKey) -> None:
        assert self.store is not None
        try:
            await asyncio.to_thread(self.store.note_replay, key)
        except Exception:  # noqa: BLE001 - a replay count is not worth a failed run
            pass

    def note(self, state_id: str, **facts: Any) -> None:
        self.steps.setdefault(state_id, {}).update(facts)

    def record(self) -> dict[str, Any] | None:
        """The cache's part of verdict.json: the mode and what each agent step did with it."""
        if self.store is None and self.mode == "use":
            return None
        return {"mode": self.mode if self.store is not None else "off", "steps": json.loads(json.dumps(self.steps, default=str))}

    def fell_back(self) -> dict[str, Any]:
        """The steps whose cached path failed and went to the model: the verdict's evidence names them."""
        return {state_id: facts for state_id, facts in self.steps.items() if facts.get("outcome") == "fell_back"}
