"""A package's exported names, each imported from the module that defines it on first use (PEP
562): `from runtime.store import RunRecord` works as ever, while importing one module of the
package (say runtime.store.location) no longer imports every module the package exports from.
The same for a registry of handlers (`LazyHandlers`): a run imports the handlers it runs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import Any, Generic, TypeVar

H = TypeVar("H")


def lazy_exports(
    package: str, exported_from: Mapping[str, tuple[str, ...]], namespace: MutableMapping[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The package's module-level `__getattr__` and `__dir__`: `exported_from` maps each module
    (relative to `package`) to the names it defines; a name is kept in `namespace` once loaded."""
    module_of = {name: module for module, names in exported_from.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *module_of})

    return __getattr__, __dir__


class LazyHandlers(Mapping[str, H], Generic[H]):
    """A registry of handlers by name whose modules are imported when a name is first looked up.

    `located` maps each name to the module (relative to `package`) and the attribute that handle
    it. Listing the names imports nothing; looking one up imports its module once. A run of a
    plan with no agent step so never imports the agent's handler, and with it the model client's
    messages, the agent loop and the action cache (BENCHMARKS.md, "Run start").
    """

    def __init__(self, package: str, located: Mapping[str, tuple[str, str]]) -> None:
        self._package = package
        self._located = dict(located)
        self._loaded: dict[str, H] = {}

    def __getitem__(self, name: str) -> H:
        handler = self._loaded.get(name)
        if handler is None:
            module, attribute = self._located[name]
            handler = self._loaded[name] = getattr(importlib.import_module(f"{self._package}.{module}"), attribute)
        return handler

    def __iter__(self) -> Iterator[str]:
        return iter(self._located)

    def __len__(self) -> int:
        return len(self._located)

    def load_all(self) -> None:
        """Import every handler now: a process that hosts runs of every kind (`verity serve`,
        `verity mcp`) pays for them once at start, not on its event loop when a run first needs one."""
        for name in self._located:
            self[name]
