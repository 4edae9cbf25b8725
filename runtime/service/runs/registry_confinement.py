"""Recipes sent by clients stay out of the server's files.

A recipe's `tools.registry` names a directory the loader reads every JSON/YAML file of; its
problems name those files and what is in them. Fine for a recipe on the operator's disk; for one
that arrives over gRPC it would let any client read the server's disk through error replies. So
for an inline recipe:

- `tools.registry` is allowed only when the server has a `tool_registry_root`, and then only as a
  relative path inside it: an absolute path, a `..` component, or anything that resolves outside
  the root (a symlink, the directory or any descriptor file in it) is refused;
- every refusal has the same wording whatever is on the disk, so a reply never tells whether a
  path exists, is a directory, or what it holds;
- problems inside an allowed registry (the operator's files) are reported as one line without
  file names, keys or contents; the server log has the details for the operator.

The recipe language names no other file: URLs are judged by the network policy (a `file:` URL is
`scheme_not_allowed`), and output schemas never fetch a `$ref`.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

from runtime.recipe import Problem, RecipeInvalid
from runtime.recipe.source import YamlDocument
from runtime.recipe.tool_registry import registry_files

_log = logging.getLogger(__name__)

REGISTRY_FIELD = "tools.registry"
REFUSED_CODE = "registry_not_offered"
# The name a confined inline recipe is loaded under: its registry resolves against the root.
_INLINE_RECIPE_NAME = "inline-recipe.yaml"


@dataclass(frozen=True)
class RegistryRoot:
    """The directory inline recipes may name tool registries in (None: they may name none)."""

    path: Path | None

    @classmethod
    def of(cls, path: Path | None) -> RegistryRoot:
        return cls(Path(os.path.realpath(path)) if path is not None else None)

    def recipe_path_for(self, doc: YamlDocument, source: str) -> Path | None:
        """Where to load an inline recipe (read into `doc`, whose own problems the loader reports)
        from so its `tools.registry` resolves inside the root.

        Raises RecipeInvalid (one problem at tools.registry) when the registry it names is not
        one this server offers; None when it names none."""
        tools = doc.data.get("tools") if isinstance(doc.data, dict) else None
        requested = tools.get("registry") if isinstance(tools, dict) else None
        if not isinstance(requested, str):
            return None  # absent, or not a path: the loader refuses its type before reading anything
        line, col = doc.position(("tools", "registry"))
        if self.path is None:
            raise RecipeInvalid(
                [
                    Problem(
                        source, line, col, REGISTRY_FIELD,
                        "this server offers no tool registries to recipes sent by clients (no tool_registry_root "
                        "is configured); leave tools.registry out, or start a recipe the server knows by name",
                        REFUSED_CODE,
                    )
                ]
            )
        if not self._inside(requested):
            raise RecipeInvalid(
                [
                    Problem(
                        source, line, col, REGISTRY_FIELD,
                        f"{requested!r} is not a tool registry this server offers: name a directory relative to "
                        "the server's tool registry root, without '..'",
                        REFUSED_CODE,
                    )
                ]
            )
        return self.path / _INLINE_RECIPE_NAME

    def redact(self, problems: list[Problem], source: str) -> list[Problem]:
        """The problems a client may see: those of its own recipe; one line for the registry's."""
        own = [p for p in problems if p.source == source and (p.code == REFUSED_CODE or not p.code.startswith("registry_"))]
        registry = [p for p in problems if p not in own]
        if not registry:
            return problems
        for problem in registry:
            _log.warning("tool registry problem hidden from a client: %s", problem)
        position = next(((p.line, p.col) for p in problems if p.source == source and p.path == REGISTRY_FIELD), (0, 0))
        return [
            *own,
            Problem(
                source, *position, REGISTRY_FIELD,
                "the tool registry this recipe names cannot be used on this server; its operator finds the reason "
                "in the server log",
                "registry_unusable",
            ),
        ]

    def _inside(self, requested: str) -> bool:
        assert self.path is not None
        for flavour in (PurePosixPath, PureWindowsPath):
            pure = flavour(requested)
            if pure.is_absolute() or pure.drive or pure.root or ".." in pure.parts:
                return False
        if not requested.strip() or "\x00" in requested:
            return False
        directory = self._resolved(self.path / requested)
        if directory is None or not directory.is_dir():
            return False
        try:
            files = registry_files(directory)
        except (OSError, ValueError):
            return False
        return all(self._resolved(file) is not None for file in files)

    def _resolved(self, path: Path) -> Path | None:
        """`path` with every symlink followed, if that stays inside the root; else None."""
        assert self.path is not None
        try:
            real = Path(os.path.realpath(path))
        except (OSError, ValueError):
            return None
        return real if real == self.path or self.path in real.parents else None
