"""The import graph of a Python package, read from source with `ast`, and the cycles in it.

Every import counts, wherever it is written: at module level, under `if TYPE_CHECKING:`, inside a
function. A layer that names the layer above it, even only for a type, is a design cycle.
Relative imports are resolved, and a name imported from a package is followed through the
package's `__init__` re-exports to the module that defines it, so `from runtime.browser import
BrowserSession` is an edge to `runtime.browser.session`, not to the package.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class ImportEdge:
    """`importer` imports `imported`, written at `path:line`."""

    importer: str
    imported: str
    path: str
    line: int

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {self.importer} imports {self.imported}"


@dataclass(frozen=True)
class ImportCycle:
    """Modules that import each other: the whole group, and one chain of imports that closes it."""

    modules: tuple[str, ...]
    chain: tuple[ImportEdge, ...]

    def describe(self) -> str:
        loop = " -> ".join([self.chain[0].importer, *(edge.imported for edge in self.chain)])
        lines = [f"import cycle: {loop}", *(f"  {edge.describe()}" for edge in self.chain)]
        if len(self.modules) > len(self.chain):
            lines.append(f"  (these modules all import each other through some chain: {', '.join(self.modules)})")
        return "\n".join(lines)


@dataclass(frozen=True)
class ModuleSource:
    name: str
    path: Path
    is_package: bool
    tree: ast.Module


@dataclass
class ImportGraph:
    """Modules of one package (dotted names) and the import edges between them."""

    root: Path
    modules: set[str] = field(default_factory=set, repr=False)
    edges: list[ImportEdge] = field(default_factory=list, repr=False)

    def cycles(self) -> list[ImportCycle]:
        """Every group of modules that import each other, each with one chain that closes it."""
        by_importer: dict[str, list[ImportEdge]] = {}
        for edge in self.edges:
            by_importer.setdefault(edge.importer, []).append(edge)
        found = []
        for group in _strongly_connected(self.modules, by_importer):
            first = min(group)
            if len(group) > 1 or any(edge.imported == first for edge in by_importer.get(first, [])):
                chain = _cycle_through(first, group, by_importer)
                found.append(ImportCycle(tuple(sorted(group)), tuple(chain)))
        return sorted(found, key=lambda cycle: cycle.modules)


def read_import_graph(package_dir: Path) -> ImportGraph:
    """Parse every `.py` file under `package_dir` (a package; its name is the directory's name)."""
    package_dir = package_dir.resolve()
    sources = {source.name: source for source in module_sources(package_dir)}
    graph = ImportGraph(root=package_dir.parent, modules=set(sources))
    seen: set[ImportEdge] = set()
    for source in sources.values():
        shown = source.path.relative_to(graph.root).as_posix()
        for node in import_statements(source.tree):
            for imported in _imported_modules(node, source, sources):
                edge = ImportEdge(source.name, imported, shown, node.lineno)
                # A package's `from . import name` of its own definitions is no edge.
                if not (source.is_package and imported == source.name) and edge not in seen:
                    seen.add(edge)
                    graph.edges.append(edge)
    return graph


# --------------------------------------------------------------------------- reading


def module_sources(package_dir: Path) -> tuple[ModuleSource, ...]:
    """Every `.py` file under `package_dir`, parsed, in path order. Parsing runtime/ is most of a
    reading's cost (about a second), and the graph and the named imports read the same files, so
    a process parses each package once; a test's package in tmp_path is a new path each time."""
    return _parsed(package_dir.resolve())


@functools.cache
def _parsed(package_dir: Path) -> tuple[ModuleSource, ...]:
    found = []
    for path in sorted(package_dir.rglob("*.py")):
        relative = path.relative_to(package_dir.parent).with_suffix("")
        parts = relative.parts
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found.append(ModuleSource(".".join(parts), path, is_package, tree))
    return tuple(found)


# The fields through which one statement holds others: an import is a statement, so it is found
# without visiting a single expression (most of a module's nodes), wherever it is written.
_NESTED_STATEMENTS = ("body", "orelse", "finalbody", "handlers", "cases")


def import_statements(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every `import` and `from ... import` in `tree`: at module level, under `if`/`try`/`with`,
    inside functions and classes; in the order they are written."""
    pending: list[ast.AST] = list(reversed(tree.body))
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        for name in _NESTED_STATEMENTS:
            nested = getattr(node, name, None)
            if isinstance(nested, list):
                pending.extend(reversed(nested))


def _imported_modules(node: ast.AST, source: ModuleSource, sources: dict[str, ModuleSource]) -> Iterable[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            known = _longest_known_prefix(alias.name, sources)
            if known is not None:
                yield known
    elif isinstance(node, ast.ImportFrom):
        base = _absolute_base(node, source)
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            if submodule in sources:
                yield submodule
            elif base in sources:
                yield _defining_module(base, alias.name, sources, seen=set())


def _absolute_base(node: ast.ImportFrom, source: ModuleSource) -> str:
    if node.level == 0:
        return node.module or ""
    # `from . import x` in a package's __init__ is relative to that package; elsewhere to the parent.
    package = source.name.split(".") if source.is_package else source.name.split(".")[:-1]
    anchor = package[: len(package) - (node.level - 1)]
    return ".".join([*anchor, node.module] if node.module else anchor)


def _longest_known_prefix(dotted: str, sources: dict[str, ModuleSource]) -> str | None:
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in sources:
            return candidate
    return None


def _defining_module(module: str, name: str, sources: dict[str, ModuleSource], seen: set[str]) -> str:
    """Follow `name` through a package's `__init__` re-exports to the module that defines it."""
    source = sources[module]
    if not source.is_package or module in seen:
        return module
    seen.add(module)
    for statement in source.tree.body:
        if not isinstance(statement, ast.ImportFrom):
            continue
        for alias in statement.names:
            if (alias.asname or alias.name) != name:
                continue
            base = _absolute_base(statement, source)
            if f"{base}.{alias.name}" in sources:
                return f"{base}.{alias.name}"
            if base in sources:
                return _defining_module(base, alias.name, sources, seen)
    return module


# --------------------------------------------------------------------------- cycles


def _strongly_connected(nodes: set[str], by_importer: dict[str, list[ImportEdge]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative so a deep package cannot hit the recursion limit."""
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[set[str]] = []
    counter = 0
    for start in sorted(nodes):
        if start in index:
            continue
        work: list[tuple[str, Iterator[ImportEdge]]] = [(start, iter(by_importer.get(start, [])))]
        index[start] = lowlink[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for edge in edges:
                target = edge.imported
                if target not in index:
                    index[target] = lowlink[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(by_importer.get(target, []))))
                    advanced = True
                    break
                if target in on_stack:
                    lowlink[node] = min(lowlink[node], index[target])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                lowlink[parent] = min(lowlink[parent], lowlink[node])
            if lowlink[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                groups.append(group)
    return groups


def _cycle_through(start: str, group: set[str], by_importer: dict[str, list[ImportEdge]]) -> list[ImportEdge]:
    """The shortest chain of edges inside `group` from `start` back to `start` (breadth first)."""
    came_by: dict[str, ImportEdge] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for edge in sorted(by_importer.get(node, []), key=lambda e: (e.imported, e.line)):
                if edge.imported not in group:
                    continue
                if edge.imported == start:
                    chain = [edge]
                    while chain[0].importer != start:
                        chain.insert(0, came_by[chain[0].importer])
                    return chain
                if edge.imported not in came_by:
                    came_by[edge.imported] = edge
                    following.append(edge.imported)
        frontier = following
    raise AssertionError(f"{sorted(group)} is strongly connected but no cycle through {start} was found")
