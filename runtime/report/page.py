"""The run report as one HTML page: verdict and output, the timeline of states, the replan history.

The page is self-contained (inline CSS, thumbnails as data: URIs, no script, no external fetch);
links to full-size screenshots are relative to the run directory the report is written into.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from runtime.report.markup import as_json, attr, badge, details, json_block, key_values, long_text, scalar, split_json_tail, text
from runtime.report.run_dir import RunContents
from runtime.report.thumbnails import Thumbnails

# Evidence keys that identify the document a state read (the provenance of what it saw).
PROVENANCE_KEYS = ("provenance", "document", "validated_document")

# Scripts are forbidden outright; images only from data: URIs; styles only inline.
CONTENT_SECURITY_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1400px; padding: 16px 24px; color: #1d2433; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #d5dae3; }
.meta { color: #5a6473; } code, pre { font: 12px/1.4 ui-monospace, monospace; }
pre { background: #f4f6f9; padding: 8px; overflow: auto; max-height: 360px; white-space: pre-wrap; word-break: break-word; }
.verdict { border: 2px solid #c33; border-radius: 6px; padding: 10px 14px; }
.verdict.completed { border-color: #2a8a4a; }
.verdict .headline { font-size: 18px; font-weight: 600; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
th, td { border-top: 1px solid #e2e6ec; padding: 6px; vertical-align: top; text-align: left; overflow-wrap: anywhere; }
th { background: #f4f6f9; font-weight: 600; }
col.index { width: 2.5em; } col.state { width: 9em; } col.outcome { width: 6em; } col.time { width: 4em; }
col.page { width: 196px; } col.evaluation { width: 18%; } col.blocker { width: 7.5em; } col.provenance { width: 14%; }
col.attempt { width: 5em; } col.step { width: 8em; } table.replans col.blocker { width: 8.5em; } col.failure-summary { width: 26%; }
img.thumbnail { width: 180px; height: auto; border: 1px solid #ccd2db; display: block; }
.badge { display: inline-block; border-radius: 3px; padding: 0 5px; margin: 1px 2px 1px 0; font-size: 12px; background: #e8ebf0; }
.badge.good { background: #d6f0dd; color: #145c2c; } .badge.bad { background: #f8d8d8; color: #8a1c1c; }
.badge.blocker { background: #fde8c8; color: #7a4300; }
dl.kv { display: grid; grid-template-columns: fit-content(40%) minmax(0, 1fr); gap: 1px 8px; margin: 0; }
dl.kv dt { color: #5a6473; overflow-wrap: anywhere; } dl.kv dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.verdict, .meta { overflow-wrap: anywhere; } .verdict h2 { margin-top: 0; }
details summary { cursor: pointer; color: #2b5cab; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
.json { font: 12px/1.45 ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; background: #f4f6f9; padding: 8px; margin: 4px 0; }
.json .key { color: #6a3d9a; }
details.long { display: inline-block; vertical-align: top; max-width: 100%; } details.long[open] { display: block; }
details.long > summary { display: inline; color: inherit; list-style: none; }
details.long > summary::-webkit-details-marker { display: none; }
details.long > summary .size { color: #2b5cab; font: 12px system-ui, sans-serif; white-space: nowrap; }
details.long > summary .size::before { content: "▸ "; } details.long[open] > summary .size::before { content: "▾ "; }
details.long .full { display: block; white-space: pre-wrap; max-height: 480px; overflow: auto; background: #fff; border: 1px solid #d5dae3; padding: 6px 8px; margin: 4px 0; font: 12px/1.45 ui-monospace, monospace; }
#verdict-summary { margin: 6px 0; }
a.screenshot { display: block; text-decoration: none; } a.screenshot:hover img.thumbnail { border-color: #2b5cab; }
a.screenshot .open { font-size: 12px; color: #2b5cab; }
.problems { color: #8a1c1c; }
"""


def render_report(contents: RunContents, records: str) -> str:
    """The whole page; `records` is `render_records` of the same contents (drafted ahead: a run
    renders it while its browser closes)."""
    verdict = contents.verdict
    recipe = contents.recipe
    title = f"Verity run {verdict.get('run_id') or contents.run_dir.name}"
    sections = [
        _header(contents, recipe),
        _verdict_section(verdict),
        _output_section(contents.output),
        records,
        _problems_section(contents.problems),
    ]
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{attr(CONTENT_SECURITY_POLICY)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{text(title)}</title><style>{STYLE}</style></head>\n<body>\n"
        + "\n".join(section for section in sections if section)
        + "\n</body></html>\n"
    )


def render_records(contents: RunContents, thumbnails: Thumbnails) -> str:
    """The sections made from the run's records alone (plans.json, executions.json): the timeline
    of states and the replan history, most of the page's work."""
    return _timeline_section(contents, thumbnails) + "\n" + _replan_section(contents.plan_repairs, contents.last_failure_summary)


def _header(contents: RunContents, recipe: dict[str, Any]) -> str:
    verdict = contents.verdict
    facts = {
        "recipe": " ".join(str(recipe.get(k, "")) for k in ("name", "version")).strip(),
        "goal": contents.plan.get("goal"),
        "run id": verdict.get("run_id"),
        "trace id": verdict.get("trace_id"),
        "duration": _milliseconds(verdict.get("duration_ms")),
        "states executed": verdict.get("executed_states", len(contents.executions)),
        "replans used": verdict.get("replans_used"),
    }
    shown = {key: value for key, value in facts.items() if value not in (None, "")}
    return f'<header><h1>{text("Run report: " + str(recipe.get("name") or contents.run_dir.name))}</h1>{key_values(shown, "kv meta")}</header>'


def _verdict_section(verdict: dict[str, Any]) -> str:
    if not verdict:
        return '<section id="verdict" class="verdict"><h2>Verdict</h2><p class="problems">No verdict.json: the run did not finish writing.</p></section>'
    stop_reason = str(verdict.get("stop_reason", ""))
    verified = verdict.get("verified") is True
    headline = (
        f'<p class="headline"><span id="verdict-status">{text(verdict.get("status"))}</span> · '
        f'<span id="verdict-stop-reason">{text(stop_reason)}</span> · '
        + (badge("verified", "good") if verified else badge("not verified", "bad"))
        + (" " + badge(str(verdict["blocker_kind"]), "blocker") if verdict.get("blocker_kind") else "")
        + "</p>"
    )
    summary = _verdict_summary(str(verdict.get("summary") or ""))
    evidence = verdict.get("evidence")
    extra = {k: v for k, v in verdict.items() if k not in {"status", "stop_reason", "verified", "summary", "blocker_kind", "evidence"}}
    parts = [headline, summary]
    if isinstance(evidence, dict) and evidence:
        parts.append("<h3>Evidence</h3>" + key_values(evidence))
    parts.append(details("Everything verdict.json records", json_block(extra)) if extra else "")
    css = "verdict completed" if stop_reason == "completed" and verified else "verdict"
    return f'<section id="verdict" class="{css}" data-stop-reason="{attr(stop_reason)}" data-verified="{attr(str(verified).lower())}"><h2>Verdict</h2>{"".join(parts)}</section>'


def _verdict_summary(summary: str) -> str:
    """The verdict's one line: its prose in full when short; a completed run's summary ends with
    the output as JSON, shown indented and folded (the Output section below has it too)."""
    split = split_json_tail(summary)
    if split is None:
        return f'<div id="verdict-summary" class="summary">{long_text(summary)}</div>'
    prose, value = split
    shown = json_block(value, "json summary-data")
    folded = shown if len(as_json(value)) <= 160 else details(f"the output ({len(as_json(value)):,} characters as JSON)", shown)
    return f'<div id="verdict-summary" class="summary">{long_text(prose)}:{folded}</div>'


def _output_section(output: dict[str, Any] | None) -> str:
    if output is None:
        return '<section id="output"><h2>Output</h2><p>No output.json.</p></section>'
    valid = output.get("valid") is True
    errors = output.get("errors") if isinstance(output.get("errors"), list) else []
    error_list = "".join(f"<li>{long_text(e)}</li>" for e in errors)
    return (
        f'<section id="output" data-valid="{attr(str(valid).lower())}"><h2>Output</h2>'
        + (badge("valid", "good") if valid else badge("not valid", "bad"))
        + (f"<ul>{error_list}</ul>" if error_list else "")
        + json_block(output.get("data", {}), "json output-data")
        + "</section>"
    )


def _timeline_section(contents: RunContents, thumbnails: Thumbnails) -> str:
    rows = [_state_row(position, record, contents, thumbnails) for position, record in enumerate(contents.executions, 1)]
    columns = ("index", "state", "outcome", "time", "page", "evaluation", "blocker", "evidence", "provenance")
    widths = "".join(f'<col class="{name}">' for name in columns)
    head = "".join(f"<th>{'#' if name == 'index' else name}</th>" for name in columns)
    body = "".join(rows) if rows else f'<tr><td colspan="{len(columns)}">No state was executed.</td></tr>'
    return (
        f'<section id="timeline"><h2>Timeline of states</h2><table class="timeline"><colgroup>{widths}</colgroup>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></section>"
    )


def _state_row(position: int, record: dict[str, Any], contents: RunContents, thumbnails: Thumbnails) -> str:
    state_id = record.get("state_id", "")
    outcome = str(record.get("outcome", ""))
    marks = badge(outcome, "good" if record.get("ok") else "bad") + (badge("verified", "good") if record.get("verified") else "")
    agent_state = record.get("agent_state") if isinstance(record.get("agent_state"), dict) else {}
    evaluation = agent_state.get("evaluation") or record.get("observation_summary") or ""
    error = f'<p class="problems">{long_text(record["error"])}</p>' if record.get("error") else ""
    blocker = badge(str(record["blocker_kind"]), "blocker") if record.get("blocker_kind") else ""
    evidence = record.get("evidence") if isinstance(record.get("evidence"), dict) else {}
    provenance = {key: evidence[key] for key in PROVENANCE_KEYS if key in evidence}
    plain_evidence = {key: value for key, value in evidence.items() if key not in provenance}
    more = details(f"tool calls ({len(record['tool_results'])})", _tool_calls(record["tool_results"])) if _non_empty_list(record.get("tool_results")) else ""
    turns = details(f"model turns ({len(record['agent_turns'])})", _agent_turns(record["agent_turns"])) if _non_empty_list(record.get("agent_turns")) else ""
    tab = f'<br><span class="meta tab">in tab {text(record["tab_id"])}</span>' if record.get("tab_id") else ""
    return (
        f'<tr class="state" id="state-{position}" data-state-id="{attr(state_id)}" data-outcome="{attr(outcome)}">'
        f'<td class="index">{position}</td>'
        f'<td class="state-id"><code>{text(state_id)}</code><br><span class="meta">{text(record.get("kind"))}</span>{tab}</td>'
        f'<td class="outcome">{marks}</td>'
        f'<td class="duration">{text(_milliseconds(record.get("duration_ms")))}</td>'
        f'<td class="page">{_thumbnail(record.get("screenshot"), state_id, contents, thumbnails)}</td>'
        f'<td class="evaluation">{long_text(evaluation)}{error}{_tab_changes(record.get("tab_changes"))}</td>'
        f'<td class="blocker">{blocker}</td>'
        f'<td class="evidence">{key_values(plain_evidence)}{more}{turns}</td>'
        f'<td class="provenance">{_provenance(provenance)}</td>'
        "</tr>"
    )


def _tab_changes(changes: Any) -> str:
    """The tabs a state opened, navigated, closed or made primary, in order."""
    if not _non_empty_list(changes):
        return ""
    items = []
    for change in changes:
        if not isinstance(change, dict):
            continue
        name = f" ({text(change['name'])})" if change.get("name") else ""
        opener = f" from {text(change['opener_tab_id'])}" if change.get("change") == "opened" and change.get("opener_tab_id") else ""
        items.append(f'<li>tab {text(change.get("tab_id"))}{name} {text(change.get("change"))}{opener} {scalar(change.get("url") or "")}</li>')
    return f'<ul class="tab-changes">{"".join(items)}</ul>'


def _thumbnail(relative: Any, state_id: str, contents: RunContents, thumbnails: Thumbnails) -> str:
    path = contents.inside(relative)
    if path is None:
        return ""
    source = thumbnails.data_uri(path)
    link = quote(Path(str(relative)).as_posix())
    if source is None:
        return f'<a href="{attr(link)}">screenshot (not an image)</a>'
    size = thumbnails.size(path)
    label = "open full size" + (f" ({size[0]}×{size[1]})" if size else "")
    return (
        f'<a class="screenshot" href="{attr(link)}" target="_blank" title="{attr(label)}">'
        f'<img class="thumbnail" src="{attr(source)}" alt="{attr("the page after " + state_id)}">'
        f'<span class="open">{text(label)} ↗</span></a>'
    )


def _provenance(provenance: dict[str, Any]) -> str:
    parts = []
    for key, value in provenance.items():
        # Two provenance records (the document read, the validated one) would look alike unnamed.
        parts.append(f'<p class="meta">{text(key)}</p>{key_values(value)}' if isinstance(value, dict) else f"<p>{text(key)}: {scalar(value)}</p>")
    return "".join(parts)


def _tool_calls(results: list[Any]) -> str:
    items = []
    for entry in results:
        if not isinstance(entry, dict):
            continue
        error = entry.get("error") if isinstance(entry.get("error"), dict) else None
        outcome = badge("ok", "good") if entry.get("ok") else badge(str(error.get("code", "failed")) if error else "failed", "bad")
        said = error.get("message", "") if error else entry.get("summary", "")
        items.append(f"<li><code>{text(entry.get('action'))}</code> {outcome} {text(_milliseconds(entry.get('duration_ms')))} {scalar(said or '')}</li>")
    return f"<ul>{''.join(items)}</ul>"


def _agent_turns(turns: list[Any]) -> str:
    items = []
    for turn in turns:
        if not isinstance(turn, dict):
            continue
        arguments = turn.get("arguments", {})
        items.append(
            f"<li>turn {text(turn.get('turn'))}: <code>{text(turn.get('tool') or 'no tool')}</code> "
            f"{key_values(arguments) if isinstance(arguments, dict) else scalar(arguments)} → {text(turn.get('outcome'))} {scalar(turn.get('summary') or '')}</li>"
        )
    return f"<ol>{''.join(items)}</ol>"


def _replan_section(repairs: list[dict[str, Any]], last_failure_summary: str) -> str:
    if not repairs and not last_failure_summary:
        return '<section id="replans"><h2>Replan history</h2><p>No replan.</p></section>'
    columns = ("attempt", "blocker", "step", "query", "followed", "skipped", "result", "failure summary")
    widths = "".join(f'<col class="{name.replace(" ", "-")}">' for name in columns)
    head = "".join(f"<th>{name}</th>" for name in columns)
    rows = []
    for repair in repairs:
        skipped = repair.get("skipped") if isinstance(repair.get("skipped"), dict) else {}
        rows.append(
            '<tr class="replan">'
            f"<td>{text(repair.get('attempt'))}</td>"
            f"<td>{badge(str(repair['blocker_kind']), 'blocker') if repair.get('blocker_kind') else ''}</td>"
            f"<td><code>{text(repair.get('offending_step'))}</code></td>"
            f"<td>{text(repair.get('query'))}<br><span class=\"meta\">{text(repair.get('search_url'))}</span></td>"
            f"<td>{text(repair.get('followed'))}</td>"
            f"<td>{key_values(skipped)}</td>"
            f"<td>{text(repair.get('result'))}</td>"
            f"<td>{long_text(repair.get('failure_summary') or '')}</td>"
            "</tr>"
        )
    last = f'<p><strong>Last failure summary:</strong> {long_text(last_failure_summary)}</p>' if last_failure_summary else ""
    return f'<section id="replans"><h2>Replan history</h2>{last}<table class="replans"><colgroup>{widths}</colgroup><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></section>'


def _problems_section(problems: list[str]) -> str:
    if not problems:
        return ""
    return '<section id="problems"><h2>Run files</h2><ul class="problems">' + "".join(f"<li>{text(p)}</li>" for p in problems) + "</ul></section>"


def _milliseconds(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return ""
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms"


def _non_empty_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value)
