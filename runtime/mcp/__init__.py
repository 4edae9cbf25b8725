"""`verity mcp`: Verity as a Model Context Protocol server (the official `mcp` SDK).

A second face over the runs a `verity serve` hosts (runtime/service): each recipe of the recipes
directory is an MCP tool, and calling it runs the recipe through the same supervisor, store, run
directories, browser and network fence as a gRPC StartRun. This package only maps: recipes to
tool declarations (recipe_tools.py), a tool call to a followed run (recipe_calls.py), run files to
resources (run_resources.py), and the whole onto stdio or Streamable HTTP (transports.py).
"""
