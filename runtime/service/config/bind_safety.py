"""Where a server may listen with which credentials: beyond this machine only with a token, and a
token only over TLS (or behind a TLS-terminating proxy, said with `insecure`). The client asks the
same question before it sends a token."""

from __future__ import annotations

import ipaddress

from runtime.service.config.errors import ServiceConfigError


def is_loopback_host(host: str) -> bool:
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind_is_safe(host: str, token: str | None, *, tls: bool = False, insecure: bool = False) -> None:
    """Refuse to listen beyond this machine without a token, or with a token sent in plain text."""
    if is_loopback_host(host):
        return
    if not token:
        raise ServiceConfigError(
            f"refusing to listen on {host!r} without a token: anyone who can reach it could start runs. "
            "Set VERITY_TOKEN (or --token-file / `token:` in the config), or listen on 127.0.0.1"
        )
    if not tls and not insecure:
        raise ServiceConfigError(
            f"refusing to listen on {host!r} with a bearer token but without TLS: the token would cross the "
            "network in plain text. Give --tls-cert FILE and --tls-key FILE (`tls_cert:`/`tls_key:` in the "
            "config), or pass --insecure (`insecure: true`) if a TLS-terminating proxy protects the traffic"
        )
