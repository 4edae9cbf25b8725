"""The URLs a recipe names (target.start_url, navigate steps, fallback.search_url), judged by the
one URL judge (`runtime.policy.scheme_problem`) before anything runs: a scheme other than http(s)
is a problem at the field, not a page the run is refused hours later.

A URL whose scheme is written out is judged when the recipe is validated; one whose scheme comes
from a placeholder (`{site}/quotes`) is judged when the run starts, once the inputs fill it. A URL
made of values found during the run (`{steps.find.link}`) is judged by the run before it is opened.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator, Mapping
from typing import Any

from runtime.policy.urls import scheme_problem
from runtime.recipe.model import Recipe
from runtime.template.placeholders import SEARCH_QUERY, fill
from runtime.recipe.problems import Problem, format_path
from runtime.recipe.templated import all_steps
from runtime.recipe.steps import NAVIGATE

PathParts = tuple[str | int, ...]

_FORMATTER = string.Formatter()
# A scheme written out at the start of a URL (leading spaces are dropped by the URL parser too).
_WRITTEN_SCHEME = re.compile(r"\s*[A-Za-z][A-Za-z0-9+.\-]*:")
# What stands in for a placeholder when only the scheme is judged: any text leaves it unchanged.
_STAND_IN = "x"
CODE = "scheme_not_allowed"


def recipe_urls(recipe: Recipe) -> Iterator[tuple[PathParts, str]]:
    """(path, text) of every URL the recipe names."""
    yield ("target", "start_url"), recipe.target.start_url
    for path, step in all_steps(recipe):
        if step.navigate is not None:
            yield (path + (NAVIGATE,) if isinstance(step.navigate, str) else path + (NAVIGATE, "url")), step.navigate_url or ""
    if recipe.fallback.search_url is not None:
        yield ("fallback", "search_url"), recipe.fallback.search_url


def check_urls(recipe: Recipe) -> Iterator[tuple[PathParts, str, str]]:
    """Validation: every URL whose scheme is written out must be one a run may open."""
    for path, text in recipe_urls(recipe):
        written = _with_written_scheme(text)
        if written is None:
            continue
        problem = scheme_problem(written)
        if problem:
            yield path, f"{problem}; a recipe may name only http(s) pages", CODE


def url_problems_at_start(recipe: Recipe, values: Mapping[str, Any], source: str) -> list[Problem]:
    """Run start: the URLs whose scheme came from a placeholder, judged once the inputs fill them."""
    problems: list[Problem] = []
    reported: set[str] = set()
    for path, text in recipe_urls(recipe):
        if _with_written_scheme(text) is not None:
            continue  # judged when the recipe was validated
        names = _names(text)
        known = dict(values, **{SEARCH_QUERY: _STAND_IN}) if path == ("fallback", "search_url") else dict(values)
        if names is None or any(name not in known for name in names):
            continue  # a value found during the run: the run judges the URL before opening it
        filled = fill(text, known)
        problem = scheme_problem(filled)
        if problem and filled not in reported:  # `navigate: "{start_url}"` is target.start_url's problem
            reported.add(filled)
            shown = filled if len(filled) <= 120 else filled[:117] + "..."
            problems.append(Problem(source, 0, 0, format_path(path), f"{problem} (filled in: {shown!r}); a recipe may open only http(s) pages", CODE))
    return problems


def _names(text: str) -> list[str] | None:
    try:
        return [name for _literal, name, _spec, _conversion in _FORMATTER.parse(text) if name is not None]
    except ValueError:
        return None  # unbalanced braces: the placeholder check reports them


def _with_written_scheme(text: str) -> str | None:
    """The URL as far as its scheme goes, when no placeholder can change the scheme; else None."""
    try:
        parts = list(_FORMATTER.parse(text))
    except ValueError:
        return None
    if all(name is None for _literal, name, _spec, _conversion in parts):
        return "".join(literal for literal, *_ in parts)  # no placeholder: the URL itself
    first_literal = parts[0][0]
    if _WRITTEN_SCHEME.match(first_literal):
        return first_literal + _STAND_IN
    return None
