"""One run's browser session: an incognito context, its tabs (the primary one and the popups),
its storage, and the serial dispatcher that runs every action through the catalog."""
