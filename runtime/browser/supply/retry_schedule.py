"""How long to wait between attempts to get back a lost browser or endpoint.

Plain numbers, importable without pyppeteer: `verity serve` checks its settings against them
before it imports anything that drives a browser.
"""

from __future__ import annotations

# Seconds between attempts to replace a browser; the first attempt is immediate, the last delay repeats.
FIRST_RETRY_DELAY = 0.5
DEFAULT_RETRY_MAX_SECONDS = 15.0


def retry_delays_up_to(max_seconds: float) -> tuple[float, ...]:
    """Delays doubling from half a second, capped at `max_seconds` (which then repeats)."""
    delays: list[float] = []
    delay = FIRST_RETRY_DELAY
    while delay < max_seconds:
        delays.append(delay)
        delay *= 2
    return (*delays, max_seconds)


RETRY_DELAYS = retry_delays_up_to(DEFAULT_RETRY_MAX_SECONDS)
