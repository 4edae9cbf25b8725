"""Fetch the pinned mermaid.js bundle from the npm registry into .cache/ (used to prove that
`verity recipe compile --format mermaid` output renders, in real Chromium).

The tarball's sha512 is checked against the integrity the registry published for this version.
"""

from __future__ import annotations

import base64
import hashlib
import io
import sys
import tarfile
import urllib.request
from pathlib import Path

VERSION = "11.12.3"
TARBALL = f"https://registry.npmjs.org/mermaid/-/mermaid-{VERSION}.tgz"
INTEGRITY = "sha512-wN5ZSgJQIC+CHJut9xaKWsknLxaFBwCPwPkGTSUYrTiHORWvpT8RxGk849HPnpUAQ+/9BPRqYb80jTpearrHzQ=="
TARGET = Path(__file__).resolve().parent.parent / ".cache" / f"mermaid-{VERSION}" / "mermaid.min.js"


def main() -> int:
    if TARGET.exists():
        return 0
    try:
        with urllib.request.urlopen(TARBALL, timeout=120) as response:
            data = response.read()
    except OSError as error:
        print(f"fetch_mermaid: cannot download {TARBALL}: {error}", file=sys.stderr)
        return 1
    digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if digest != INTEGRITY:
        print(f"fetch_mermaid: integrity mismatch for mermaid {VERSION}", file=sys.stderr)
        return 1
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        member = archive.extractfile("package/dist/mermaid.min.js")
        assert member is not None
        TARGET.parent.mkdir(parents=True, exist_ok=True)
        TARGET.write_bytes(member.read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
