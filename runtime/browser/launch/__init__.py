"""Starting or attaching to one Chromium and owning its connection (`Browser`); knows nothing of
runs or sessions. Importing this package imports nothing, so `chromium_start` can spawn Chromium
before pyppeteer is loaded (`verity run` does)."""
