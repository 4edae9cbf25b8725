"""Binds features/architecture_imports.feature: the import graph of runtime/, read from source."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from pytest_bdd import given, parsers, scenarios, then, when

from tests.architecture.import_graph import ImportGraph, read_import_graph
from tests.architecture.layer_rules import Layer, downstream_imports, folder_layers, layer_violations
from tests.architecture.named_imports import NamedImport, imports_of, read_imports

scenarios("architecture_imports.feature")

REPO = Path(__file__).resolve().parents[2]

# runtime/browser's layers, bottom first, as its __init__ describes them: each is a folder, and what
# a folder holds is its layer's. A new folder must be placed here.
BROWSER_LAYER_ORDER = ("vocabulary", "scripts", "launch", "tab", "action handlers", "session", "supply")
BROWSER_LAYERS, BROWSER_FOLDER_PROBLEMS = folder_layers(REPO / "runtime" / "browser", BROWSER_LAYER_ORDER)


def _names(listed: str) -> list[str]:
    """"a, b or c" -> ["a", "b", "c"]."""
    return [name.strip() for name in re.split(r",| or | and ", listed) if name.strip()]


# runtime/ is read once per process (2 s of parsing each time): every scenario only reads it.
@functools.cache
def _graph_of_runtime() -> ImportGraph:
    return read_import_graph(REPO / "runtime")


@functools.cache
def _imports_of_runtime() -> tuple[NamedImport, ...]:
    return tuple(read_imports(REPO / "runtime"))


@given("the import graph of runtime/", target_fixture="graph")
def _runtime_graph() -> ImportGraph:
    return _graph_of_runtime()


@given(parsers.parse('the file "{relative}":'))
def _file(tmp_path: Path, relative: str, docstring: str) -> None:
    path = tmp_path / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(docstring + "\n", encoding="utf-8")


@when(parsers.parse('I read the import graph of "{package}"'), target_fixture="graph")
def _read_graph(tmp_path: Path, package: str) -> ImportGraph:
    return read_import_graph(tmp_path / package)


@then("it has no import cycle")
def _no_cycle(graph: ImportGraph) -> None:
    cycles = graph.cycles()
    assert not cycles, "\n\n".join(cycle.describe() for cycle in cycles)


@then(parsers.parse('it reports the import cycle "{chain}"'))
def _reports_cycle(graph: ImportGraph, chain: str) -> None:
    described = [cycle.describe() for cycle in graph.cycles()]
    assert len(described) == 1, described
    assert described[0].splitlines()[0] == f"import cycle: {chain}", described[0]


@then(parsers.parse('the cycle is shown with the imports at "{first}" and "{second}"'))
def _cycle_lines(graph: ImportGraph, first: str, second: str) -> None:
    shown = [line.strip().split(": ")[0] for line in graph.cycles()[0].describe().splitlines()[1:]]
    assert shown == [first, second], shown


@then(parsers.parse("no module of {upstream} imports {downstream}"))
def _nothing_downstream(graph: ImportGraph, upstream: str, downstream: str) -> None:
    wrong = downstream_imports(graph, _names(upstream), _names(downstream))
    assert not wrong, "imports against the pipeline:\n" + "\n".join(edge.describe() for edge in wrong)


@then(parsers.parse('"{where}" is reported for importing "{module}" downstream'))
def _reported_downstream(graph: ImportGraph, where: str, module: str) -> None:
    wrong = downstream_imports(graph, ["browser"], ["execute"])
    assert [(f"{edge.path}:{edge.line}", edge.imported) for edge in wrong] == [(where, module)], wrong


@then(parsers.parse("runtime/browser's modules import only their own layer and the ones below: {layers}"))
def _browser_layers(graph: ImportGraph, layers: str) -> None:
    assert [layer.name for layer in BROWSER_LAYERS] == _names(layers)
    problems = BROWSER_FOLDER_PROBLEMS + layer_violations(graph, "runtime.browser", BROWSER_LAYERS)
    assert not problems, "\n".join(problems)


@then(parsers.parse('"{where}" is reported for importing the layer above it, "{layer}"'))
def _reported_upward(graph: ImportGraph, where: str, layer: str) -> None:
    problems = layer_violations(graph, "runtime.browser", BROWSER_LAYERS)
    assert len(problems) == 1 and problems[0].startswith(f"{where}: "), problems
    assert problems[0].endswith(f"imports the layer above it, {layer!r}"), problems


# runtime/service bottom first, as its __init__ describes them. A new module must be placed here.
SERVICE_ROOMS = (
    Layer("gen", ("gen",)),
    Layer("config", ("config",)),
    Layer("runs", ("runs",)),
    Layer("replicas", ("replicas",)),
    Layer("api", ("api",)),
)


@then(parsers.parse("runtime/service's modules import only their own room and the ones below: {rooms}"))
def _service_rooms(graph: ImportGraph, rooms: str) -> None:
    assert [room.name for room in SERVICE_ROOMS] == _names(rooms)
    problems = layer_violations(graph, "runtime.service", SERVICE_ROOMS)
    assert not problems, "\n".join(problems)


@then(parsers.parse('"{where}" is reported for importing the service room above it, "{room}"'))
def _reported_service_room(graph: ImportGraph, where: str, room: str) -> None:
    problems = layer_violations(graph, "runtime.service", SERVICE_ROOMS)
    assert len(problems) == 1 and problems[0].startswith(f"{where}: "), problems
    assert problems[0].endswith(f"imports the layer above it, {room!r}"), problems


@given("the source of runtime/", target_fixture="imports")
def _runtime_imports() -> list[NamedImport]:
    return list(_imports_of_runtime())


@when(parsers.parse('I read the source of "{package}"'), target_fixture="imports")
def _read_imports(tmp_path: Path, package: str) -> list[NamedImport]:
    return read_imports(tmp_path / package)


@then(parsers.parse("none of the modules of {importers} imports {names}"))
def _imports_none_of(imports: list[NamedImport], importers: str, names: str) -> None:
    rooms = [name.replace("/", ".") for name in _names(importers)]
    found = imports_of(imports, rooms, _names(names))
    assert not found, "imports the transport into a room that hosts runs:\n" + "\n".join(i.describe() for i in found)


@then(parsers.parse('"{where}" is reported for importing "{module}"'))
def _reported_import(imports: list[NamedImport], where: str, module: str) -> None:
    found = imports_of(imports, ["runtime.service.runs", "runtime.service.replicas", "runtime.service.config"], GRPC_MODULES)
    assert (where, module) in [(f"{i.path}:{i.line}", i.imported) for i in found], [i.describe() for i in found]


# What speaking gRPC takes: the library, its companions, and the stubs generated for our API.
GRPC_MODULES = ("grpc", "grpc_status", "grpc_health", "grpc_reflection", "google.rpc", "opentelemetry.instrumentation.grpc", "runtime.service.gen")
# runtime/execute bottom first, as its __init__ describes them. A new module must be placed here.
EXECUTE_ROOMS = (
    Layer("browser supply", ("provider", "browser_pool")),
    Layer("step outcome", ("step_outcome",)),
    Layer("values", ("values",)),
    Layer("judges", ("judges",)),
    Layer("record", ("record",)),
    Layer("context", ("context",)),
    Layer("reads", ("reads",)),
    Layer("acts", ("acts",)),
    Layer("agent", ("agent",)),
    Layer("states", ("states",)),
    Layer("loop", ("walker", "conversation", "run")),
)


@then(parsers.parse('"{where}" is reported for importing "{module}" from the recipe language'))
def _reported_recipe_import(graph: ImportGraph, where: str, module: str) -> None:
    wrong = downstream_imports(graph, ["execute"], ["recipe"])
    assert [(f"{edge.path}:{edge.line}", edge.imported) for edge in wrong] == [(where, module)], wrong


@then(parsers.parse("runtime/execute's modules import only their own room and the ones below: {rooms}"))
def _execute_rooms(graph: ImportGraph, rooms: str) -> None:
    assert [room.name for room in EXECUTE_ROOMS] == _names(rooms)
    problems = layer_violations(graph, "runtime.execute", EXECUTE_ROOMS)
    assert not problems, "\n".join(problems)


@then(parsers.parse('"{where}" is reported for importing the executor room above it, "{room}"'))
def _reported_execute_room(graph: ImportGraph, where: str, room: str) -> None:
    problems = layer_violations(graph, "runtime.execute", EXECUTE_ROOMS)
    assert len(problems) == 1 and problems[0].startswith(f"{where}: "), problems
    assert problems[0].endswith(f"imports the layer above it, {room!r}"), problems
