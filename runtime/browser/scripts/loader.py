"""Reading the page scripts and saying how they are installed and called.

Each `.js` file of this folder is one part of the namespace: run inside a function of `verity`
(the namespace object), it adds the functions it offers (`verity.captureSnapshot = ...`) and keeps
what else it declares to itself. The namespace is installed in the world it runs in under a
symbol, which no element id (a window's named properties) can stand in for, and only once:

- in every new document's isolated world, by the tab (`new_document_source`, added with
  `Page.addScriptToEvaluateOnNewDocument`), which also starts the document's churn ledger;
- in a world made for a document that began before its tab was followed, right after it is made
  (`install_declaration`), or when a call finds it missing (`NOT_INSTALLED`).

A call sends only the name and the arguments (`CALL`): the source is sent once per world, not
with every read.
"""

from __future__ import annotations

import functools
from pathlib import Path

HERE = Path(__file__).parent

# The isolated world the driver reads, checks and acts in, in every frame.
WORLD_NAME = "verity-driver"

# Where the namespace lives in its world: under this key of the world's global object.
NAMESPACE_KEY = "Symbol.for('verity.page-scripts')"
NAMESPACE = f"globalThis[{NAMESPACE_KEY}]"

# What a call says when its world has no namespace yet.
NOT_INSTALLED = "verity: the page scripts are not installed in this world"

# Calls the namespace's function `name` with `this` (the element a call is made on, if any) and
# the call's other arguments.
CALL = (
    f"function (name, ...args) {{ const verity = {NAMESPACE};"
    f" if (verity === undefined) throw new Error({NOT_INSTALLED!r});"
    " return verity[name].apply(this, args); }"
)


@functools.cache
def namespace_source() -> str:
    """A script that installs the namespace in the world it runs in, unless it is there already."""
    parts = "".join(f"((verity) => {{\n{_code(path)}\n}})(verity);\n" for path in sorted(HERE.glob("*.js")))
    # `verity.of(win)`: the namespace of another window of the same world (a frame's, the top's).
    of = f"verity.of = (win) => win[{NAMESPACE_KEY}];\n"
    return f"(() => {{\nif ({NAMESPACE} !== undefined) return;\nconst verity = Object.create(null);\n{of}{parts}{NAMESPACE} = verity;\n}})();\n"


def _code(path: Path) -> str:
    """A part's text as it is sent: without its comment lines, blank lines and indentation. Every
    document of a tab compiles the namespace as it starts (a third less text to scan; no file of
    this folder has a string or template that spans lines)."""
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//"))


@functools.cache
def new_document_source() -> str:
    """What runs first in each new document's isolated world: the namespace installed, and the
    document's churn ledger started from its first moment (ledger.js)."""
    return namespace_source() + f"{NAMESPACE}.ledger.start();\n"


@functools.cache
def install_declaration() -> str:
    """`namespace_source` as a function, for `Runtime.callFunctionOn` in a given world."""
    return f"function () {{\n{namespace_source()}}}"


@functools.cache
def main_world_script(name: str) -> str:
    """The function of `main_world/<name>.js`, for a page's own world: the file's text without
    its heading comment."""
    lines = (HERE / "main_world" / f"{name}.js").read_text(encoding="utf-8").splitlines()
    while lines and lines[0].startswith("//"):
        lines.pop(0)
    return "\n".join(lines).strip()


@functools.cache
def model_world_script(name: str) -> str:
    """The function of `model_world/<name>.js`, for the world an agent's model's page function
    runs in: the file's text without its heading comment."""
    lines = (HERE / "model_world" / f"{name}.js").read_text(encoding="utf-8").splitlines()
    while lines and lines[0].startswith("//"):
        lines.pop(0)
    return "\n".join(lines).strip()
