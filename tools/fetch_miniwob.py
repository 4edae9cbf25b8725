"""Fetch the pinned MiniWoB++ wheel (PyPI `miniwob`) and unpack its task pages into .cache/.

Only the static task pages (`miniwob/html/`) are used: tests serve them on loopback and drive them
with Verity. The Python package (and its selenium, gymnasium and numpy dependencies) is never
installed, so the wheel is fetched like mermaid.js rather than locked as a dependency. The
wheel's sha256 is checked against the pin.
"""

from __future__ import annotations

import hashlib
import io
import sys
import urllib.request
import zipfile
from pathlib import Path

VERSION = "1.1.0"
WHEEL = (
    "https://files.pythonhosted.org/packages/fc/a1/a34e0cc33dcba9de00001695979d2b9e3cc2de03bacdf010f045fb084afe/"
    f"miniwob-{VERSION}-py3-none-any.whl"
)
SHA256 = "297006e84219d56ad037e843527ed773a4a82509dc43b6031ec4a3ad3e3e61d9"
TARGET = Path(__file__).resolve().parent.parent / ".cache" / f"miniwob-{VERSION}" / "html"
PREFIX = "miniwob/html/"


def main() -> int:
    if (TARGET / "core" / "core.js").exists():
        return 0
    try:
        with urllib.request.urlopen(WHEEL, timeout=120) as response:
            data = response.read()
    except OSError as error:
        print(f"fetch_miniwob: cannot download {WHEEL}: {error}", file=sys.stderr)
        return 1
    if hashlib.sha256(data).hexdigest() != SHA256:
        print(f"fetch_miniwob: sha256 mismatch for miniwob {VERSION}", file=sys.stderr)
        return 1
    with zipfile.ZipFile(io.BytesIO(data)) as wheel:
        for name in wheel.namelist():
            if not name.startswith(PREFIX) or name.endswith("/"):
                continue
            relative = Path(name[len(PREFIX):])
            if ".." in relative.parts:
                continue
            destination = TARGET / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(wheel.read(name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
