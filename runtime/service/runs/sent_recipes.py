"""The one loading policy for a recipe a client sends, wherever it arrives (StartRun, Run,
ValidateRecipe, CompileRecipe, and a replica starting a queued run): its YAML is parsed once, and
that one document is what every check below and the loader read.

- The tool registry it names is confined to the server's registry root before anything reads it
  (registry_confinement.py); problems inside the operator's registry files are summarised.
- It may not name session files, nor files to upload: they would be read (and written) on the
  server's disk.
- Its problems name the source the client gave it, or `<request>`.
- Its inputs may read only `VERITY_SECRET_*` variables of the server's environment with `@env:`.

A recipe the server's own directory holds is the operator's file and loads as `verity run` loads one.
"""

from __future__ import annotations

from dataclasses import replace

from runtime.recipe import Problem, Recipe, RecipeInvalid
from runtime.recipe.load import load_recipe_document
from runtime.recipe.source import YamlDocument, read_yaml
from runtime.recipe.tool_registry import ToolRegistry
from runtime.service.runs.registry_confinement import RegistryRoot

INLINE_SOURCE = "<request>"
# The only environment variables a client may name with `@env:` in a run's inputs: a client may
# not read the server's own keys.
SERVER_ENV_PREFIX = "VERITY_SECRET_"


def load_sent_recipe(text: str, registry_root: RegistryRoot, source_name: str = "") -> tuple[Recipe, ToolRegistry]:
    """A recipe a client sent, and its registry; RecipeInvalid with what the client may see."""
    # Loaded under a fixed name: a problem with another source is from a registry file, whatever
    # name the client gives its recipe (shown in the problems it gets back).
    doc, problems = read_yaml(text, INLINE_SOURCE)
    try:
        _refuse_upload_files(doc)  # before the loader's checks look for them on the server's disk
        recipe_path = registry_root.recipe_path_for(doc, INLINE_SOURCE)
        recipe, registry = load_recipe_document(doc, problems, INLINE_SOURCE, recipe_path=recipe_path)
        _refuse_session_files(recipe, doc)
    except RecipeInvalid as error:
        shown = registry_root.redact(error.problems, INLINE_SOURCE)
        raise RecipeInvalid([replace(p, source=source_name or INLINE_SOURCE) for p in shown]) from None
    return recipe, registry


def _refuse_session_files(recipe: Recipe, doc: YamlDocument) -> None:
    """A recipe someone sent may not name session files: the server would read (and write) them
    on its own disk, with whatever cookies they hold."""
    for key in ("storage_state", "save_storage_state"):
        if getattr(recipe.session, key) is not None:
            line, col = doc.position(("session", key))
            message = "a recipe sent to the server may not name session files (they are on the server's disk); put the recipe in the server's recipe directory"
            raise RecipeInvalid([Problem(INLINE_SOURCE, line, col, f"session.{key}", message, "session_not_allowed")])


def _refuse_upload_files(doc: YamlDocument) -> None:
    """A recipe someone sent may not declare files to upload: they would be read from the
    server's disk and sent to a page (and the check that they exist would tell what is there)."""
    if isinstance(doc.data, dict) and doc.data.get("files"):
        line, col = doc.position(("files",), prefer_key=True)
        message = "a recipe sent to the server may not declare files to upload (they are on the server's disk); put the recipe and its files in the server's recipe directory"
        raise RecipeInvalid([Problem(INLINE_SOURCE, line, col, "files", message, "files_not_allowed")])
