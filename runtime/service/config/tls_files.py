"""TLS files of the server and the client: PEM files read with errors that name the file.

gRPC reports a bad certificate or a key that does not match it only as "Failed to bind", so the
server checks the pair with Python's `ssl` module first, which says what is wrong.
"""

from __future__ import annotations

import ssl
from pathlib import Path

from runtime.service.config.errors import ServiceConfigError


def read_pem(path: Path, what: str) -> bytes:
    """The PEM text of `path`, or a ServiceConfigError naming the file and `what` it should hold."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ServiceConfigError(f"{path}: cannot read the {what}: {error.strerror or error}") from None
    if b"-----BEGIN " not in data:
        raise ServiceConfigError(f"{path}: the {what} is not PEM text (expected a '-----BEGIN ...' block)")
    return data


def check_server_tls_files(cert: Path, key: Path) -> None:
    """Fail with a readable error unless `cert` is a PEM certificate chain and `key` its private key."""
    read_pem(cert, "TLS certificate")
    read_pem(key, "TLS private key")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(certfile=str(cert), keyfile=str(key))
    except ssl.SSLError as error:
        reason = error.reason or str(error)
        if reason == "KEY_VALUES_MISMATCH":
            raise ServiceConfigError(f"{key}: this private key does not belong to the certificate {cert}") from None
        raise ServiceConfigError(f"{cert} / {key}: not a usable certificate and private key ({reason})") from None


def read_root_certificates(path: Path) -> bytes:
    """The CA certificate(s) a client trusts, as PEM bytes."""
    return read_pem(path, "CA certificate")
