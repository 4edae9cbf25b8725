"""The executor: runs compiled plans in a real browser and records everything as events.

    from runtime.execute import start_run, RunHandle, BrowserProvider
    from runtime.plan import prepare_run

    order = prepare_run(recipe, inputs, registry=registry, run_id="r1", run_dir=Path("runs/r1"))
    async with BrowserProvider() as browsers:
        handle = start_run(order, events=EventLog("r1"), browser=browsers)
        verdict = await handle.task

It reads the run's order and plan only (runtime/plan), never the recipe; it fills templates
with the template language (runtime/template). Its rooms, each importing only those listed
before it (tests/architecture proves the order):

    step_outcome.py  StepResult and RunStopped: what a state's work comes to
    values/          the run's values, and filling plan params with them
    judges/          one judge per question: conditions, the target, page blockers, login intent
    record/          what a run records: run files, step records, spans, report, storage state
    context/         RunContext, the one thing a handler receives, and its collaborators
    reads/           reading the page for a step: provenance, refused paths, search results
    acts/            acting and waiting, for act and wait steps and agents alike: driver calls, expectations
    agent/           an agent step's model side: the tools offered, each tool call
    states/          one handler per plan state kind, registered under the kind's name
    walker.py        the loop: state -> handler -> record -> transition
    conversation.py  a run that goes on: turn after turn in one session, `ongoing` between them
    run.py           start_run and RunHandle: one order, one walk, always one verdict

The browser it runs in is supplied by runtime/browser/supply (the shared Chromium, a server's
pool); `verity run` is runtime/cli/run_recipe.py.
"""

from runtime.browser.supply.provider import BrowserProvider
from runtime.execute.run import RunHandle, start_run

__all__ = ["BrowserProvider", "RunHandle", "start_run"]
