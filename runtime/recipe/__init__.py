"""Recipes: the YAML language users write, loaded with precise errors (see model.py for the language).

The names below are imported on first use, not with the package: a module that needs one piece
(runtime.recipe.source's YAML reading, say, for `verity serve`'s config file) does not pay for
the whole language (the recipe model, its checks and tools).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from runtime.recipe.inputs import resolve_inputs, secret_input_names
    from runtime.recipe.load import load_recipe_file, load_recipe_text, load_recipe_with_registry
    from runtime.recipe.model import Recipe
    from runtime.recipe.problems import Problem, RecipeInvalid
    from runtime.recipe.steps import Step

# Each exported name, by the module of runtime.recipe that defines it.
_EXPORTED_FROM = {
    "inputs": ("resolve_inputs", "secret_input_names"),
    "load": ("load_recipe_file", "load_recipe_text", "load_recipe_with_registry"),
    "model": ("Recipe",),
    "steps": ("Step",),
    "problems": ("Problem", "RecipeInvalid"),
}
_MODULE_OF = {name: module for module, names in _EXPORTED_FROM.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'runtime.recipe' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"runtime.recipe.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF})


__all__ = [
    "Problem",
    "Recipe",
    "RecipeInvalid",
    "Step",
    "load_recipe_file",
    "load_recipe_text",
    "load_recipe_with_registry",
    "resolve_inputs",
    "secret_input_names",
]
