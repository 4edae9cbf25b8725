"""Recipes known to the server by name (a directory of YAML files), and recipes sent inline."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from runtime.demo import DEMO_RECIPE
from runtime.recipe import Problem, Recipe, RecipeInvalid, load_recipe_with_registry
from runtime.recipe.tool_registry import ToolRegistry
from runtime.service.runs.errors import InvalidRequest, RecipeNotFound
from runtime.service.runs.registry_confinement import RegistryRoot
from runtime.service.runs.sent_recipes import load_sent_recipe


@dataclass(frozen=True)
class LoadedRecipe:
    """A valid recipe and the tool registry it was checked against (its `tools.registry`)."""

    recipe: Recipe
    registry: ToolRegistry


@dataclass(frozen=True)
class RecipeRequest:
    """The recipe as a request gave it (`which` is its `recipe` oneof field): what a replica that
    claims a queued run loads the recipe from again."""

    which: str | None
    recipe_yaml: str = ""
    recipe_name: str = ""


@dataclass(frozen=True)
class CatalogEntry:
    """One recipe file. `loaded` is None when the file is invalid; `problems` then says why."""

    name: str
    source: str
    loaded: LoadedRecipe | None
    problems: tuple[Problem, ...] = ()

    @property
    def recipe(self) -> Recipe | None:
        return self.loaded.recipe if self.loaded else None


# Recipes that ship inside the package, known to every server after its own directory's.
BUNDLED_RECIPES: tuple[Path, ...] = (DEMO_RECIPE,)


class RecipeCatalog:
    """The `*.yaml` / `*.yml` files of a directory, looked up by the recipe's `name`, then the
    bundled recipes (a file of the directory with the same name wins).

    Files are re-read when they change (size or mtime), so editing a recipe needs no restart.
    """

    def __init__(
        self, directory: Path | None, bundled: tuple[Path, ...] = BUNDLED_RECIPES, *, registry_root: Path | None = None
    ) -> None:
        self.directory = directory
        self.bundled = bundled
        # Where recipes sent by clients may name tool registries (registry_confinement.py).
        self.registry_root = RegistryRoot.of(registry_root)
        self._cache: dict[Path, tuple[tuple[int, int], CatalogEntry]] = {}

    def entries(self) -> list[CatalogEntry]:
        files: list[Path] = []
        if self.directory is not None and self.directory.is_dir():
            files = sorted(p for p in self.directory.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
        files += [p for p in self.bundled if p.is_file()]
        entries: list[CatalogEntry] = []
        seen: set[str] = set()
        for path in files:
            entry = self._entry(path)
            if entry is None or entry.name in seen:
                continue  # a later file with a name already taken is shadowed, as in the sorted order
            seen.add(entry.name)
            entries.append(entry)
        return entries

    def load(self, name: str) -> LoadedRecipe:
        for entry in self.entries():
            if entry.name == name:
                if entry.loaded is None:
                    raise RecipeInvalid(list(entry.problems))
                return entry.loaded
        known = ", ".join(e.name for e in self.entries() if e.recipe is not None) or "none"
        raise RecipeNotFound(name, known)

    def _entry(self, path: Path) -> CatalogEntry | None:
        try:
            stat = path.stat()
        except OSError:
            return None
        key = (stat.st_mtime_ns, stat.st_size)
        cached = self._cache.get(path)
        if cached and cached[0] == key:
            return cached[1]
        if path in self.bundled:
            relative = f"bundled:{path.name}"  # a path inside the installed package means nothing to clients
        else:
            relative = str(path.relative_to(self.directory)) if self.directory else str(path)
        try:
            text = path.read_text(encoding="utf-8")
            recipe, registry = load_recipe_with_registry(text, str(path), recipe_path=path)
            entry = CatalogEntry(name=recipe.name, source=relative, loaded=LoadedRecipe(recipe, registry))
        except (OSError, UnicodeDecodeError) as error:
            problem = Problem(str(path), 0, 0, "", f"cannot read the recipe: {getattr(error, 'strerror', None) or error}", "unreadable")
            entry = CatalogEntry(name=path.stem, source=relative, loaded=None, problems=(problem,))
        except RecipeInvalid as error:
            entry = CatalogEntry(name=path.stem, source=relative, loaded=None, problems=tuple(error.problems))
        self._cache[path] = (key, entry)
        return entry

    def recipe_from_request(self, which: str | None, recipe_yaml: str, recipe_name: str, source_name: str = "") -> LoadedRecipe:
        """The recipe a request names (`which` is the request's `recipe` oneof field); one sent
        inline is loaded by the policy for recipes from clients (sent_recipes.py)."""
        if which == "recipe_yaml":
            return LoadedRecipe(*load_sent_recipe(recipe_yaml, self.registry_root, source_name))
        if which == "recipe_name":
            if not recipe_name:
                raise InvalidRequest("recipe_name", "must not be empty")
            return self.load(recipe_name)
        raise InvalidRequest("recipe", "give recipe_yaml (a recipe document) or recipe_name (a recipe known to the server)")
