"""Where an agent's extract read its values: only what the page shows a person is the page's word.

A model picks its own targets, so it can read an element the page does not show (a hidden tab
panel, display:none, the `hidden` attribute, zero size, off-screen, clipped, transparent), or an
attribute of a shown element whose value its text does not show (a tooltip, alt text, data-*),
while the page shows another value, or read back what its own page script (browser_evaluate) wrote into the
document. Neither is what the page states: such a field is not kept, and the model is told where to
read instead. A plan step's extract is left as its author wrote it (an author may read an attribute,
a meta tag or JSON-LD on purpose).
"""

from __future__ import annotations

from typing import Any

from runtime.execute.agent.tool_outcome import ToolOutcome
from runtime.execute.context.run_context import RunContext


async def refused_reads(ctx: RunContext, requested: dict[str, dict[str, Any]], fields: dict[str, Any], timeout_ms: int) -> ToolOutcome | None:
    """None when every value read is shown by the page and not the model's own script's; else the
    failure the model is told (nothing of the call is kept)."""
    read = [name for name, value in fields.items() if value not in (None, "")]
    if not read:
        return None
    # Asked of the same targets, read the same way: {shown, written} (scripts/field_reads.js).
    asked = {name: {**requested[name], "whence": True} for name in read}
    verbs = await ctx.browser.verbs()
    found = await verbs.extract(fields=asked, action_id=ctx.browser.new_action_id("read_origin"), timeout_ms=timeout_ms)
    seen = (found.data.get("fields") or {}) if found.ok else {}
    origins = {name: seen[name] for name in read if isinstance(seen.get(name), dict)}
    unknown = [name for name in read if name not in origins]
    if unknown:
        # Not known to be the page's word (the element went meanwhile): not kept.
        return ToolOutcome.failed("page_changed", f"could not tell where {', '.join(unknown)} was read (the page changed); nothing was kept: read it again")
    written = [name for name in read if origins[name].get("written") is not False]
    if written:
        return ToolOutcome.failed(
            "own_value", f"{', '.join(written)} holds what your own page script wrote; nothing was kept: read the value where the page itself states it"
        )
    hidden = [name for name in read if origins[name].get("shown") is not True]
    if hidden:
        return ToolOutcome.failed(
            "not_shown",
            f"{', '.join(hidden)} was read from an element the page does not show (hidden, empty, off-screen or clipped); "
            "nothing was kept: read the value the page shows",
        )
    unstated = [name for name in read if origins[name].get("stated") is False]
    if unstated:
        # A tooltip, alt text, aria-label or data-* attribute the element's text does not repeat.
        return ToolOutcome.failed(
            "not_shown",
            f"{', '.join(unstated)} was read from an attribute ({', '.join(str(requested[name].get('attr')) for name in unstated)}) "
            "whose value the page does not show as text; nothing was kept: read the value the page shows",
        )
    return None
