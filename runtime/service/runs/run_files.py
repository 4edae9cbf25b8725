"""GetRunFile: the files that explain an ended run, read from its directory when asked.

They are not artifacts the run announced: the run writes them as it ends (trace.jsonl is complete
only once its engine has finished), so they are looked up, hashed and served on request. The same
rules as GetArtifact hold: only a name of the run directory's layout, only a file that resolves
(symlinks followed) inside that run's own directory, and the bytes sent are checked against the
sha256 taken when the request came (a file changed in between ends the stream with DATA_LOSS).
Every one of them was written redacted by the run (events, spans, records, report).
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import replace
from pathlib import Path

from runtime.run_layout import EVENTS_FILE, EXECUTIONS_FILE, OUTPUT_FILE, PLANS_FILE, REPORT_FILE, TRACE_FILE, VERDICT_FILE
from runtime.service.runs.errors import ArtifactOutsideRun, InvalidRequest, RunFileMissing
from runtime.store import ArtifactRecord

RUN_FILE_KIND = "run_file"
# The files a client may fetch, and the media type each is sent as.
RUN_FILES: dict[str, str] = {
    VERDICT_FILE: "application/json",
    OUTPUT_FILE: "application/json",
    EXECUTIONS_FILE: "application/json",
    PLANS_FILE: "application/json",
    TRACE_FILE: "application/x-ndjson",
    EVENTS_FILE: "application/x-ndjson",
    REPORT_FILE: "text/html",
}


def check_run_file_name(name: str) -> None:
    if name not in RUN_FILES:
        raise InvalidRequest("name", f"{name[:80]!r} is not a run file; one of {', '.join(RUN_FILES)}")


async def run_file(runs_dir: Path, run_id: str, name: str) -> tuple[ArtifactRecord, Path]:
    """The file `name` of the run's directory as an artifact record (its size and sha256 as of now)."""
    check_run_file_name(name)
    record = ArtifactRecord(
        run_id=run_id, artifact_id=name, artifact_kind=RUN_FILE_KIND, path=name, media_type=RUN_FILES[name], size=0, sha256="", seq=0
    )
    run_dir = (runs_dir / run_id).resolve()
    path = (run_dir / name).resolve()
    if not path.is_relative_to(run_dir):
        raise ArtifactOutsideRun(record)
    if not path.is_file():
        raise RunFileMissing(run_id, name)
    sha256, size = await asyncio.to_thread(_digest, path)
    return replace(record, size=size, sha256=sha256), path


def _digest(path: Path) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size
