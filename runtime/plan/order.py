"""A run order: everything one run needs, as one value (Temporal starts a workflow from one
serialisable input; a run starts from its order).

    order = prepare_run(recipe, {"site": "http://127.0.0.1:8000"}, registry=registry,
                        run_id="r1", run_dir=Path("runs/r1"))
    handle = start_run(order, events=EventLog("r1"))          # runtime.execute

`prepare_run` is the one place a recipe becomes a run: its inputs resolved against the recipe
(defaults, types, `@env:NAME`), its plan compiled, its storage-state files resolved. The CLI, the
service and the tests all build their orders with it. The executor then reads the order and the
plan only, never the recipe. A server prepares the order when the request arrives (so a bad input
is refused before any run exists) and places it (`placed`) once the run has its id.

The run directory keeps the order it ran (order.json, `to_data`): the plan, the inputs with each
secret one as its marker (never its value), which inputs are secret, labels, session files, the
files it may upload, run id and directory.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from runtime.plan.compiler import compile_recipe
from runtime.plan.model import Plan
from runtime.plan.switches import RunSwitches
from runtime.recipe.inputs import resolve_inputs, secret_input_names
from runtime.recipe.model import Recipe
from runtime.recipe.tool_registry import ToolRegistry
from runtime.recipe.upload_files import UploadRefused, confined_file, files_root
from runtime.secrets import marker
from runtime.template.placeholders import placeholder_values


@dataclass(frozen=True)
class StorageStateFiles:
    """A recipe's storage-state files (its `session:` section), resolved: `load` is its
    session.storage_state, `save` its session.save_storage_state (relative paths against the
    recipe's directory)."""

    load: Path | None = None
    save: Path | None = None

    @classmethod
    def of(cls, recipe: Recipe) -> StorageStateFiles:
        base = recipe.directory or Path.cwd()

        def resolve(path: str | None) -> Path | None:
            return Path(os.path.abspath(base / Path(path).expanduser())) if path else None

        return cls(resolve(recipe.session.storage_state), resolve(recipe.session.save_storage_state))

    @property
    def used(self) -> bool:
        return self.load is not None or self.save is not None


@dataclass(frozen=True)
class UploadFiles:
    """The files a recipe lets its run upload (its `files:` section): name -> the path as written,
    relative to `root`, the directory each must stay inside. `path_of` is the one way from a
    name to a file, checked at the moment it is asked (the file may have changed since the
    recipe loaded)."""

    root: Path | None = None
    declared: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, recipe: Recipe) -> UploadFiles:
        return cls(files_root(recipe), dict(recipe.files)) if recipe.files else cls()

    @property
    def names(self) -> list[str]:
        return sorted(self.declared)

    def path_of(self, name: str) -> Path:
        """The file declared as `name`, still inside the root; UploadRefused saying why not."""
        if name not in self.declared or self.root is None:
            declared = ", ".join(self.names) or "none"
            raise UploadRefused(f"no file named {name!r} is declared for upload (declared: {declared}); name one of them, never a path")
        return confined_file(self.root, self.declared[name])


@dataclass(frozen=True)
class RunOrder:
    """What one run runs: its plan, its resolved inputs (`secret_inputs` names those that are
    secret: marked `secret: true`, given as `@env:NAME`, or named by the caller), its labels and
    storage-state files; and, once placed, its run id and directory."""

    plan: Plan
    inputs: Mapping[str, Any]
    secret_inputs: frozenset[str] = frozenset()
    labels: Mapping[str, str] = field(default_factory=dict)
    storage_state: StorageStateFiles = StorageStateFiles()
    uploads: UploadFiles = UploadFiles()
    # Run options over the recipe's switches (plan/switches.py), as given: `{"no_progress": "off"}`.
    switches: Mapping[str, str] = field(default_factory=dict)
    # Which of a server's browsers the run may use (RunOptions.browser_id / browser_label); "": any.
    browser_id: str = ""
    browser_label: str = ""
    run_id: str = ""
    run_dir: Path | None = None

    def placed(self, run_id: str, run_dir: Path) -> RunOrder:
        """The same order, given the id and directory its run has."""
        return replace(self, run_id=run_id, run_dir=Path(run_dir))

    @property
    def run_switches(self) -> RunSwitches:
        """The switches the run goes by: the recipe's, then the run options over them."""
        return RunSwitches.of(self.plan.switches, self.switches)

    @property
    def placeholder_values(self) -> dict[str, Any]:
        """The values `{placeholders}` are filled with: the inputs, then `start_url` and `goal`."""
        return placeholder_values(self.inputs, start_url=str(self.plan.target["start_url"]), goal=self.plan.goal)

    def to_data(self) -> dict[str, Any]:
        """The order as JSON values, as order.json keeps it: a secret input as its marker."""
        return {
            "run_id": self.run_id,
            "run_dir": str(self.run_dir) if self.run_dir is not None else None,
            "inputs": {name: marker(name) if name in self.secret_inputs else value for name, value in self.inputs.items()},
            "secret_inputs": sorted(self.secret_inputs),
            "labels": dict(self.labels),
            "browser": {"id": self.browser_id, "label": self.browser_label},
            "session": {
                "storage_state": str(self.storage_state.load) if self.storage_state.load else None,
                "save_storage_state": str(self.storage_state.save) if self.storage_state.save else None,
            },
            "files": dict(self.uploads.declared),
            "switches": dict(self.switches),
            "plan": self.plan.to_data(),
        }


def prepare_run(
    recipe: Recipe,
    raw_inputs: Mapping[str, Any],
    *,
    registry: ToolRegistry | None = None,
    run_id: str = "",
    run_dir: Path | None = None,
    labels: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
    env_prefix: str = "",
    source: str = "inputs",
    secret_inputs: Iterable[str] = (),
    switches: Mapping[str, str] | None = None,
) -> RunOrder:
    """The order of a run of `recipe` (loaded, with the tool `registry` it was checked against).

    `raw_inputs` are resolved (`resolve_inputs`: defaults, declared types, and `@env:NAME` read
    from `environ`, only names starting with `env_prefix` when one is given); a problem raises
    RecipeInvalid, with `source` as where the inputs came from. `secret_inputs` names inputs the
    caller knows are secret besides those the recipe marks and those given as `@env:NAME`.
    Without `run_id` and `run_dir` the order is to be `placed` before it runs. `switches` are
    run options over the recipe's switches (`{"no_progress": "off"}`); an unknown one raises
    SwitchInvalid.
    """
    inputs = resolve_inputs(recipe, raw_inputs, source, environ=environ, env_prefix=env_prefix)
    plan = compile_recipe(recipe, registry)
    RunSwitches.of(plan.switches, switches)  # a switch that does not exist is refused here (SwitchInvalid)
    return RunOrder(
        switches=dict(switches or {}),
        plan=plan,
        inputs=inputs,
        secret_inputs=frozenset(secret_input_names(recipe, raw_inputs) | set(secret_inputs)),
        labels=dict(labels or {}),
        storage_state=StorageStateFiles.of(recipe),
        uploads=UploadFiles.of(recipe),
        run_id=run_id,
        run_dir=Path(run_dir) if run_dir is not None else None,
    )
