"""The executor: runs compiled plans in a real browser and records everything as events.

    from runtime.execute import start_run, RunHandle, BrowserProvider

    async with BrowserProvider() as browsers:
        handle = start_run(recipe, inputs, run_id="r1", run_dir=Path("runs/r1"),
                           events=EventLog("r1"), browser=browsers)
        verdict = await handle.task

Modules: run.py (start_run, RunHandle), walker.py (the loop: state -> handler -> record ->
transition), states/ (one handler per state kind, registered by kind), context.py (RunContext,
what a handler may touch), conditions.py (the one condition judge), tool_gate.py (tools.allow,
intent guard, approvals), browser_access.py (session, driver actions, artifacts),
step_record.py (executions.json records), recovery.py (blockers, replans), values.py
(placeholders), step_outcome.py (StepResult, RunStopped), agent_step.py and agent_tools.py
(the model's tool calls in agent steps), provider.py (the shared Chromium), target_check.py
(data.validate-target), field_values.py (typed extraction), run_files.py (the run directory),
spans.py (OpenTelemetry; runtime/telemetry writes trace.jsonl), approvals.py, cli.py (`verity run`).
"""

from runtime.browser.supply.provider import BrowserProvider
from runtime.execute.run import RunHandle, placeholder_values, start_run

__all__ = ["BrowserProvider", "RunHandle", "placeholder_values", "start_run"]
