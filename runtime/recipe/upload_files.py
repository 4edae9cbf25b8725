"""Files a recipe lets a run upload (`files:`): each a name and a path inside the recipe's directory.

A step (`act: {upload: ..., files: [resume]}`) and a model (`browser_file_upload`) name a file by
its name, never by a path: only `confined_file` turns a declared path into a file, and it refuses
one that is absolute, climbs out of the recipe's directory (`..`, a symlink) or is not a regular
file: when the recipe loads (a problem at file:line:col) and again at the moment of the upload.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from runtime.recipe.model import Recipe
from runtime.recipe.problems import did_you_mean
from runtime.recipe.templated import all_steps

PathParts = tuple[str | int, ...]
Finding = tuple[PathParts, str, str]


class UploadRefused(ValueError):
    """A declared file that may not be uploaded; the message says why and what to do."""


def files_root(recipe: Recipe) -> Path:
    """The directory a recipe's files must stay inside: its own (the working directory for a
    recipe that came from no file)."""
    return recipe.directory or Path(os.path.abspath(Path.cwd()))


def confined_file(root: Path, written: str) -> Path:
    """The regular file `written` names, relative to `root` and inside it once every symlink is
    followed; UploadRefused otherwise."""
    if not written or Path(written).is_absolute() or written.startswith("~"):
        raise UploadRefused(f"{written!r} is not a path relative to the recipe's directory; write one such as files/resume.pdf")
    try:
        inside = root.resolve(strict=True)
        real = (root / written).resolve(strict=True)
    except (OSError, RuntimeError):
        raise UploadRefused(f"{written!r} does not exist in {root}") from None
    if not real.is_relative_to(inside):
        raise UploadRefused(f"{written!r} leads out of the recipe's directory ({root}); a recipe may only upload files inside it")
    if not real.is_file():
        raise UploadRefused(f"{written!r} is not a regular file")
    if not os.access(real, os.R_OK):
        raise UploadRefused(f"{written!r} cannot be read")
    return real


def check_upload_files(recipe: Recipe) -> Iterator[Finding]:
    """Each declared file exists inside the recipe's directory; each upload names declared files."""
    root = files_root(recipe)
    for name, written in recipe.files.items():
        try:
            confined_file(root, written)
        except UploadRefused as refused:
            yield ("files", name), str(refused), "bad_upload_file"
    declared = set(recipe.files)
    for base, step in all_steps(recipe):
        for j, name in enumerate((step.act.files if step.act else None) or []):
            if name not in declared:
                hint = did_you_mean(name, declared) or (f"; declared: {', '.join(sorted(declared))}" if declared else "; declare it under `files:`")
                yield base + ("act", "files", j), f"no file named {name!r} under `files:`{hint}", "unknown_upload_file"
