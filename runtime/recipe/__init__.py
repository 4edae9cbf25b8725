"""Recipes: the YAML language users write, loaded with precise errors (see model.py for the language)."""

from runtime.recipe.inputs import resolve_inputs, secret_input_names
from runtime.recipe.load import load_recipe_file, load_recipe_text, load_recipe_with_registry
from runtime.recipe.model import Recipe
from runtime.recipe.steps import Step
from runtime.recipe.problems import Problem, RecipeInvalid

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
