"""A locator written on one line, as a model writes a `target`: parsed into the recipe's Locator.

    s3:e12                          a ref from the latest snapshot (e12 alone too)
    role=button[name="Buy"]         role, and optionally its accessible name
    text=Buy  label=Email  placeholder=Search  alt=Logo  title=Close  testid=buy
    css=#q  xpath=//a               a selector (a bare `//...` is XPath, any other bare text CSS)
    "Buy"                           quoted bare text: text, exactly
    A >> B                          B inside the one element A finds (`within`)
    frame=#pay >> label=Card        inside the document of the iframe `#pay` (CSS) finds
    ... >> nth=2   ... >> first     which of several matches (0-based; -1 the last)

A value in double quotes (JSON string rules) matches whole and case-sensitively; a bare value
matches ignoring case, whole matches first, then parts, as Playwright's locators do. A role's
name is loose either way unless an `s` follows its closing quote (`[name="Buy"s]`), as in
Playwright's own selectors. One way to find an element: the result is the recipe's `Locator`,
and the driver resolves it as it resolves a plan step's.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from runtime.recipe.locators import Locator

CHAIN = ">>"
REF = re.compile(r"^(?:s\d+:)?(?:f\d+)?e\d+$")
# `kind=` prefixes and the Locator field each fills.
KINDS: dict[str, str] = {
    "role": "role",
    "text": "text",
    "label": "label",
    "placeholder": "placeholder",
    "alt": "alt",
    "title": "title",
    "testid": "test_id",
    "test_id": "test_id",
    "data-testid": "test_id",
    "css": "css",
    "xpath": "xpath",
    "ref": "ref",
}
SYNTAX_HINT = 'a ref such as s3:e12, or a locator such as role=button[name="Buy"], label=Email, text=Buy, css=#q'
_PREFIX = re.compile(r"^([A-Za-z_-]+)=(.*)$", re.DOTALL)
_ROLE = re.compile(r'^([A-Za-z-]+)\s*(?:\[\s*name\s*=\s*(?:("(?:[^"\\]|\\.)*")(s?)|([^\]"]*))\s*\])?$', re.DOTALL)
_NTH = re.compile(r"^-?\d+$")


class LocatorSyntaxError(ValueError):
    """A target that is not a ref or a locator in this syntax; the message names the part at fault."""


def parse_locator(written: str) -> Locator:
    """The Locator `written` names; LocatorSyntaxError saying what is wrong and where."""
    text = written.strip()
    if not text:
        raise LocatorSyntaxError(f"the target is empty; give {SYNTAX_HINT}")
    segments = [part.strip() for part in _split_chain(text)]
    scope: dict[str, Any] | None = None
    frame: dict[str, Any] | str | None = None
    for segment in segments:
        if not segment:
            raise LocatorSyntaxError(f"an empty part between '>>' in {written!r}")
        if segment == "first" or segment.startswith("nth="):
            if scope is None:
                raise LocatorSyntaxError(f"{segment!r} needs a locator before it, as in css=li >> {segment}")
            if segment == "first":
                scope["first"] = True
            else:
                number = segment.removeprefix("nth=").strip()
                if not _NTH.match(number):
                    raise LocatorSyntaxError(f"{segment!r}: nth takes a whole number (0 is the first match, -1 the last)")
                scope["nth"] = int(number)
            continue
        if segment.startswith("frame="):
            inner = segment.removeprefix("frame=").strip()
            found: dict[str, Any] | str = _one(inner) if _PREFIX.match(inner) or inner.startswith('"') else inner
            if not found:
                raise LocatorSyntaxError("frame= needs the iframe's CSS selector or locator, as in frame=#pay >> label=Card")
            if isinstance(found, dict):
                found = _scoped(found, scope, frame)
            elif scope is not None or frame is not None:
                found = _scoped({"css": found}, scope, frame)
            frame, scope = found, None
            continue
        scope = _scoped(_one(segment), scope, frame)
        frame = None
    if frame is not None:
        raise LocatorSyntaxError("frame= must be followed by ' >> ' and the locator inside the frame")
    assert scope is not None
    return _validated(scope, written)


def locator_data(locator: Locator) -> dict[str, Any]:
    """A Locator as the plan's params carry one (what the driver's target takes)."""
    return locator.model_dump(mode="json", exclude_none=True)


def _split_chain(text: str) -> list[str]:
    """Split at `>>` outside double quotes and brackets."""
    parts, current, quoted, depth, i = [], [], False, 0, 0
    while i < len(text):
        char = text[i]
        if char == "\\" and quoted and i + 1 < len(text):
            current.append(text[i : i + 2])
            i += 2
            continue
        if char == '"':
            quoted = not quoted
        elif not quoted and char == "[":
            depth += 1
        elif not quoted and char == "]":
            depth = max(0, depth - 1)
        elif not quoted and depth == 0 and text.startswith(CHAIN, i):
            parts.append("".join(current))
            current = []
            i += len(CHAIN)
            continue
        current.append(char)
        i += 1
    if quoted:
        raise LocatorSyntaxError(f"an unclosed double quote in {text!r}")
    parts.append("".join(current))
    return parts


def _one(segment: str) -> dict[str, Any]:
    """One locator: `kind=value`, a ref, quoted text, `//xpath` or CSS."""
    if REF.match(segment):
        return {"ref": segment}
    if segment.startswith('"'):
        return {"text": _quoted(segment, segment), "exact": True}
    if segment.startswith(("//", "(//", "..")):
        return {"xpath": segment}
    prefixed = _PREFIX.match(segment)
    if prefixed is None:
        return {"css": segment}
    kind, value = prefixed.group(1).lower(), prefixed.group(2).strip()
    if kind not in KINDS:
        raise LocatorSyntaxError(f"unknown locator kind {kind!r} in {segment!r}; use one of {', '.join(k for k in KINDS if k != 'test_id' and k != 'data-testid')}")
    if not value:
        raise LocatorSyntaxError(f"{segment!r}: {kind}= needs a value")
    field = KINDS[kind]
    if field == "role":
        return _role(value, segment)
    if value.startswith('"'):
        return {field: _quoted(value, segment), **({"exact": True} if field not in ("css", "xpath", "ref", "test_id") else {})}
    return {field: value}


def _role(value: str, segment: str) -> dict[str, Any]:
    match = _ROLE.match(value)
    if match is None:
        raise LocatorSyntaxError(f'{segment!r}: write a role as role=button or role=button[name="Buy"]')
    role, quoted, strict, bare = match.groups()
    found: dict[str, Any] = {"role": role.lower()}
    if quoted is not None:
        found["name"] = _quoted(quoted, segment)
        if strict:
            found["exact"] = True
    elif bare is not None and bare.strip():
        found["name"] = bare.strip()
    return found


def _quoted(value: str, segment: str) -> str:
    try:
        parsed = json.loads(value)
    except ValueError:
        raise LocatorSyntaxError(f"{segment!r}: a quoted value must be one double-quoted string, as in text=\"Buy now\"") from None
    if not isinstance(parsed, str):
        raise LocatorSyntaxError(f"{segment!r}: a quoted value must be a string")
    return parsed


def _scoped(found: dict[str, Any], scope: dict[str, Any] | None, frame: dict[str, Any] | str | None) -> dict[str, Any]:
    if scope is not None:
        found["within"] = scope
    if frame is not None:
        found["frame"] = frame
    return found


def _validated(data: dict[str, Any], written: str) -> Locator:
    try:
        return Locator.model_validate(data)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        raise LocatorSyntaxError(f"{written!r}: {message}" + (f" (at {where})" if where else "")) from None
