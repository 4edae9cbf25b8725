"""Where the run store lives: a SQLite file. What cannot be one is refused before anything is created."""

from __future__ import annotations

import re
from pathlib import Path

# "postgresql://h/db" read as a path becomes "postgresql:/h/db": a scheme followed by ":/".
_URL_LIKE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:/")


def store_location_problem(location: str | Path) -> str | None:
    """Why `location` cannot be the run store, or None when it can."""
    text = str(location)
    if _URL_LIKE.match(text):
        scheme = text.split(":", 1)[0]
        return (
            f"store {text!r} names a {scheme} server: this version keeps runs in a SQLite file only; "
            "give a file path (default .verity/verity.db)"
        )
    if Path(text).is_dir():
        return f"store {text!r} is a directory: give the SQLite file's path, e.g. {text.rstrip('/')}/verity.db"
    return None
