"""What a client checks about where it connects and how a connection failed: the host a gRPC
target names (a token goes in plain text only to loopback), and whether a failure was the TLS
handshake (which fails the same way on every retry)."""

from __future__ import annotations

# What gRPC's messages contain when the TLS handshake itself failed (as opposed to a network drop).
_HANDSHAKE_MARKERS = ("handshake failed", "ssl_error_ssl", "certificate_verify_failed")


def target_host(target: str) -> str | None:
    """The host a gRPC target names, or None for local transports (unix sockets, vsock)."""
    scheme, _, rest = target.partition(":")
    if scheme in ("unix", "unix-abstract", "vsock"):
        return None
    address = rest.lstrip("/") if scheme in ("dns", "ipv4", "ipv6") else target
    if address.startswith("["):  # [v6]:port
        return address[1 : address.index("]")] if "]" in address else None
    if address.count(":") == 1:  # host:port
        return address.split(":", 1)[0] or None
    return address or None  # a bare host or a bare IPv6 address


def is_handshake_failure(message: str) -> bool:
    lowered = message.lower()
    return any(marker in lowered for marker in _HANDSHAKE_MARKERS)
