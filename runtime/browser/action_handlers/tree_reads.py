"""The page as a model reads it: its accessibility tree (or the part under a ref), and a search of
it (runtime/browser/tab/snapshot_tree.py)."""

from __future__ import annotations

from runtime.browser.action_handlers.params import int_param
from runtime.browser.action_handlers.scope import ActionScope, Result
from runtime.browser.tab.snapshot_tree import DEFAULT_TREE_CHARS, TextPattern, TreeQuery
from runtime.browser.vocabulary.actions import Action

# Matches a search lists at most, unless it asks for another number.
DEFAULT_FIND_LIMIT = 20


async def snapshot_tree(scope: ActionScope, action: Action) -> Result:
    """Without a ref, a new tree snapshot (older refs become stale); with one, the part of the
    latest snapshot under it, whose refs all stay valid."""
    query = TreeQuery.from_params(action.params, DEFAULT_TREE_CHARS)
    tree = await (scope.tab.show_tree(query) if query.ref is not None else scope.tab.take_tree(query))
    return {**tree.to_dict(), "rendered": tree.render()}, tree


async def find_nodes(scope: ActionScope, action: Action) -> Result:
    pattern = TextPattern.parse(action.params.get("text"))
    limit = int_param(action.params, "limit", DEFAULT_FIND_LIMIT, minimum=1)
    found = await scope.tab.find_nodes(pattern, limit)
    return {**found.to_dict(), "rendered": found.render()}, found
