"""HTTP/1.x on the wire, as much as a forward proxy needs: bounded heads and body framing.

Strict on purpose: a request the proxy cannot frame with certainty (both Content-Length and
Transfer-Encoding, an unknown coding, folded headers) is refused with a status, never guessed at,
so no byte of it can be smuggled past the judge as a second request.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

MAX_HEAD_BYTES = 64 * 1024
MAX_HEADERS = 100
COPY_CHUNK = 64 * 1024

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_VERSIONS = ("HTTP/1.0", "HTTP/1.1")
# Hop-by-hop headers (RFC 9110 7.6.1) plus the proxy's own; never forwarded as received.
HOP_BY_HOP = frozenset(
    ("connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "upgrade")
)


class WireError(Exception):
    """A request the proxy answers with `status` instead of forwarding."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Head:
    """A request head (`start` = method, target, version) or a response head (version, status,
    reason), with headers in order as received."""

    start: tuple[str, str, str]
    headers: tuple[tuple[str, str], ...]

    def header(self, name: str) -> str | None:
        values = self.values(name)
        return values[0] if values else None

    def values(self, name: str) -> list[str]:
        lowered = name.lower()
        return [value for key, value in self.headers if key.lower() == lowered]

    def tokens(self, name: str) -> set[str]:
        """Comma-separated tokens of every `name` header, lowercased (Connection, Upgrade, ...)."""
        return {token.strip().lower() for value in self.values(name) for token in value.split(",") if token.strip()}


async def read_head(reader: asyncio.StreamReader) -> bytes | None:
    """The bytes up to and including the blank line; None on a clean end of stream."""
    try:
        return await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as error:
        if not error.partial.strip():
            return None
        raise WireError(400, "the connection closed in the middle of a head") from None
    except asyncio.LimitOverrunError:
        raise WireError(431, f"the head is larger than {MAX_HEAD_BYTES} bytes") from None


def parse_request_head(raw: bytes) -> Head:
    lines = raw.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not _TOKEN.fullmatch(parts[0]) or not parts[1]:
        raise WireError(400, f"not an HTTP request line: {lines[0][:120]!r}")
    if parts[2] not in _VERSIONS:
        raise WireError(505, f"unsupported HTTP version {parts[2][:20]!r}")
    return Head((parts[0], parts[1], parts[2]), _headers(lines[1:]))


def parse_response_head(raw: bytes) -> Head:
    lines = raw.decode("latin-1").split("\r\n")
    version, _, rest = lines[0].partition(" ")
    status, _, reason = rest.partition(" ")
    if version not in _VERSIONS or not (len(status) == 3 and status.isdigit()):
        raise WireError(502, f"the upstream answered with no HTTP status line: {lines[0][:120]!r}")
    return Head((version, status, reason), _headers(lines[1:]))


def _headers(lines: list[str]) -> tuple[tuple[str, str], ...]:
    headers = []
    for line in lines:
        if not line:
            continue
        if line[0] in " \t":
            raise WireError(400, "folded header lines are not accepted")
        name, colon, value = line.partition(":")
        if not colon or not _TOKEN.fullmatch(name):
            raise WireError(400, f"not a header line: {line[:120]!r}")
        headers.append((name, value.strip(" \t")))
    if len(headers) > MAX_HEADERS:
        raise WireError(431, f"more than {MAX_HEADERS} headers")
    return tuple(headers)


@dataclass(frozen=True)
class Framing:
    """How a body ends: `none`, `length` (Content-Length bytes), `chunked`, or `eof`."""

    kind: str
    length: int = 0


NO_BODY = Framing("none")


def request_framing(head: Head) -> Framing:
    codings = head.tokens("transfer-encoding")
    lengths = head.values("content-length")
    if codings and lengths:
        raise WireError(400, "both Transfer-Encoding and Content-Length")
    if codings:
        if codings != {"chunked"} or len(head.values("transfer-encoding")) != 1:
            raise WireError(501, f"unsupported Transfer-Encoding {', '.join(sorted(codings))}")
        return Framing("chunked")
    return _length_framing(lengths, 400) or NO_BODY


def response_framing(head: Head, request_method: str) -> Framing:
    status = int(head.start[1])
    if request_method == "HEAD" or status < 200 or status in (204, 304):
        return NO_BODY
    values = head.values("transfer-encoding")
    if values:
        last = values[-1].split(",")[-1].strip().lower()
        return Framing("chunked") if last == "chunked" else Framing("eof")
    return _length_framing(head.values("content-length"), 502) or Framing("eof")


def _length_framing(values: list[str], status: int) -> Framing | None:
    if not values:
        return None
    numbers = {v.strip() for value in values for v in value.split(",")}
    if len(numbers) != 1 or not next(iter(numbers)).isdigit():
        raise WireError(status, f"bad Content-Length {', '.join(values)[:60]!r}")
    return Framing("length", int(next(iter(numbers))))


async def relay_body(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, framing: Framing) -> None:
    """Copy one body, exactly as framed, streaming: never holds more than a chunk in memory."""
    if framing.kind == "length":
        await _copy_exactly(reader, writer, framing.length)
    elif framing.kind == "chunked":
        await _relay_chunked(reader, writer)
    elif framing.kind == "eof":
        while chunk := await reader.read(COPY_CHUNK):
            writer.write(chunk)
            await writer.drain()


async def _copy_exactly(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, count: int) -> None:
    while count > 0:
        chunk = await reader.read(min(count, COPY_CHUNK))
        if not chunk:
            raise asyncio.IncompleteReadError(b"", count)
        count -= len(chunk)
        writer.write(chunk)
        await writer.drain()


async def _relay_chunked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while True:
        size_line = await _line(reader)
        size_text = size_line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise WireError(400, f"bad chunk size {size_text[:20]!r}") from None
        writer.write(size_line)
        if size == 0:
            break
        await _copy_exactly(reader, writer, size + 2)  # the chunk and its CRLF
    while True:  # trailers, up to the blank line
        line = await _line(reader)
        writer.write(line)
        if line == b"\r\n":
            await writer.drain()
            return


async def _line(reader: asyncio.StreamReader) -> bytes:
    try:
        return await reader.readuntil(b"\r\n")
    except asyncio.LimitOverrunError:
        raise WireError(400, "a chunk line is too long") from None


async def discard_body(reader: asyncio.StreamReader, framing: Framing, limit: int) -> None:
    """Read and drop a body of at most `limit` bytes, so a refusal is not lost in a connection
    reset; a larger or chunked body is left unread (the caller closes the connection)."""
    if framing.kind == "length" and framing.length <= limit:
        await reader.readexactly(framing.length)


def serialise_head(start: str, headers: list[tuple[str, str]]) -> bytes:
    lines = [start, *(f"{name}: {value}" for name, value in headers), "", ""]
    return "\r\n".join(lines).encode("latin-1")
