"""A raw-socket HTTP client for the proxy tests: it sends exactly the bytes a test names and reads
what comes back, so malformed requests, CONNECT and WebSocket handshakes need no library."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field

CEILING_SECONDS = 30.0  # a generous bound on any one read; never a speed assertion


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


def connect(port: int, host: str = "127.0.0.1") -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(CEILING_SECONDS)
    sock.connect((host, port))
    return sock


def read_head(sock: socket.socket) -> tuple[RawResponse, bytes]:
    """The status and headers; also the bytes already read past the head."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before a full response head: {data[:200]!r}")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return RawResponse(int(lines[0].split(" ")[1]), headers), rest


def read_response(sock: socket.socket) -> RawResponse:
    """One response: its body by Content-Length, or up to the end of the stream."""
    response, body = read_head(sock)
    length = response.header("content-length")
    if length is not None:
        while len(body) < int(length):
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
    else:
        while chunk := sock.recv(65536):
            body += chunk
    response.body = body
    return response


def exchange(port: int, data: bytes, host: str = "127.0.0.1") -> RawResponse:
    with connect(port, host) as sock:
        sock.sendall(data)
        return read_response(sock)


def request_bytes(method: str, target: str, host: str, headers: dict[str, str] | None = None, body: bytes = b"") -> bytes:
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    if body:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


WEBSOCKET_HEADERS = {
    "Upgrade": "websocket",
    "Connection": "Upgrade",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version": "13",
}
