"""`verity serve --config FILE`: server settings as a YAML mapping, checked with file:line:col."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runtime.recipe.source import read_yaml
from runtime.service.config.errors import ServiceConfigError
from runtime.store.location import PostgresUrl, parse_store_location, store_location_problem
from runtime.service.config.browser_endpoints import checked_endpoints, read_endpoints_file

# YAML key -> (ServerConfig field, expected type). Paths are resolved against the config's folder.
CONFIG_KEYS: dict[str, tuple[str, type]] = {
    "host": ("host", str),
    "port": ("port", int),
    "token": ("token", str),
    "token_file": ("token", Path),
    "store": ("store_path", Path),
    "runs_dir": ("runs_dir", Path),
    "recipes_dir": ("recipes_dir", Path),
    "max_concurrent_runs": ("max_concurrent_runs", int),
    "max_message_bytes": ("max_message_bytes", int),
    "subscriber_buffer": ("subscriber_buffer", int),
    "retain_events_per_run": ("retain_events_per_run", int),
    "shutdown_grace_seconds": ("shutdown_grace_seconds", float),
    "idempotency_retention_seconds": ("idempotency_retention_seconds", float),
    "conversation_idle_seconds": ("conversation_idle_seconds", float),
    "lease_seconds": ("lease_seconds", float),
    "replica_poll_seconds": ("replica_poll_seconds", float),
    "browser_retry_max_seconds": ("browser_retry_max_seconds", float),
    "browser_queue_length": ("browser_queue_length", int),
    "browser_wait_seconds": ("browser_wait_seconds", float),
    "store_busy_timeout_seconds": ("store_busy_timeout_seconds", float),
    "store_synchronous": ("store_synchronous", str),
    "allow_private_network": ("allow_private_network", bool),
    "tool_registry_root": ("tool_registry_root", Path),
    "tls_cert": ("tls_cert", Path),
    "tls_key": ("tls_key", Path),
    "insecure": ("insecure", bool),
    # A DevTools URL or a list of them, and a file of them; both add to one pool.
    "browser_ws": ("browser_ws_endpoints", list),
    "browser_ws_file": ("browser_ws_endpoints", Path),
    "webhook_url": ("webhook_url", str),
    "webhook_allowed_urls": ("webhook_allowed_urls", list),
    # The secret only from a file (or VERITY_WEBHOOK_SECRET): a config file is often shared.
    "webhook_secret_file": ("webhook_secret", Path),
    "webhook_allow_private_network": ("webhook_allow_private_network", bool),
    "webhook_attempts": ("webhook_attempts", int),
    "webhook_backoff_seconds": ("webhook_backoff_seconds", float),
    "webhook_timeout_seconds": ("webhook_timeout_seconds", float),
}


def read_token_file(path: Path, what: str = "token file") -> str:
    try:
        token = path.read_text(encoding="utf-8").strip()
    except OSError as error:
        raise ServiceConfigError(f"{path}: cannot read the {what}: {error.strerror or error}") from None
    if not token:
        raise ServiceConfigError(f"{path}: the {what} is empty")
    return token


def load_config_file(path: Path) -> dict[str, Any]:
    """ServerConfig keyword arguments from a YAML file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ServiceConfigError(f"{path}: cannot read the config: {getattr(error, 'strerror', None) or error}") from None
    # The shared reader: no YAML tag is ever constructed, duplicate keys are errors, and every key
    # keeps its position.
    doc, problems = read_yaml(text, str(path), what="server config")
    if [p.code for p in problems] == ["empty"]:
        return {}  # an empty config file means "all defaults"
    if problems:
        first = problems[0]
        where = f"{path}:{first.line}:{first.col}" if first.line else str(path)
        raise ServiceConfigError(f"{where}: {first.message}")
    data = doc.data
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ServiceConfigError(f"{path}:1:1: the config is a YAML mapping of keys such as host, port, store")
    values: dict[str, Any] = {}
    endpoints: list[tuple[str, str]] = []
    for key, value in data.items():
        line, col = doc.position((key,), prefer_key=True)
        where = f"{path}:{line}:{col}"
        if key not in CONFIG_KEYS:
            raise ServiceConfigError(f"{where}: unknown key {key!r} (known: {', '.join(CONFIG_KEYS)})")
        field, expected = CONFIG_KEYS[key]
        if key == "browser_ws":
            urls = [value] if isinstance(value, str) else value
            if not isinstance(urls, list) or not all(isinstance(url, str) for url in urls):
                raise ServiceConfigError(f"{where}: browser_ws must be a ws:// URL or a list of them")
            for index, url in enumerate(urls):
                at = doc.position((key,) if isinstance(value, str) else (key, index))
                endpoints.append((f"{path}:{at[0]}:{at[1]}", url))
            continue
        if key == "webhook_allowed_urls":
            if not isinstance(value, list) or not all(isinstance(url, str) for url in value):
                raise ServiceConfigError(f"{where}: webhook_allowed_urls must be a list of URLs")
            values[field] = tuple(value)
            continue
        if expected is Path:
            if not isinstance(value, str) or not value:
                raise ServiceConfigError(f"{where}: {key} must be a path")
            if key == "store" and (problem := store_location_problem(value)):
                raise ServiceConfigError(f"{where}: {problem}")
            if key == "store" and isinstance(location := parse_store_location(value), PostgresUrl):
                values[field] = location
                continue
            resolved = (path.parent / value).resolve()
            if key == "browser_ws_file":
                endpoints.extend(read_endpoints_file(resolved))
                continue
            if key == "token_file":
                values[field] = read_token_file(resolved)
            elif key == "webhook_secret_file":
                values[field] = read_token_file(resolved, "webhook secret file")
            else:
                values[field] = resolved
        elif expected is float and isinstance(value, (int, float)) and not isinstance(value, bool):
            values[field] = float(value)
        elif expected is bool:
            if not isinstance(value, bool):
                raise ServiceConfigError(f"{where}: {key} must be true or false, got {value!r}")
            values[field] = value
        elif isinstance(value, expected) and not isinstance(value, bool):
            values[field] = value
        else:
            raise ServiceConfigError(f"{where}: {key} must be {expected.__name__}, got {value!r}" if key != "token" else f"{where}: token must be text")
    if endpoints:
        values["browser_ws_endpoints"] = checked_endpoints(endpoints)
    return values
