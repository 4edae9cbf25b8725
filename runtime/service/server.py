"""The Verity gRPC server: AgentService, RecipeService, health and reflection on grpc.aio."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection
from opentelemetry.sdk.trace import SpanProcessor

from runtime.browser import LaunchErrorCode, LaunchOptions
from runtime.browser.launch.chromium_process import reap_stale_profiles
from runtime.execute import BrowserProvider
from runtime.browser.supply.browser_pool import BrowserPool
from runtime.browser.supply.provider import DEFAULT_RETRY_MAX_SECONDS, retry_delays_up_to
from runtime.browser.launch.endpoints import endpoint_problem, redact_endpoint
from runtime.service.agent_service import AgentServicer
from runtime.service.auth import BearerTokenInterceptor, ServiceConfigError, check_bind_is_safe
from runtime.service.gen.verity.v1 import agent_service_pb2, agent_service_pb2_grpc, recipe_service_pb2, recipe_service_pb2_grpc
from runtime.service.recipe_catalog import RecipeCatalog
from runtime.service.recipe_service import RecipeServicer
from runtime.service.supervisor import RunSupervisor, SupervisorLimits
from runtime.service.tracing import RunTracer
from runtime.service.transport_security import check_server_tls_files, server_credentials
from runtime.store import BufferedRunStore, StoreError, StoreWriteError
from runtime.store.location import PostgresUrl, StoreLocation, store_location_problem
from runtime.store.opening import open_run_store

_log = logging.getLogger(__name__)

AGENT_SERVICE = agent_service_pb2.DESCRIPTOR.services_by_name["AgentService"].full_name
RECIPE_SERVICE = recipe_service_pb2.DESCRIPTOR.services_by_name["RecipeService"].full_name
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

    @property
    def uses_tls(self) -> bool:
        return self.tls_cert is not None and self.tls_key is not None

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
        if self.shutdown_grace_seconds < 0:
            raise ServiceConfigError(f"shutdown_grace_seconds must be 0 or more, got {self.shutdown_grace_seconds}")
        for endpoint in self.browser_ws_endpoints:
            if problem := endpoint_problem(endpoint):
                raise ServiceConfigError(f"--browser-ws {redact_endpoint(endpoint)}: {problem}")
        if len(set(self.browser_ws_endpoints)) != len(self.browser_ws_endpoints):
            raise ServiceConfigError("--browser-ws: an endpoint is listed twice")


class VerityServer:
    """Build with a config, `await start()`, and `await stop()` for a graceful shutdown."""

    def __init__(
        self, config: ServerConfig, *, span_processors: tuple[SpanProcessor, ...] = (), browser: Any = None
    ) -> None:
        config.validate()
        self.config = config
        self._span_processors = span_processors
        # One Chromium per server, launched on the first run and replaced when it dies; each run
        # gets its own incognito context. Its profiles live beside the store, where the next server
        # finds what a killed one left behind.
        local_home = config.store_path.parent if isinstance(config.store_path, Path) else config.runs_dir.parent
        self.browser_profiles = local_home / "chromium-profiles"
        if browser is not None:
            self._browser = browser
        elif config.browser_ws_endpoints:
            self._browser = BrowserPool(config.browser_ws_endpoints, retry_delays=retry_delays_up_to(config.browser_retry_max_seconds))
        else:
            self._browser = BrowserProvider(
                launch_options=LaunchOptions(profiles_dir=self.browser_profiles),
                supervise=True,
                retry_delays=retry_delays_up_to(config.browser_retry_max_seconds),
            )
        self._owns_browser = browser is None
        self.port: int | None = None
        self.supervisor: RunSupervisor | None = None
        self._server: grpc.aio.Server | None = None
        self._store: BufferedRunStore | None = None
        self._tracer: RunTracer | None = None
        self._health: HealthServicer | None = None
        self._stopping: asyncio.Task[None] | None = None

    @property
    def target(self) -> str:
        host = self.config.host
        host = f"[{host}]" if ":" in host and not host.startswith("[") else host
        return f"{host}:{self.port}"

    async def start(self) -> int:
        """Open the store, close runs a previous server left in flight, and listen. Returns the port."""
        config = self.config
        # A killed predecessor's Chromium (and its profile) goes before anything else starts.
        await asyncio.to_thread(reap_stale_profiles, self.browser_profiles)
        await self._refuse_unfenced_browser()
        self._tracer = RunTracer(self._span_processors)  # before the store: a bad OTEL_* setting opens nothing
        # Off the loop: opening a PostgreSQL store connects and migrates over the network.
        run_store = await asyncio.to_thread(
            open_run_store,
            config.store_path,
            busy_timeout_seconds=config.store_busy_timeout_seconds,
            synchronous=config.store_synchronous,
            runs_dir=config.runs_dir,
        )
        self._store = BufferedRunStore(run_store, flush_interval=config.store_flush_interval_seconds)
        catalog = RecipeCatalog(config.recipes_dir, registry_root=config.tool_registry_root)
        self.supervisor = await self._open_supervisor(self._store, self._tracer, catalog)
        await self.supervisor.interrupt_stored_in_flight()

        # The trace context interceptor first: a refused call is traced too.
        interceptors = [self._tracer.server_interceptor()]
        if config.token:
            interceptors.append(BearerTokenInterceptor(config.token))
        server = grpc.aio.server(
            interceptors=interceptors,
            options=[
                ("grpc.max_receive_message_length", config.max_message_bytes),
                ("grpc.max_send_message_length", config.max_message_bytes),
                ("grpc.so_reuseport", 0),
            ],
        )
        agent_service_pb2_grpc.add_AgentServiceServicer_to_server(
            AgentServicer(self.supervisor, catalog, max_response_bytes=config.max_message_bytes), server
        )
        recipe_service_pb2_grpc.add_RecipeServiceServicer_to_server(RecipeServicer(catalog), server)
        self._health = HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        reflection.enable_server_reflection(
            (AGENT_SERVICE, RECIPE_SERVICE, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
            server,
        )
        host = config.host
        bind_host = f"[{host}]" if ":" in host and not host.startswith("[") else host
        address = f"{bind_host}:{config.port}"
        try:
            if config.tls_cert is not None and config.tls_key is not None:
                self.port = server.add_secure_port(address, server_credentials(config.tls_cert, config.tls_key))
            else:
                self.port = server.add_insecure_port(address)
        except (RuntimeError, ServiceConfigError) as error:
            await self._store.close()
            raise ServiceConfigError(f"cannot listen on {bind_host}:{config.port}: {error}") from None
        await server.start()
        self._server = server
        await self.supervisor.serving(self.target)
        for service in ("", AGENT_SERVICE, RECIPE_SERVICE):
            await self._health.set(service, health_pb2.HealthCheckResponse.SERVING)
        if isinstance(self._browser, (BrowserProvider, BrowserPool)):
            self._browser.on_availability(self._browser_availability)
            if self._browser.available is False:  # the attached browser was not there at start-up
                self._browser_availability(False)
        _log.info(
            "serving on %s (auth: %s; transport: %s)",
            self.target,
            "bearer token" if config.token else "none, loopback only",
            "TLS" if config.uses_tls else "plain text",
        )
        return self.port

    async def _open_supervisor(self, store: BufferedRunStore, tracer: RunTracer, catalog: RecipeCatalog) -> RunSupervisor:
        """The runs' supervisor: on a PostgreSQL store, one replica of those sharing it."""
        config = self.config
        limits = SupervisorLimits(
            max_concurrent_runs=config.max_concurrent_runs,
            subscriber_buffer=config.subscriber_buffer,
            retain_events_per_run=config.retain_events_per_run,
            max_message_bytes=config.max_message_bytes,
            allow_private_network=config.allow_private_network,
        )
        if not isinstance(config.store_path, PostgresUrl):
            return RunSupervisor(store, tracer, runs_dir=config.runs_dir, limits=limits, browser=self._browser)
        from runtime.service.replica_supervisor import ReplicaSupervisor, ReplicaTimings, new_replica_id
        from runtime.store.pg_replicas import ReplicaDatabase

        database = ReplicaDatabase(config.store_path.url, new_replica_id(), lease_seconds=config.lease_seconds)
        try:
            await database.open()
        except Exception as error:
            await store.close()
            raise StoreError(f"{config.store_path.shown}: cannot open the replica tables: {error}") from None
        return ReplicaSupervisor(
            store,
            tracer,
            database=database,
            catalog=catalog,
            runs_dir=config.runs_dir,
            limits=limits,
            timings=ReplicaTimings(lease_seconds=config.lease_seconds, poll_seconds=config.replica_poll_seconds),
            browser=self._browser,
        )

    async def _refuse_unfenced_browser(self) -> None:
        """A server attached with --browser-ws does not start on a browser whose pages can send
        WebRTC UDP around the fence, whichever endpoint of the pool it is: a clear start-up error,
        not a server that runs unfenced. An endpoint that cannot be reached yet is left to the
        pool, which keeps reconnecting it (and probes each connection; while no endpoint passes,
        health says NOT_SERVING)."""
        if not (self._owns_browser and isinstance(self._browser, BrowserPool)):
            return
        failed = await self._browser.start_all()
        unfenced = [error for _, error in failed if error.code is LaunchErrorCode.UDP_NOT_FENCED]
        if unfenced:
            await self._browser.close()
            raise ServiceConfigError(f"--browser-ws: {unfenced[0].message}") from None

    def _browser_availability(self, available: bool) -> None:
        """Runs need a browser: while none can be had, the server and AgentService are NOT_SERVING."""
        if self._health is None or self._stopping is not None:
            return
        status = health_pb2.HealthCheckResponse.SERVING if available else health_pb2.HealthCheckResponse.NOT_SERVING
        _log.log(logging.INFO if available else logging.WARNING, "browser %s: health %s", "available" if available else "unavailable", health_pb2.HealthCheckResponse.ServingStatus.Name(status))
        for service in ("", AGENT_SERVICE):
            asyncio.ensure_future(self._health.set(service, status))

    async def stop(self, grace_seconds: float | None = None) -> None:
        """Graceful shutdown; calling it again waits for the first call to finish."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._shutdown(grace_seconds))
        await asyncio.shield(self._stopping)

    async def _shutdown(self, grace_seconds: float | None) -> None:
        grace = self.config.shutdown_grace_seconds if grace_seconds is None else grace_seconds
        assert self.supervisor and self._health and self._server and self._store and self._tracer
        _log.info("shutting down: no new runs; %d in flight get %.1fs", self.supervisor.live_run_count, grace)
        self.supervisor.stop_accepting()
        await self._health.enter_graceful_shutdown()
        await self.supervisor.drain(grace)
        # Streams of ended runs have ended by now; what remains (health watches, idle streams) is cut.
        await self._server.stop(grace=1.0)
        unwritten: StoreWriteError | None = None
        try:
            await self._store.close()
        except StoreWriteError as failure:
            unwritten = failure  # finish shutting down first, then report it
        if self._owns_browser:
            try:
                await self._browser.close()
            except Exception:  # noqa: BLE001 - a dead browser must not stop the shutdown
                _log.exception("closing the browser failed")
        self._tracer.shutdown()
        if unwritten is not None:
            raise unwritten
        _log.info("stopped")

    async def wait_for_termination(self) -> None:
        assert self._server is not None
        await self._server.wait_for_termination()
