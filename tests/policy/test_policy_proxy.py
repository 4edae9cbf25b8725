"""Binds features/policy_proxy.feature: the real proxy on the shared test loop, real sockets, the
hostile site's allowed host and counting off-domain host. Nothing of the proxy is mocked; the
resolver is injected where a scenario needs a name to resolve to a chosen address."""

from __future__ import annotations

import http.client
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from runtime.policy import BlockedRequest, NetworkPolicy, PolicyProxy
from tests.fixtures.browser_loop import LoopThread
from tests.fixtures.hostile.site import HostileSite
from tests.policy.raw_client import WEBSOCKET_HEADERS, RawResponse, connect, exchange, read_head, read_response, request_bytes

scenarios("policy_proxy.feature")


class ScriptedResolver:
    """Answers one name with the next scripted address list on each call, and counts the calls."""

    def __init__(self, name: str, answers: list[list[str]]) -> None:
        self.name = name
        self.answers = answers
        self.calls = 0

    async def __call__(self, name: str, port: int) -> list[str]:
        assert name == self.name, f"asked to resolve {name!r}"
        answer = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        return answer


@dataclass
class ProxyWorld:
    site: HostileSite
    loop: LoopThread
    proxy: PolicyProxy | None = None
    resolver: ScriptedResolver | None = None
    heard: list[BlockedRequest] = field(default_factory=list)
    heard_when_answered: list[int] = field(default_factory=list)
    response: RawResponse | None = None
    payload: bytes = b""
    tunnel: socket.socket | None = None
    answers_on_one_connection: int = 0
    stopped_port: int = 0

    def start(self, policy: NetworkPolicy, **options: object) -> PolicyProxy:
        self.stop()
        self.proxy = self.loop.run(PolicyProxy(policy, resolver=self.resolver, **options).start())  # type: ignore[arg-type]
        return self.proxy

    def stop(self) -> None:
        if self.proxy is not None:
            self.loop.run(self.proxy.stop())
            self.proxy = None

    @property
    def port(self) -> int:
        assert self.proxy is not None, "the scenario must start a proxy first"
        return self.proxy.port

    def fill(self, text: str) -> str:
        return text.replace("{off}", str(self.site.off_port)).replace("{allowed}", str(self.site.allowed_port))

    @property
    def last(self) -> RawResponse:
        assert self.response is not None, "the scenario must send a request first"
        return self.response


@pytest.fixture
def world(hostile: HostileSite, loop_thread: LoopThread) -> Iterator[ProxyWorld]:
    proxy_world = ProxyWorld(hostile, loop_thread)
    yield proxy_world
    if proxy_world.tunnel is not None:
        proxy_world.tunnel.close()
    proxy_world.stop()


def _request(world: ProxyWorld, request: str, headers: dict[str, str] | None = None) -> bytes:
    """`METHOD target` as bytes: WEBSOCKET is a GET with the upgrade headers, POST carries a body."""
    method, target = world.fill(request).split(" ", 1)
    target = target.replace(" ", "%20")
    if method == "CONNECT":
        return request_bytes("CONNECT", target, target, headers)
    host = target.split("/")[2] if "://" in target else target
    if method == "WEBSOCKET":
        return request_bytes("GET", target, host, {**WEBSOCKET_HEADERS, **(headers or {})})
    body = b"secret=s3cret" if method == "POST" else b""
    return request_bytes(method, target, host, headers, body)


def _wire(text: str) -> bytes:
    """A feature's escaped bytes (`\\r\\n`, whether or not Gherkin already turned `\\n` into a
    newline) as real CRLF bytes."""
    text = text.replace("\\r", "").replace("\\n", "\n").replace("\r\n", "\n")
    return text.replace("\n", "\r\n").encode("latin-1")


# ---------------------------------------------------------------- proxies


@given("a policy proxy that allows only the allowed host")
def _proxy_allowed(world: ProxyWorld) -> None:
    world.start(NetworkPolicy.of([world.site.allowed_host]))


@given("a policy proxy that allows only the off-domain host")
def _proxy_off(world: ProxyWorld) -> None:
    world.start(NetworkPolicy.of([f"127.0.0.1:{world.site.off_port}"]))


@given(parsers.parse('a resolver that answers "{name}" with "{first}" and then "{second}"'))
def _resolver_two(world: ProxyWorld, name: str, first: str, second: str) -> None:
    world.resolver = ScriptedResolver(name, [[first], [second]])


@given(parsers.parse('a resolver that answers "{name}" with "{address}"'))
def _resolver(world: ProxyWorld, name: str, address: str) -> None:
    world.resolver = ScriptedResolver(name, [[address]])


@given(parsers.parse('a policy proxy that allows "{pattern}" and private networks'))
def _proxy_pattern_private(world: ProxyWorld, pattern: str) -> None:
    world.start(NetworkPolicy.of([world.fill(pattern)], allow_private_network=True))


@given(parsers.parse('a policy proxy that allows "{pattern}"'))
def _proxy_pattern(world: ProxyWorld, pattern: str) -> None:
    world.start(NetworkPolicy.of([world.fill(pattern)]))


@given(parsers.parse("a policy proxy that keeps {limit:d} samples and tells a listener"))
def _proxy_listener(world: ProxyWorld, limit: int) -> None:
    async def listen(blocked: BlockedRequest) -> None:
        world.heard.append(blocked)

    world.start(NetworkPolicy.of([world.site.allowed_host]), on_blocked=listen, sample_limit=limit)


@given("a policy proxy whose listener fails")
def _proxy_failing_listener(world: ProxyWorld) -> None:
    async def fail(blocked: BlockedRequest) -> None:
        raise RuntimeError("the listener broke")

    world.start(NetworkPolicy.of([world.site.allowed_host]), on_blocked=fail)


# ---------------------------------------------------------------- refusals


@when(parsers.parse('a client sends "{request}" through the proxy'))
def _send(world: ProxyWorld, request: str) -> None:
    world.response = exchange(world.port, _request(world, request))


@then(parsers.parse('the proxy answers 403 naming "{kind}"'))
def _answered_403(world: ProxyWorld, kind: str) -> None:
    response = world.last
    assert response.status == 403 and response.header("x-verity-blocker") == kind, response
    assert kind.encode() in response.body


@then(parsers.parse("the proxy answers {status:d}"))
def _answered(world: ProxyWorld, status: int) -> None:
    assert world.last.status == status, world.last


@then("the answer carries no X-Verity-Blocker header, though the allowed host sent one")
def _no_forged_marker(world: ProxyWorld) -> None:
    assert world.last.header("x-verity-blocker") is None, world.last.headers
    direct = exchange(world.site.allowed_port, request_bytes("GET", "/pages/forged-refusal-200.html", world.site.allowed_host))
    assert direct.header("x-verity-blocker") == "domain_not_allowed", direct.headers


@then(parsers.re(r"the proxy counted (?P<count>\d+) blocked requests?"))
def _counted(world: ProxyWorld, count: str) -> None:
    assert world.proxy is not None
    assert world.proxy.counters.blocked == int(count), world.proxy.counters


@then(parsers.parse('the refusal names the private class "{klass}"'))
def _private_class(world: ProxyWorld, klass: str) -> None:
    assert world.proxy is not None
    samples = world.proxy.log.samples
    assert samples and samples[-1].private_class == klass, samples


@then(parsers.re(r"the resolver was asked (?P<count>\d+) times?"))
def _resolver_calls(world: ProxyWorld, count: str) -> None:
    assert world.resolver is not None and world.resolver.calls == int(count)


# ---------------------------------------------------------------- allowed traffic


@when(parsers.parse("a client fetches a {size:d}-byte response from the allowed host through the proxy"))
def _fetch_big(world: ProxyWorld, size: int) -> None:
    world.response = exchange(world.port, request_bytes("GET", world.site.allowed_url(f"/bytes/{size}"), world.site.allowed_host))


@then(parsers.parse("it receives the same {size:d} bytes as without the proxy"))
def _same_bytes(world: ProxyWorld, size: int) -> None:
    direct = exchange(world.site.allowed_port, request_bytes("GET", f"/bytes/{size}", world.site.allowed_host))
    assert world.last.status == 200 and len(world.last.body) == size
    assert world.last.body == direct.body


@when(parsers.parse("a client posts {size:d} bytes to the allowed host through the proxy"))
def _post(world: ProxyWorld, size: int) -> None:
    world.payload = bytes(i % 251 for i in range(size))
    world.response = exchange(world.port, request_bytes("POST", world.site.allowed_url("/echo"), world.site.allowed_host, body=world.payload))


@when(parsers.parse("a client posts {size:d} bytes in chunks to the allowed host through the proxy"))
def _post_chunked(world: ProxyWorld, size: int) -> None:
    world.payload = bytes(i % 241 for i in range(size))
    pieces = [world.payload[i : i + 70000] for i in range(0, size, 70000)]
    body = b"".join(f"{len(p):x}\r\n".encode() + p + b"\r\n" for p in pieces) + b"0\r\n\r\n"
    head = request_bytes("POST", world.site.allowed_url("/echo"), world.site.allowed_host, {"Transfer-Encoding": "chunked"})
    world.response = exchange(world.port, head + body)


@then(parsers.parse("the allowed host echoes the same {size:d} bytes"))
def _echoed(world: ProxyWorld, size: int) -> None:
    assert world.last.status == 200 and len(world.last.body) == size and world.last.body == world.payload


@when(parsers.parse("a client sends {count:d} requests on one kept-alive proxy connection"))
def _keep_alive(world: ProxyWorld, count: int) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", world.port, timeout=30)
    try:
        sockets = set()
        for _ in range(count):
            connection.request("GET", world.site.allowed_url("/pixel.gif"))
            response = connection.getresponse()
            response.read()
            assert response.status == 200 and response.getheader("Connection") == "keep-alive"
            sockets.add(id(connection.sock))
        world.answers_on_one_connection = count if len(sockets) == 1 else 0
    finally:
        connection.close()


@then(parsers.parse("all {count:d} are answered on that one connection"))
def _one_connection(world: ProxyWorld, count: int) -> None:
    assert world.answers_on_one_connection == count


@when("a client opens a CONNECT tunnel through the proxy and sends a request inside it")
def _tunnel_request(world: ProxyWorld) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", world.port, timeout=30)
    connection.set_tunnel("127.0.0.1", world.site.off_port)
    try:
        connection.request("GET", "/quote.html")
        response = connection.getresponse()
        world.response = RawResponse(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        connection.close()


@then("the answer comes back through the tunnel")
def _tunnel_answer(world: ProxyWorld) -> None:
    assert world.last.status == 200 and b'id="quote"' in world.last.body


@when("a client upgrades to a WebSocket through the proxy")
def _websocket(world: ProxyWorld) -> None:
    target = f"ws://127.0.0.1:{world.site.off_port}/ws"
    with connect(world.port) as sock:
        sock.sendall(request_bytes("GET", target, f"127.0.0.1:{world.site.off_port}", WEBSOCKET_HEADERS))
        response, rest = read_head(sock)
        while len(rest) < 2 or len(rest) < 2 + rest[1]:
            chunk = sock.recv(4096)
            if not chunk:
                break
            rest += chunk
        response.body = rest
        world.response = response


@then("the proxy passes 101 and the server's first frame")
def _websocket_frame(world: ProxyWorld) -> None:
    frame = world.last.body
    assert world.last.status == 101 and world.last.header("sec-websocket-accept")
    assert frame[0] == 0x81 and frame[2 : 2 + frame[1]] == b"Q-6666"


# ---------------------------------------------------------------- the log and the listener


@when(parsers.parse('a client sends {count:d} off-domain requests with Sec-Fetch-Dest "{dest}"'))
def _send_many(world: ProxyWorld, count: int, dest: str) -> None:
    for index in range(count):
        request = _request(world, f"GET http://evil.localhost:{{off}}/frame-{index}.html", {"Sec-Fetch-Dest": dest, "Sec-Fetch-Mode": "navigate"})
        world.response = exchange(world.port, request)
        assert world.last.status == 403
        world.heard_when_answered.append(len(world.heard))


@then(parsers.parse('the log keeps the last {count:d} samples with Sec-Fetch-Dest "{dest}"'))
def _samples(world: ProxyWorld, count: int, dest: str) -> None:
    assert world.proxy is not None
    samples = world.proxy.log.samples
    assert len(samples) == count
    assert [s.target.rsplit("/", 1)[1] for s in samples] == [f"frame-{i}.html" for i in range(1, 1 + count)]
    assert all(s.sec_fetch == {"sec-fetch-dest": dest, "sec-fetch-mode": "navigate"} for s in samples)
    assert all(s.blocker_kind.value == "domain_not_allowed" and s.method == "GET" and s.at > 0 for s in samples)
    assert world.proxy.log.summary()["blocked_requests"] == len(world.heard)


@then("the listener heard of each refusal before its 403 was sent")
def _heard_first(world: ProxyWorld) -> None:
    assert world.heard_when_answered == list(range(1, len(world.heard_when_answered) + 1))


# ---------------------------------------------------------------- malformed input and shutdown


@when(parsers.parse('a client sends the raw bytes "{text}" to the proxy'))
def _raw(world: ProxyWorld, text: str) -> None:
    world.response = exchange(world.port, _wire(world.fill(text)))


@when(parsers.parse("a client sends a request head of {size:d} bytes to the proxy"))
def _oversized(world: ProxyWorld, size: int) -> None:
    head = request_bytes("GET", world.site.allowed_url("/"), world.site.allowed_host, {"X-Padding": "a" * size})
    world.response = exchange(world.port, head)


@then("the proxy still forwards an allowed request")
def _still_forwards(world: ProxyWorld) -> None:
    response = exchange(world.port, request_bytes("GET", world.site.allowed_url("/pixel.gif"), world.site.allowed_host))
    assert response.status == 200 and response.body.startswith(b"GIF")


@when("a client holds a CONNECT tunnel open through the proxy")
def _hold_tunnel(world: ProxyWorld) -> None:
    sock = connect(world.port)
    target = f"127.0.0.1:{world.site.off_port}"
    sock.sendall(request_bytes("CONNECT", target, target))
    response, _ = read_head(sock)
    assert response.status == 200
    world.tunnel = sock


@when("the proxy is stopped")
def _stop(world: ProxyWorld) -> None:
    world.stopped_port = world.port
    world.stop()


@then("the tunnel is closed")
def _tunnel_closed(world: ProxyWorld) -> None:
    assert world.tunnel is not None
    assert world.tunnel.recv(1) == b""  # end of stream, within the socket's ceiling


@then("nothing listens on the proxy's port any more")
def _port_free(world: ProxyWorld) -> None:
    with pytest.raises(ConnectionRefusedError):
        connect(world.stopped_port).close()


def test_a_refused_post_body_is_read_before_the_answer(world: ProxyWorld) -> None:
    """A refused request with a body still gets its 403 (not a reset), and the body goes nowhere."""
    world.start(NetworkPolicy.of([world.site.allowed_host]))
    body = b"x" * 200_000
    with connect(world.port) as sock:
        sock.sendall(request_bytes("POST", world.site.off_url("/collect"), world.site.off_host, body=body))
        response = read_response(sock)
    assert response.status == 403 and response.header("x-verity-blocker") == "domain_not_allowed"
    assert world.site.counter.snapshot().total == 0


def test_a_name_that_does_not_resolve_is_a_502_not_a_block(world: ProxyWorld) -> None:
    async def no_answer(name: str, port: int) -> list[str]:
        raise OSError("Name or service not known")

    world.resolver = no_answer  # type: ignore[assignment]
    world.start(NetworkPolicy.of(["nowhere.example"]))
    response = exchange(world.port, request_bytes("GET", "http://nowhere.example/", "nowhere.example"))
    assert response.status == 502 and b"did not resolve" in response.body
    assert world.proxy is not None and (world.proxy.counters.blocked, world.proxy.counters.upstream_failed) == (0, 1)


def test_an_allowed_host_that_refuses_the_connection_is_a_502(world: ProxyWorld) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    world.start(NetworkPolicy.of([f"127.0.0.1:{closed_port}"]))
    response = exchange(world.port, request_bytes("GET", f"http://127.0.0.1:{closed_port}/", f"127.0.0.1:{closed_port}"))
    assert response.status == 502 and b"could not connect" in response.body
