"""The page side of the driver: every script Verity runs in a page, as `.js` files.

The files of this folder are the parts of one namespace, installed once in each document's
isolated world (the world named `WORLD_NAME`, which the page's own scripts can neither see nor
reach) and called by name with JSON arguments (`loader.CALL`), as Playwright calls its injected
script. `main_world/` holds the few scripts that run in a page's own world instead. `loader.py`
reads them, once per process.
"""
