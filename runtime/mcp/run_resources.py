"""A run's files as MCP resources: `verity://runs/<run id>/<file>`.

Only the files a run directory is known to hold (run_layout.py) are offered, of run ids the store
knows, inside the server's runs directory; a file larger than the server's message limit is refused
with the size and the limit, not cut.
"""

from __future__ import annotations

import re
from pathlib import Path

import mcp_types as types
from mcp.shared.exceptions import MCPError

from runtime.run_layout import EVENTS_FILE, OUTPUT_FILE, REPORT_FILE, TRACE_FILE, VERDICT_FILE

SCHEME = "verity"
OFFERED_FILES: dict[str, tuple[str, str]] = {
    REPORT_FILE: ("text/html", "the run report: the verdict, each state with its screenshot and evidence"),
    VERDICT_FILE: ("application/json", "the final verdict: status, stop reason, blocker kind, summary, evidence"),
    OUTPUT_FILE: ("application/json", "the structured output and whether it satisfies the output schema"),
    EVENTS_FILE: ("application/x-ndjson", "every event of the run, one JSON object a line"),
    TRACE_FILE: ("application/x-ndjson", "the run's OpenTelemetry spans as OTLP/JSON"),
}
_URI = re.compile(r"^verity://runs/(?P<run_id>[A-Za-z0-9._-]+)/(?P<file>[a-z._]+)$")


def run_file_uri(run_id: str, file: str) -> str:
    return f"{SCHEME}://runs/{run_id}/{file}"


def run_file_links(run_id: str, run_dir: Path) -> list[types.ResourceLink]:
    """Links to the files the run directory holds now."""
    links = []
    for file, (media_type, description) in OFFERED_FILES.items():
        path = run_dir / file
        if path.is_file():
            links.append(
                types.ResourceLink(name=f"{run_id}/{file}", uri=run_file_uri(run_id, file), mime_type=media_type, description=description, size=path.stat().st_size)
            )
    return links


def read_run_file(uri: str, runs_dir: Path, max_bytes: int) -> types.ReadResourceResult:
    """The text of a run file a link named; MCPError (invalid params) saying why not."""
    match = _URI.match(uri)
    if match is None or match["file"] not in OFFERED_FILES or match["run_id"] in (".", ".."):
        offered = ", ".join(OFFERED_FILES)
        raise MCPError(types.INVALID_PARAMS, f"{uri!r} is not a run file: use verity://runs/<run id>/<file>, file one of {offered}")
    path = runs_dir / match["run_id"] / match["file"]
    if not path.is_file():
        raise MCPError(types.INVALID_PARAMS, f"{uri}: the run has no such file (it may not have ended yet, or the run id is unknown)")
    size = path.stat().st_size
    if size > max_bytes:
        raise MCPError(
            types.INVALID_PARAMS,
            f"{uri} is {size:,} bytes, over this server's response limit of {max_bytes:,} (--max-message-bytes); "
            f"read it from the run directory or with the gRPC GetArtifact",
        )
    media_type = OFFERED_FILES[match["file"]][0]
    text = path.read_text(encoding="utf-8", errors="replace")
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type=media_type, text=text)])
