"""`ServerConfig`: every setting of `verity serve`, checked as a whole before anything starts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from runtime.browser.supply.endpoint_specs import parse_endpoint_specs
from runtime.browser.supply.retry_schedule import DEFAULT_RETRY_MAX_SECONDS
from runtime.browser.supply.waiting_line import DEFAULT_QUEUE_LENGTH, DEFAULT_WAIT_SECONDS, WaitLimits
from runtime.service.config.bind_safety import check_bind_is_safe
from runtime.service.config.errors import ServiceConfigError
from runtime.service.config.tls_files import check_server_tls_files
from runtime.service.config.webhook_settings import (
    MAX_ATTEMPTS,
    WebhookSettings,
    allowed_url_problem,
    parse_webhook_secret,
    webhook_url_problem,
)
from runtime.store.location import StoreLocation, store_location_problem

STORE_SYNCHRONOUS_MODES = ("normal", "full")

# Bounds of browser_retry_max_seconds: below the first wait it would hammer a dead endpoint; an
# hour is the most anyone means.
MIN_BROWSER_RETRY_SECONDS = 0.5
MAX_BROWSER_RETRY_SECONDS = 3600.0


@dataclass(frozen=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 50051
    # repr=False: the token must never show up in logs or error messages.
    token: str | None = field(default=None, repr=False)
    # A SQLite file, or a PostgreSQL database (`PostgresUrl`, whose password never shows).
    store_path: StoreLocation = Path(".verity/verity.db")
    runs_dir: Path = Path(".verity/runs")
    recipes_dir: Path | None = Path("recipes")
    max_concurrent_runs: int = 8
    max_message_bytes: int = 4 * 1024 * 1024
    subscriber_buffer: int = 10_000
    retain_events_per_run: int | None = None
    shutdown_grace_seconds: float = 10.0
    # How long a start's idempotency key holds: a retry within it gets the run the key started.
    idempotency_retention_seconds: float = 24 * 3600.0
    # How long a conversation waits in `ongoing` for its next message before it ends conversation_idle.
    conversation_idle_seconds: float = 600.0
    # Extra wait to gather a store batch; group commit batches what arrives during a write anyway.
    store_flush_interval_seconds: float = 0.0
    # How long a store write waits for another process's lock before it fails and is retried.
    store_busy_timeout_seconds: float = 5.0
    # SQLite `synchronous` in WAL mode: "normal" survives a killed server (the failure this store
    # is built for); "full" also survives a power loss or OS crash, at a cost per commit.
    store_synchronous: str = "normal"
    # Whether recipes sent by clients may reach private networks (loopback, RFC 1918, link-local).
    allow_private_network: bool = False
    # The directory recipes sent by clients may name tool registries in; None: they may name none.
    tool_registry_root: Path | None = None
    # Attach to running Chromiums (their DevTools websockets) instead of launching one; with more
    # than one, runs are spread over them by load (runtime/browser/supply/browser_pool.py).
    browser_ws_endpoints: tuple[str, ...] = ()
    # PEM files; with both set the server speaks TLS only.
    tls_cert: Path | None = None
    tls_key: Path | None = None
    # Allow a token over plain text beyond loopback (a TLS-terminating proxy in front).
    insecure: bool = False
    # Replicas on one PostgreSQL store: how long a replica that stopped renewing its lease keeps
    # its runs before another interrupts them, and how often each looks for work it was not
    # notified of (NOTIFY wakes it at once otherwise).
    lease_seconds: float = 15.0
    replica_poll_seconds: float = 2.0
    # The longest wait between attempts to get back a browser that died or an endpoint that
    # dropped (the waits double from 0.5 s up to it): how soon a recovered browser serves again.
    browser_retry_max_seconds: float = DEFAULT_RETRY_MAX_SECONDS
    # Runs that find no suitable browser free, or the server at max_concurrent_runs, wait in
    # `waiting_for_browser_selection`: at most this many at once, each at most this long.
    browser_queue_length: int = DEFAULT_QUEUE_LENGTH
    browser_wait_seconds: float = DEFAULT_WAIT_SECONDS

    @property
    def wait_limits(self) -> WaitLimits:
        return WaitLimits(queue_length=self.browser_queue_length, wait_seconds=self.browser_wait_seconds)

    # Webhooks (runtime/service/runs/webhooks.py): the URL every run's terminal state goes to, the
    # URLs a run option may name instead, and the "whsec_<base64>" secret that signs them
    # (repr=False: never in logs).
    webhook_url: str | None = None
    webhook_allowed_urls: tuple[str, ...] = ()
    webhook_secret: str | None = field(default=None, repr=False)
    webhook_allow_private_network: bool = False
    webhook_attempts: int = 6
    webhook_backoff_seconds: float = 5.0
    webhook_timeout_seconds: float = 10.0

    @property
    def uses_tls(self) -> bool:
        return self.tls_cert is not None and self.tls_key is not None

    def webhook_settings(self) -> WebhookSettings | None:
        """The webhook settings, or None when the server delivers none (call validate() first)."""
        if self.webhook_secret is None or (self.webhook_url is None and not self.webhook_allowed_urls):
            return None
        return WebhookSettings(
            secret=parse_webhook_secret(self.webhook_secret),
            url=self.webhook_url,
            allowed_urls=self.webhook_allowed_urls,
            allow_private_network=self.webhook_allow_private_network,
            attempts=self.webhook_attempts,
            backoff_seconds=self.webhook_backoff_seconds,
            timeout_seconds=self.webhook_timeout_seconds,
        )

    def validate(self) -> None:
        if problem := store_location_problem(self.store_path):
            raise ServiceConfigError(problem)
        if (self.tls_cert is None) != (self.tls_key is None):
            given, missing = ("tls_cert", "tls_key") if self.tls_key is None else ("tls_key", "tls_cert")
            raise ServiceConfigError(f"{given} is set but {missing} is not: TLS needs both the certificate and its private key")
        if self.tls_cert is not None and self.tls_key is not None:
            check_server_tls_files(self.tls_cert, self.tls_key)
        check_bind_is_safe(self.host, self.token, tls=self.uses_tls, insecure=self.insecure)
        if not 0 <= self.port <= 65535:
            raise ServiceConfigError(f"port must be 0..65535, got {self.port}")
        if self.max_concurrent_runs < 1:
            raise ServiceConfigError(f"max_concurrent_runs must be at least 1, got {self.max_concurrent_runs}")
        if self.max_message_bytes < 64 * 1024:
            raise ServiceConfigError(f"max_message_bytes must be at least 65536, got {self.max_message_bytes}")
        if self.subscriber_buffer < 16:
            raise ServiceConfigError(f"subscriber_buffer must be at least 16 events, got {self.subscriber_buffer}")
        if self.retain_events_per_run is not None and self.retain_events_per_run < 1:
            raise ServiceConfigError(f"retain_events_per_run must be at least 1, got {self.retain_events_per_run}")
        if self.store_busy_timeout_seconds < 0:
            raise ServiceConfigError(f"store_busy_timeout_seconds must be 0 or more, got {self.store_busy_timeout_seconds}")
        if self.tool_registry_root is not None and not self.tool_registry_root.is_dir():
            raise ServiceConfigError(f"tool_registry_root {self.tool_registry_root} is not a directory")
        if self.store_synchronous not in STORE_SYNCHRONOUS_MODES:
            raise ServiceConfigError(f"store_synchronous must be one of {', '.join(STORE_SYNCHRONOUS_MODES)}, got {self.store_synchronous!r}")
        if self.lease_seconds < 1:
            raise ServiceConfigError(f"lease_seconds must be at least 1, got {self.lease_seconds}")
        if not 0 < self.replica_poll_seconds <= self.lease_seconds:
            raise ServiceConfigError(f"replica_poll_seconds must be more than 0 and at most lease_seconds, got {self.replica_poll_seconds}")
        if not MIN_BROWSER_RETRY_SECONDS <= self.browser_retry_max_seconds <= MAX_BROWSER_RETRY_SECONDS:
            raise ServiceConfigError(
                f"browser_retry_max_seconds must be {MIN_BROWSER_RETRY_SECONDS:g} to {MAX_BROWSER_RETRY_SECONDS:g}, got {self.browser_retry_max_seconds}"
            )
        if self.idempotency_retention_seconds <= 0:
            raise ServiceConfigError(f"idempotency_retention_seconds must be more than 0, got {self.idempotency_retention_seconds}")
        if self.conversation_idle_seconds <= 0:
            raise ServiceConfigError(f"conversation_idle_seconds must be more than 0, got {self.conversation_idle_seconds}")
        if self.shutdown_grace_seconds < 0:
            raise ServiceConfigError(f"shutdown_grace_seconds must be 0 or more, got {self.shutdown_grace_seconds}")
        if self.browser_queue_length < 0:
            raise ServiceConfigError(f"browser_queue_length must be 0 or more, got {self.browser_queue_length}")
        if not self.browser_wait_seconds > 0:
            raise ServiceConfigError(f"browser_wait_seconds must be more than 0, got {self.browser_wait_seconds}")
        self._validate_webhooks()
        try:
            parse_endpoint_specs(self.browser_ws_endpoints)
        except ValueError as error:
            raise ServiceConfigError(f"--browser-ws {error}") from None

    def _validate_webhooks(self) -> None:
        wanted = self.webhook_url is not None or bool(self.webhook_allowed_urls)
        if wanted and self.webhook_secret is None:
            raise ServiceConfigError(
                "webhooks need a secret to sign them: webhook_secret_file, --webhook-secret-file or VERITY_WEBHOOK_SECRET (whsec_ and a base64 key)"
            )
        if self.webhook_secret is not None:
            try:
                parse_webhook_secret(self.webhook_secret)
            except ValueError as error:
                raise ServiceConfigError(str(error)) from None
        if self.webhook_url is not None and (problem := webhook_url_problem(self.webhook_url, self.webhook_allow_private_network)):
            raise ServiceConfigError(f"webhook_url: {problem}")
        for entry in self.webhook_allowed_urls:
            if problem := allowed_url_problem(entry) or webhook_url_problem(entry, self.webhook_allow_private_network):
                raise ServiceConfigError(f"webhook_allowed_urls: {problem}")
        if not 1 <= self.webhook_attempts <= MAX_ATTEMPTS:
            raise ServiceConfigError(f"webhook_attempts must be 1 to {MAX_ATTEMPTS}, got {self.webhook_attempts}")
        if self.webhook_backoff_seconds < 0:
            raise ServiceConfigError(f"webhook_backoff_seconds must be 0 or more, got {self.webhook_backoff_seconds}")
        if self.webhook_timeout_seconds <= 0:
            raise ServiceConfigError(f"webhook_timeout_seconds must be more than 0, got {self.webhook_timeout_seconds}")
