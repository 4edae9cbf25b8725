"""Which way imports may point: between the areas of runtime/, and between the layers of one area."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.architecture.import_graph import ImportEdge, ImportGraph


def area_of(module: str) -> str | None:
    """`runtime.browser.session` -> "browser"; the root package itself has no area."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def downstream_imports(graph: ImportGraph, upstream: Sequence[str], downstream: Sequence[str]) -> list[ImportEdge]:
    """Edges from a module of an `upstream` area to a module of a `downstream` area."""
    return [
        edge
        for edge in graph.edges
        if area_of(edge.importer) in upstream and area_of(edge.imported) in downstream
    ]


@dataclass(frozen=True)
class Layer:
    """A named layer of one package: its modules, given relative to the package (a name covers
    its submodules too, so "action_handlers" covers "action_handlers.act")."""

    name: str
    modules: tuple[str, ...]


def folder_layers(package_dir: Path, order: Sequence[str]) -> tuple[list[Layer], list[str]]:
    """The layers of a package whose layers are its sub-packages, one folder each, named as in
    `order` (bottom first; "action handlers" is the folder `action_handlers`), and the problems:
    a folder `order` does not place, or a layer with no folder."""
    folders = {path.name for path in package_dir.iterdir() if (path / "__init__.py").is_file()}
    layers = [Layer(name, (name.replace(" ", "_"),)) for name in order]
    named = {layer.modules[0] for layer in layers}
    problems = [f"{package_dir.name}/{folder}/ is in no layer; place it in the order of the layers" for folder in sorted(folders - named)]
    problems += [f"the layer {layer.name!r} has no folder {package_dir.name}/{layer.modules[0]}/" for layer in layers if layer.modules[0] not in folders]
    return layers, problems


def layer_violations(graph: ImportGraph, package: str, layers: Sequence[Layer]) -> list[str]:
    """Modules of `package` that sit in no layer, and imports that point to a higher layer.

    `layers` are listed bottom first; `package` itself (its `__init__`) sits above all of them.
    A module may import its own layer and the layers below it.
    """
    rank = {package: (len(layers), "the package's __init__")}
    problems = []
    for module in sorted(m for m in graph.modules if m.startswith(package + ".")):
        placed = _layer_of(module.removeprefix(package + "."), layers)
        if placed is None:
            problems.append(f"{module} is in no layer of {package}; add it to the layer it belongs to")
        else:
            rank[module] = placed
    for edge in graph.edges:
        if edge.importer not in rank or edge.imported not in rank:
            continue
        (importer_rank, importer_layer), (imported_rank, imported_layer) = rank[edge.importer], rank[edge.imported]
        if imported_rank > importer_rank:
            problems.append(f"{edge.describe()}: layer {importer_layer!r} imports the layer above it, {imported_layer!r}")
    return problems


def _layer_of(relative: str, layers: Sequence[Layer]) -> tuple[int, str] | None:
    for index, layer in enumerate(layers):
        if any(relative == name or relative.startswith(name + ".") for name in layer.modules):
            return index, layer.name
    return None
