"""`verity mcp`: Verity as a Model Context Protocol server (the official `mcp` SDK).

A second face over the runs a `verity serve` hosts (runtime/service): each recipe of the recipes
directory is an MCP tool, and calling it runs the recipe through the same supervisor, store, run
directories, browser and network fence as a gRPC StartRun. With allowed domains it also offers
the browser toolset: each MCP session is a served run whose one agent step the client drives
(browser_session.py), so every browser call takes the agent's own tool-call path.

This package only maps: recipes to tool declarations (recipe_tools.py), a tool call to a followed
run (recipe_calls.py), run files to resources (run_resources.py), browser calls to a session's run
(browser_tools.py, browser_session.py), a session to a frozen recipe (saved_recipes.py), and the
whole onto stdio or Streamable HTTP (transports.py).
"""
