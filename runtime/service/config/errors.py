"""The one error a server's configuration fails with."""

from __future__ import annotations


class ServiceConfigError(Exception):
    """The server configuration is unsafe or inconsistent; the message says what to change."""
