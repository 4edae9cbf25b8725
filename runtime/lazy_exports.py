"""A package's exported names, each imported from the module that defines it on first use (PEP
562): `from runtime.store import RunRecord` works as ever, while importing one module of the
package (say runtime.store.location) no longer imports every module the package exports from.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any


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
