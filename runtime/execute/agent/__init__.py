"""An agent step's model side: the tools it is offered (offered_tools.py, as function
declarations) and what one of its tool calls does (tool_calls.py): checked like a plan step's,
run on the driver, its compact result handed back. The turn loop is states/agent.py.
"""
