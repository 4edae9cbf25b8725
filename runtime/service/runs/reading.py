"""What GetRun, GetArtifact, GetRunFile and ListRuns read of a server's runs: a hosted run's live
record, or what the store and the run's directory keep of an ended one (a mixin of RunSupervisor;
a replica's supervisor reads other replicas' runs through the same methods)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from runtime.events import ConfirmationRequested, FinalVerdict
from runtime.run_layout import VERDICT_FILE
from runtime.service.runs.artifact_reader import artifact_path
from runtime.service.runs.errors import ArtifactMissing, ArtifactNotFound, RunError, RunFilesNotReady, RunNotFound
from runtime.service.runs.live_run import LiveRun
from runtime.service.runs.run_files import check_run_file_name, run_file
from runtime.store import ArtifactRecord, BufferedRunStore, RunCursor, RunFilter, RunRecord


class RunReader:
    """A run's record, artifacts and files, from its live run while hosted, else from the store."""

    _live: dict[str, LiveRun]
    _store: BufferedRunStore
    _runs_dir: Path
    _engines_running: dict[str, asyncio.Task[Any]]

    async def get(self, run_id: str) -> tuple[RunRecord, list[ArtifactRecord], list[ConfirmationRequested]]:
        live = self._live.get(run_id)
        if live is not None:
            artifacts = await self._store.list_artifacts(run_id)
            return live.shown, artifacts, live.pending_confirmations()
        record = await self._store.get_run(run_id)
        if record is None:
            raise RunNotFound(run_id)
        return await self._with_browser(record), await self._store.list_artifacts(run_id), []

    async def _with_browser(self, record: RunRecord) -> RunRecord:
        """An ended run's record with the browser its final verdict names (no column keeps it)."""
        if not record.is_final or record.browser_id:
            return record
        last = await self._store.read_events(record.run_id, record.last_seq - 1, 1)
        if last and isinstance(last[0].payload, FinalVerdict) and last[0].payload.browser_id:
            return replace(record, browser_id=last[0].payload.browser_id)
        return record

    async def artifact(self, run_id: str, artifact_id: str) -> tuple[ArtifactRecord, Path | bytes]:
        """A listed artifact of the run and its bytes: its file in the run's own directory or, when
        that is not on this server, the store's copy (a PostgreSQL store keeps one by sha256)."""
        _, artifacts, _ = await self.get(run_id)
        record = next((a for a in artifacts if a.artifact_id == artifact_id), None)
        if record is None:
            raise ArtifactNotFound(run_id, artifact_id)
        path = artifact_path(self._runs_dir, record)
        if path.is_file():
            return record, path
        stored = await self._store.read_blob(record.sha256)
        if stored is None:
            raise ArtifactMissing(record)
        return record, stored

    async def run_file(self, run_id: str, name: str) -> tuple[ArtifactRecord, Path]:
        """A file that explains an ended run (run_files.py). Its engine writes the last of them just
        after the verdict: a request that comes in between waits for it."""
        check_run_file_name(name)
        record, _, _ = await self.get(run_id)
        if not record.is_final:
            raise RunFilesNotReady(run_id, record.status.value)
        if (engine := self._engines_running.get(run_id)) is not None:
            await asyncio.wait([engine])
        return await run_file(self._runs_dir, run_id, name)

    async def verdict_figures(self, record: RunRecord) -> dict[str, Any] | None:
        """What an ended run's verdict.json has beyond its FinalVerdict (blocked requests, the
        intent guard's figures, replans, ...), or None when the run has not ended or this server
        has no verdict.json of it."""
        if not record.is_final:
            return None
        try:
            _, path = await self.run_file(record.run_id, VERDICT_FILE)
            verdict = json.loads(await asyncio.to_thread(path.read_bytes))
        except (RunError, OSError, ValueError):
            return None
        verdict_fields = {field.name for field in dataclasses.fields(FinalVerdict)}
        return {key: value for key, value in verdict.items() if key not in verdict_fields} if isinstance(verdict, dict) else None

    async def list(self, run_filter: RunFilter, limit: int, after: RunCursor | None) -> list[RunRecord]:
        return await self._store.list_runs(run_filter, limit, after)

