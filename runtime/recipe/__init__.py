"""Recipes: the YAML language users write, loaded with precise errors (see model.py for the language).

The names below are imported on first use, not with the package: a module that needs one piece
(runtime.recipe.source's YAML reading, say, for `verity serve`'s config file) does not pay for
the whole language (the recipe model, its checks and tools).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from runtime.lazy_exports import lazy_exports

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
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTED_FROM, globals())

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
