"""Which modules of a package import a given module (ours or a third party's), read from source.

The import graph (import_graph.py) follows the package's own modules; this reads every import
statement as written, wherever it is (module level, under TYPE_CHECKING, inside a function), so
"does hosting runs touch grpc?" is answered for third-party packages too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.architecture.import_graph import import_statements, module_sources


@dataclass(frozen=True)
class NamedImport:
    """`importer` imports `imported` (as written, absolute), at `path:line`."""

    importer: str
    imported: str
    path: str
    line: int

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {self.importer} imports {self.imported}"


def read_imports(package_dir: Path) -> list[NamedImport]:
    """Every absolute import in the `.py` files under `package_dir` (a package named by its directory)."""
    package_dir = package_dir.resolve()
    found = []
    for source in module_sources(package_dir):
        shown = source.path.relative_to(package_dir.parent).as_posix()
        for node in import_statements(source.tree):
            for imported in _absolute_names(node):
                found.append(NamedImport(source.name, imported, shown, node.lineno))
    return found


def imports_of(imports: Iterable[NamedImport], importers: Iterable[str], names: Iterable[str]) -> list[NamedImport]:
    """The imports by modules under any of `importers` (dotted packages) of any module under `names`."""
    importers, names = tuple(importers), tuple(names)
    return [
        found
        for found in imports
        if any(_within(found.importer, importer) for importer in importers) and any(_within(found.imported, name) for name in names)
    ]


def _absolute_names(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        yield node.module


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")
