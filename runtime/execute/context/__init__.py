"""The run context: `RunContext` (run_context.py), the one thing a state handler receives, and the
collaborators it is made of, each with one job:

    browser_access.py  the browser session, driver actions, page preparation and artifacts
    tool_gate.py       tools.allow, the intent guard's before_tool and approvals (approvals.py)
    network.py         the run's network policy: the URL judge, what the policy proxy refused
    model_access.py    the run's model settings and gateway
    recovery.py        the latest blocker, replans and plan repairs
    action_ids.py      the run's action ids, numbered in the order asked for
    loops.py           the for_each loops in progress
"""
