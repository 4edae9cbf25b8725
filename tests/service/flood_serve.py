"""`verity serve` hosting one run that emits events as fast as it can, until the process is killed.

    python -m tests.service.flood_serve [--without-run-files] --store S --runs-dir D --port 0

The kill -9 tests need events flowing faster than a browser makes them, at the moment of the
kill. Everything here is the real server: the same flags and config (`server_config_from_args`),
the same `VerityServer`, and the run's events take the production path (EventLog -> supervisor ->
store -> streams). Only the run engine is replaced, by this emitter, which also writes the run
directory's events.jsonl the way the engine does (`RunFiles`, listening after the supervisor),
unless `--without-run-files`: then the store is the run's only record, as for a run whose
directory cannot be written. Starting also closes the runs a killed predecessor left in flight, as
`verity serve` does.

The flood starts once a client watches and stays at most `AHEAD` events ahead of what that client's
stream has taken: always events in flight (recorded, committing, committed and queued, being sent)
when the kill comes, but never hundreds of thousands of them. Unpaced, a flood out-ran its client
by orders of magnitude (325,000 events stored while the client had read 134), so the store, the
restart's recovery and the final checks grew with the machine's speed, and a client that fell
10,000 events behind was cut off before it could order the kill.
"""

from __future__ import annotations

import asyncio
import sys

from runtime.cli.main import parse_args
from runtime.events import ChatDelta
from runtime.execute.record.run_files import RunFiles
from runtime.cli.serve import server_config_from_args
from runtime.service.runs.live_run import LiveRun
from runtime.service.api.server import VerityServer

# Events emitted between two yields to the event loop (a busy run step emits a handful).
BURST = 32
# The tests kill the process long before this; the cap only bounds memory if one does not.
MAX_EVENTS = 500_000
# Events the flood may be ahead of what its slowest watcher's stream took (uncommitted ones included).
AHEAD = 2 * 1024
# How often a paused flood looks again whether its watcher caught up.
POLL_SECONDS = 0.002


def flood_text(run_id: str, number: int) -> str:
    """The text of the flood's `number`-th event: a client can tell one event from another by it."""
    return f"{run_id} event {number}"


WITHOUT_RUN_FILES = "--without-run-files"


def _ahead_of_watcher(live: LiveRun, emitted: int) -> int:
    """Events emitted that the slowest watcher's stream has not taken: not yet durable, or queued for it."""
    durable = live.durable[-1].seq if live.durable else 0
    return emitted - durable + live.broadcast.unread_by_slowest


async def serve_and_flood(argv: list[str]) -> None:
    run_files = WITHOUT_RUN_FILES not in argv
    config = server_config_from_args(parse_args(["serve", *(a for a in argv if a != WITHOUT_RUN_FILES)]))
    server = VerityServer(config)
    await server.start()
    supervisor = server.supervisor
    assert supervisor is not None
    live = await supervisor.open_run("flood", "1", {}, {})
    if run_files:
        live.events.add_listener(RunFiles(config.runs_dir / live.run_id).on_event)
    print(f"verity serve: flood run {live.run_id}", flush=True)
    print(f"verity serve: listening on {server.target}", flush=True)
    while live.broadcast.subscriber_count == 0:
        await asyncio.sleep(POLL_SECONDS)
    number = 0
    while number < MAX_EVENTS:
        while _ahead_of_watcher(live, number) > AHEAD:
            await asyncio.sleep(POLL_SECONDS)
        for _ in range(BURST):
            number += 1
            live.events.emit(ChatDelta(text=flood_text(live.run_id, number)))
        await asyncio.sleep(0)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(serve_and_flood(sys.argv[1:]))
    sys.exit(0)
