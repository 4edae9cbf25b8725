"""The report at the end of every run: `report.html` in the run directory, announced as an
artifact (so `GetRun` lists it). A report that cannot be written never changes the verdict."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from pathlib import Path

from runtime.events import ArtifactStored
from runtime.report import NotARunDirectory, ReportDraft, draft_report, write_report

REPORT_ARTIFACT_KIND = "report"

log = logging.getLogger("verity.report")


async def draft_run_report(run_dir: Path) -> ReportDraft | None:
    """Read and render the run's records off the event loop, once its last state is recorded;
    None when that failed (`write_run_report` then does it all and says why)."""
    try:
        return await asyncio.to_thread(draft_report, run_dir)
    except (Exception, asyncio.CancelledError):  # noqa: BLE001 - the whole report is tried again, and a failure logged, at the end
        return None


async def write_run_report(run_dir: Path, draft: ReportDraft | None = None) -> ArtifactStored | None:
    """Write `run_dir/report.html` off the event loop (from `draft` when the run drafted it);
    the ArtifactStored event to emit, or None."""
    try:
        path, data = await asyncio.to_thread(_write_and_read, run_dir, draft)
    except (OSError, NotARunDirectory) as error:
        log.warning("the run report for %s was not written: %s", run_dir, error)
        return None
    except asyncio.CancelledError:
        # Cancelled again while finishing (a server shutting down): the verdict still comes first.
        return None
    except Exception:  # noqa: BLE001 - a bug in the report must not cost the run its verdict
        log.exception("the run report for %s failed", run_dir)
        return None
    digest = hashlib.sha256(data).hexdigest()
    return ArtifactStored(
        artifact_id=f"{REPORT_ARTIFACT_KIND}-{digest[:16]}", artifact_kind=REPORT_ARTIFACT_KIND, path=str(path),
        media_type="text/html", size=len(data), sha256=digest,
    )


def _write_and_read(run_dir: Path, draft: ReportDraft | None) -> tuple[Path, bytes]:
    path = write_report(run_dir, draft)
    return path, path.read_bytes()
