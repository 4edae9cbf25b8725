"""Finding the one element a locator names, with Playwright's strictness.

A locator names elements by role (and accessible name), text, label, placeholder, alt text,
title, test id (`data-testid`), CSS or XPath; `has_text` narrows the matches, `within` scopes the
search to a container (itself one element) and `frame` to an iframe's document. The search runs
in the frame's isolated world (page scripts cannot see or fake it), over the document and its open
shadow roots, in document order; CSS selectors pierce open shadow roots too. Roles and accessible
names are the snapshot's (runtime/browser/scripts/vocabulary.js: accname 1.2 and HTML-AAM as
Chromium computes them), whole however long; role and name locators skip aria-hidden subtrees.
The search itself is runtime/browser/scripts/locate.js.

Strictness: only visible elements count, and among them the ones a person can see first (not at
opacity 0, off the page or clipped away; runtime/browser/scripts/shown.js). When several match,
the locator must say which (`nth`, or `first`), else the action fails with `ambiguous_target` and
lists them: the driver never picks "the first one" on its own. An exact name or text (`exact`) is compared case-sensitively, whole;
otherwise case-insensitively, and whole matches win over partial ones. CSS, XPath and test-id
locators that match only hidden elements still find them (a hidden input's value can be read;
a click then fails as not_interactable).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runtime.browser.vocabulary.actions import Target
from runtime.browser.vocabulary.errors import ActionErrorCode, BrowserActionError
from runtime.browser.tab.worlds import FrameWorlds

# Candidates an ambiguous_target error lists (the count is always given in full).
LISTED_CANDIDATES = 10
# Locator kinds that may find hidden elements when no visible one matches.
STRUCTURAL_KINDS = frozenset({"css", "xpath", "test_id"})


@dataclass(frozen=True)
class Located:
    """The element a locator found: its live handle and how it was chosen (for evidence)."""

    object_id: str
    how: dict[str, Any]
    # The isolated world (execution context) of the document it was found in.
    context_id: int | None = None


def locate_spec(target: Target) -> dict[str, Any]:
    """The in-page search for one target (the argument of locate.js's `locate`; the frame aside,
    which `locate` finds first): kind and value, name, exact, has_text, the chain of `within`
    containers outermost first, and which match to take."""
    chain: list[dict[str, Any]] = []
    scope = target.within
    while scope is not None:
        chain.insert(0, _one(scope))
        scope = scope.within
    nth = target.index if target.index is not None else (0 if target.first else None)
    return {**_one(target), "within": chain, "nth": nth, "listed": LISTED_CANDIDATES}


def _one(target: Target) -> dict[str, Any]:
    kind = target.kind
    value = getattr(target, kind) if kind != "name" else target.name
    return {"kind": kind, "value": value, "name": target.name if kind == "role" else None, "exact": target.exact, "has_text": target.has_text}


async def locate(worlds: FrameWorlds, cdp: Any, target: Target) -> Located:
    """The one element `target` names in a tab (its frame worlds and CDP session; see the module
    rules), or not_found / ambiguous_target."""
    context_id = await _context_for(worlds, cdp, target.frame)
    spec = locate_spec(target)
    reply = await worlds.call(context_id, "locate", spec)
    how = target.to_dict()
    if "exceptionDetails" in reply:
        details = reply["exceptionDetails"]
        raise invalid_locator(how, str((details.get("exception") or {}).get("description") or details.get("text") or "script error"))
    chosen_index, chosen_how = choose_match(reply["result"]["value"], spec, how)
    element = await worlds.call(context_id, "located", int(chosen_index), by_value=False)
    result = element.get("result", {})
    if result.get("subtype") != "node":
        raise BrowserActionError(ActionErrorCode.NOT_FOUND, f"the element matching {how} vanished", target=how)
    return Located(result["objectId"], chosen_how, context_id)


def chosen_index(spec: dict[str, Any]) -> int:
    """Which match a search takes when it is unambiguous: its `nth`, else the only one. The
    in-page read of a located element (runtime/browser/scripts/field_reads.js) takes the same."""
    return 0 if spec["nth"] is None else int(spec["nth"])


def choose_match(found: dict[str, Any], spec: dict[str, Any], how: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Strictness, applied to what locate.js's `locate` found for `spec`: the index of the match to
    take and how it was chosen (for evidence), or not_found / ambiguous_target."""
    if "scope_error" in found:
        _raise_for_scope(found, how)
    count = int(found["count"])
    candidates = found["candidates"]
    if spec["nth"] is None and count > 1:
        listed = "; ".join(_describe(c) for c in candidates)
        raise BrowserActionError(
            ActionErrorCode.AMBIGUOUS_TARGET,
            f"{count} visible elements match {how}: {listed}{' ...' if count > len(candidates) else ''}; "
            "say which with nth (0-based, -1 for the last) or first: true, or narrow the locator",
            target=how,
            count=count,
            candidates=candidates,
        )
    index = chosen_index(spec)
    if count == 0 or found["chosen"] is None and spec["nth"] is not None or not (-count <= index < count):
        raise BrowserActionError(ActionErrorCode.NOT_FOUND, f"no visible element matches {how} ({count} match(es))", target=how, count=count)
    chosen = found["chosen"] if spec["nth"] is not None else candidates[0]
    return index, {**how, "matches": count, "chosen": {"nth": index, **chosen}}


def invalid_locator(how: dict[str, Any], description: str) -> BrowserActionError:
    """A locator the browser could not run (a CSS or XPath it cannot parse), with its message."""
    return BrowserActionError(ActionErrorCode.INVALID_PARAMS, f"invalid locator {how}: {description.splitlines()[0]}", target=how)


def _describe(candidate: dict[str, Any]) -> str:
    label = candidate.get("name") or candidate.get("text") or ""
    return f"{candidate.get('role') or candidate.get('tag')} {label!r}"


def _raise_for_scope(found: dict[str, Any], how: dict[str, Any]) -> None:
    scope = found["scope"]
    where = f"{scope['kind']}={scope['value']!r}"
    if found["scope_error"] == "ambiguous":
        raise BrowserActionError(
            ActionErrorCode.AMBIGUOUS_TARGET,
            f"the container within {how} is ambiguous: {found['count']} visible elements match {where}; "
            "a container must be one element",
            target=how,
            count=found["count"],
            candidates=found["candidates"],
        )
    raise BrowserActionError(ActionErrorCode.NOT_FOUND, f"no visible container matches {where} for {how}", target=how)


async def _context_for(worlds: FrameWorlds, cdp: Any, frame: Target | None) -> int:
    """The isolated world to search in: the top document's, or the document of the iframe
    `frame` names (found itself with strictness, in its own parent's document)."""
    if frame is None:
        return await worlds.top_context()
    frames = await worlds.frames()
    owner = await locate(worlds, cdp, frame)
    if owner.how["chosen"].get("tag") not in ("iframe", "frame"):
        raise BrowserActionError(ActionErrorCode.INVALID_PARAMS, f"frame {frame.to_dict()} names a {owner.how['chosen'].get('tag')}, not an iframe")
    node = (await cdp.send("DOM.describeNode", {"objectId": owner.object_id})).get("node", {})
    frame_id = node.get("frameId")
    match = next((f for f in frames if f["id"] == frame_id), None)
    if match is None:
        raise BrowserActionError(ActionErrorCode.NOT_FOUND, f"the iframe {frame.to_dict()} has no document yet", target=frame.to_dict())
    return await worlds.context_for(match)
