"""`verity cache list|show|clear`: the verified action cache in a run store (runtime/store/action_cache.py),
and where `verity run` keeps it.

`verity run` uses the store `VERITY_ACTION_CACHE` names (a SQLite file or a postgresql:// URL), by
default `.verity/verity.db`, the file `verity serve` keeps its runs in, so a local server and the
CLI share what they learned; `VERITY_ACTION_CACHE=off` runs without a cache.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from datetime import datetime, timezone

from runtime.store.action_cache import ActionCache
from runtime.store.opening import open_action_cache
from runtime.store.interface import StoreError
from runtime.store.location import parse_store_location, store_location_problem

CACHE_VARIABLE = "VERITY_ACTION_CACHE"
DEFAULT_CACHE_STORE = ".verity/verity.db"
EXIT_INVALID = 3


def run_cache(environ: Mapping[str, str] | None = None) -> ActionCache | None:
    """The action cache `verity run` uses for a plan with an agent step, or None when it is off or
    cannot be opened (said on stderr: a run goes on without a cache, every agent step asking its
    model). A plan without an agent step has nothing to replay or learn: `verity run` does not
    ask (runtime/cli/run_recipe.py), so no store is opened for it and no file made."""
    named = _named_store(None, os.environ if environ is None else environ)
    if named is None:
        return None
    try:
        return _open(named)
    except StoreError as error:
        print(f"verity: running without the action cache: {error}", file=sys.stderr)
        return None


def register(commands: argparse._SubParsersAction) -> None:
    cache = commands.add_parser("cache", help="list, show and clear the verified action cache")
    cache.add_argument("--store", default=None, metavar="STORE", help=f"the run store holding it: a SQLite file or postgresql:// URL (default ${CACHE_VARIABLE}, else {DEFAULT_CACHE_STORE})")
    actions = cache.add_subparsers(dest="cache_command", metavar="ACTION")
    cache.set_defaults(handler=lambda _args: cache.print_help() or 2)

    listing = actions.add_parser("list", help="one line per cached agent step: key, recipe, step, start URL, steps, replays")
    listing.add_argument("--recipe", metavar="NAME", help="only this recipe's entries")
    listing.add_argument("--json", action="store_true", help="print JSON instead of text")
    listing.set_defaults(handler=_list)

    show = actions.add_parser("show", help="one entry in full: its key's parts and the steps it replays")
    show.add_argument("key", metavar="KEY", help="the entry's key (or a unique prefix of it)")
    show.set_defaults(handler=_show)

    clear = actions.add_parser("clear", help="delete entries: all, one recipe's, or one key's")
    clear.add_argument("key", nargs="?", metavar="KEY", help="only the entry with this key (or prefix)")
    clear.add_argument("--recipe", metavar="NAME", help="only this recipe's entries")
    clear.set_defaults(handler=_clear)


def _open(named: str) -> ActionCache:
    if problem := store_location_problem(named):
        raise StoreError(problem)
    return open_action_cache(parse_store_location(named))


def _named_store(given: str | None, environ: Mapping[str, str]) -> str | None:
    """The store the cache is in: `given`, else $VERITY_ACTION_CACHE, else the default; None
    when that says `off`."""
    named = given or environ.get(CACHE_VARIABLE, "").strip() or DEFAULT_CACHE_STORE
    return None if named.lower() == "off" else named


def _cache_of(args: argparse.Namespace) -> ActionCache | None:
    named = _named_store(args.store, os.environ)
    if named is None:
        print(f"verity: {CACHE_VARIABLE}=off: no action cache is in use; give --store", file=sys.stderr)
        return None
    try:
        return _open(named)
    except StoreError as error:
        print(f"verity: {error}", file=sys.stderr)
        return None


def _list(args: argparse.Namespace) -> int:
    cache = _cache_of(args)
    if cache is None:
        return EXIT_INVALID
    try:
        entries = cache.entries(args.recipe)
    finally:
        cache.close()
    if args.json:
        print(json.dumps([{k: v for k, v in e.to_data().items() if k != "steps"} | {"steps": len(e.steps)} for e in entries], ensure_ascii=False, indent=2))
        return 0
    if not entries:
        print("the action cache is empty")
    for e in entries:
        stored = datetime.fromtimestamp(e.stored_ns / 1e9, timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")
        print(f"{e.key.digest}  {e.key.recipe}/{e.key.step}  {e.key.start_url}  {len(e.steps)} step(s)  {e.replays} replay(s)  learned {stored} in {e.run_id}")
    return 0


def _show(args: argparse.Namespace) -> int:
    cache = _cache_of(args)
    if cache is None:
        return EXIT_INVALID
    try:
        found = cache.entry(args.key)
    finally:
        cache.close()
    if len(found) != 1:
        print(f"verity: {'no' if not found else len(found)} cache entr{'y' if len(found) == 1 else 'ies'} match {args.key!r}; `verity cache list` shows the keys", file=sys.stderr)
        return EXIT_INVALID
    print(json.dumps(found[0].to_data(), ensure_ascii=False, indent=2))
    return 0


def _clear(args: argparse.Namespace) -> int:
    cache = _cache_of(args)
    if cache is None:
        return EXIT_INVALID
    try:
        gone = cache.clear(args.recipe, args.key)
    finally:
        cache.close()
    print(f"cleared {gone} cache entr{'y' if gone == 1 else 'ies'}")
    return 0
