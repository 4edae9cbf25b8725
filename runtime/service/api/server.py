"""The Verity gRPC server: AgentService, RecipeService, health and reflection on grpc.aio, over
the runs a `RunSupervisor` (or, on a shared PostgreSQL store, a `ReplicaSupervisor`) hosts."""

from __future__ import annotations

import asyncio
import importlib
import logging
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection
from opentelemetry.instrumentation.grpc import aio_server_interceptor
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider

from runtime.browser import LaunchOptions
from runtime.browser.launch.chromium_process import reap_stale_profiles
from runtime.execute import BrowserProvider
from runtime.policy.upstream import Resolver, system_resolver
from runtime.browser.supply.browser_pool import BrowserPool
from runtime.browser.supply.retry_schedule import retry_delays_up_to
from runtime.browser.vocabulary.errors import FENCE_REFUSALS
from runtime.service.api.agent_service import AgentServicer
from runtime.service.api.auth import BearerTokenInterceptor
from runtime.service.api.recipe_service import RecipeServicer
from runtime.service.config.errors import ServiceConfigError
from runtime.service.config.server_config import ServerConfig
from runtime.service.config.tls_files import check_server_tls_files, read_pem
from runtime.service.gen.verity.v1 import agent_service_pb2, agent_service_pb2_grpc, recipe_service_pb2, recipe_service_pb2_grpc
from runtime.service.runs.recipe_catalog import RecipeCatalog
from runtime.service.runs.hosting import SupervisorLimits
from runtime.service.runs.supervisor import RunSupervisor
from runtime.service.runs.tracing import RunTracer
from runtime.service.runs.webhooks import StoredRuns, WebhookDeliveries
from runtime.store.opening import open_action_cache
from runtime.store import BufferedRunStore, StoreError, StoreWriteError
from runtime.store.location import PostgresUrl
from runtime.store.opening import open_run_store
from runtime.store.pending_webhooks import open_pending_webhooks

_log = logging.getLogger(__name__)

AGENT_SERVICE = agent_service_pb2.DESCRIPTOR.services_by_name["AgentService"].full_name
RECIPE_SERVICE = recipe_service_pb2.DESCRIPTOR.services_by_name["RecipeService"].full_name
# Calls whose server spans are worth exporting: the ones that start, steer or read runs. Health
# checks and reflection would only add noise.
TRACED_SERVICES = ("verity.v1.AgentService/", "verity.v1.RecipeService/")


class VerityServer:
    """Build with a config, `await start()`, and `await stop()` for a graceful shutdown."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        span_processors: tuple[SpanProcessor, ...] = (),
        browser: Any = None,
        resolver: Resolver = system_resolver,
    ) -> None:
        """`resolver`: how webhook deliveries look names up (tests answer names on loopback)."""
        config.validate()
        self._resolver = resolver
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
            self._browser = BrowserPool(
                config.browser_ws_endpoints, retry_delays=retry_delays_up_to(config.browser_retry_max_seconds), wait_limits=config.wait_limits
            )
        else:
            self._browser = BrowserProvider(
                launch_options=LaunchOptions(profiles_dir=self.browser_profiles),
                supervise=True,
                retry_delays=retry_delays_up_to(config.browser_retry_max_seconds),
            )
        self._owns_browser = browser is None
        self.port: int | None = None
        self.supervisor: RunSupervisor | None = None
        self.catalog: RecipeCatalog | None = None
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
        catalog = await self.open_runs()
        assert self.supervisor is not None and self._store is not None and self._tracer is not None

        # The trace context interceptor first: a refused call is traced too.
        interceptors = [traced_calls(self._tracer.provider)]
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

    async def open_runs(self) -> RecipeCatalog:
        """The runs' side of the server without its gRPC face: the browser checked, the store open,
        the runs a previous server left in flight closed, the supervisor ready. `start` begins
        with it; another face (`verity mcp`, runtime/mcp) hosts its runs through it too, and
        `stop` closes it the same way. Returns the recipe catalog."""
        config = self.config
        # A killed predecessor's Chromium (and its profile) goes before anything else starts.
        await asyncio.to_thread(reap_stale_profiles, self.browser_profiles)
        # Off the loop, before any run: the handlers of every state and browser action.
        await asyncio.to_thread(_import_every_handler)
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
        self.catalog = RecipeCatalog(config.recipes_dir, registry_root=config.tool_registry_root)
        self.supervisor = await self._open_supervisor(self._store, self._tracer, self.catalog)
        if (webhooks := config.webhook_settings()) is not None:
            self.supervisor.webhooks = WebhookDeliveries(
                webhooks,
                pending=await asyncio.to_thread(open_pending_webhooks, config.store_path),
                runs=StoredRuns(self._store, config.runs_dir, self.supervisor.event_limits),
                resolver=self._resolver,
                lease_seconds=config.lease_seconds,
                shared=isinstance(config.store_path, PostgresUrl),
                scan_seconds=config.replica_poll_seconds,
            )
        # The verified action cache lives in the same store (the PostgreSQL one migrated above):
        # every replica replays what any of them learned.
        self.supervisor.action_cache = await asyncio.to_thread(lambda: open_action_cache(config.store_path, migrated=True))
        await self.supervisor.interrupt_stored_in_flight()
        if self.supervisor.webhooks is not None:
            self.supervisor.webhooks.resume_pending()  # runs ended (closed) first: their deliveries go on
        return self.catalog

    async def _open_supervisor(self, store: BufferedRunStore, tracer: RunTracer, catalog: RecipeCatalog) -> RunSupervisor:
        """The runs' supervisor: on a PostgreSQL store, one replica of those sharing it."""
        config = self.config
        limits = SupervisorLimits(
            max_concurrent_runs=config.max_concurrent_runs,
            subscriber_buffer=config.subscriber_buffer,
            retain_events_per_run=config.retain_events_per_run,
            max_message_bytes=config.max_message_bytes,
            allow_private_network=config.allow_private_network,
            waiting=config.wait_limits,
            idempotency_retention_seconds=config.idempotency_retention_seconds,
            conversation_idle_seconds=config.conversation_idle_seconds,
        )
        if not isinstance(config.store_path, PostgresUrl):
            return RunSupervisor(store, tracer, runs_dir=config.runs_dir, limits=limits, browser=self._browser)
        from runtime.service.replicas.supervisor import ReplicaSupervisor, ReplicaTimings, new_replica_id
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
        unfenced = [error for _, error in failed if error.code in FENCE_REFUSALS]
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
        # Without a gRPC face (open_runs alone) there is no health service and no listener to stop.
        assert self.supervisor and self._store and self._tracer
        _log.info("shutting down: no new runs; %d in flight get %.1fs", self.supervisor.live_run_count, grace)
        self.supervisor.stop_accepting()
        if self._health is not None:
            await self._health.enter_graceful_shutdown()
        await self.supervisor.drain(grace)
        # Streams of ended runs have ended by now; what remains (health watches, idle streams) is cut.
        if self._server is not None:
            await self._server.stop(grace=1.0)
        unwritten: StoreWriteError | None = None
        if self.supervisor.action_cache is not None:
            self.supervisor.action_cache.close()
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


# What a hosted run imports on first use on its event loop, beside the handlers: jsonschema (with
# referencing) checks an output schema and a recipe's own schema; PyYAML writes a condition as the
# recipe had it; a recipe with `storage_state` loads its files' models. Each costs 0.02-0.2 s of
# CPU, a stall of every other run and stream of the server (SERVICE-067).
RUN_MODULES_IMPORTED_AT_START = ("jsonschema", "referencing.jsonschema", "yaml", "runtime.execute.record.storage_state")


def _import_every_handler() -> None:
    """A server hosts runs of every kind, so it imports the handlers of every state and browser
    action once at start: `verity run` imports only those its plan runs (BENCHMARKS.md "Run
    start"), which here would be imported on the event loop that serves every other run. The
    modules a run imports on first use come with them."""
    from runtime.browser.action_handlers import HANDLERS as action_handlers
    from runtime.execute.states import HANDLERS as state_handlers

    state_handlers.load_all()
    action_handlers.load_all()
    for name in RUN_MODULES_IMPORTED_AT_START:
        importlib.import_module(name)


def traced_calls(provider: TracerProvider) -> grpc.aio.ServerInterceptor:
    """The server side of W3C trace context: reads a call's `traceparent` and opens a server span
    per AgentService/RecipeService call, current while it runs, so a run it starts joins the
    caller's trace (`RunTracer.caller_context`)."""

    def traced(details: Any) -> bool:
        return any(service in details.method for service in TRACED_SERVICES)

    return aio_server_interceptor(tracer_provider=provider, filter_=traced)


def server_credentials(cert: Path, key: Path) -> grpc.ServerCredentials:
    check_server_tls_files(cert, key)
    return grpc.ssl_server_credentials([(read_pem(key, "TLS private key"), read_pem(cert, "TLS certificate"))])
