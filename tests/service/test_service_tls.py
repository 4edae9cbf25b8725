"""Bindings of features/service_tls.feature: TLS with self-signed certificates made by openssl."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from pytest_bdd import given, parsers, scenarios, then, when
from tests.service.service_harness import ServedServer

from runtime.cli.main import main, parse_args
from runtime.service.config.errors import ServiceConfigError
from runtime.client import VerityClient, VerityRpcError
from runtime.service.config.config_file import load_config_file
from runtime.service.config.server_config import ServerConfig
from runtime.cli.serve import server_config_from_args

scenarios("service_tls.feature")


@dataclass(frozen=True)
class CertificatePair:
    cert: Path
    key: Path

    @property
    def pem(self) -> bytes:
        return self.cert.read_bytes()


def _make_pair(folder: Path, name: str) -> CertificatePair:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.fail("the openssl command is needed to make test certificates (apt-get install openssl)")
    pair = CertificatePair(folder / f"{name}.crt", folder / f"{name}.key")
    subprocess.run(
        [
            openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", str(pair.key), "-out", str(pair.cert), "-days", "1", "-subj", f"/CN={name}",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
        check=True, capture_output=True, timeout=30,
    )
    return pair


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CertificatePair]:
    """Two self-signed pairs: the server's, and another CA's that never signed it."""
    folder = tmp_path_factory.mktemp("tls")
    return {"server": _make_pair(folder, "verity-test-server"), "other": _make_pair(folder, "other-ca")}


@given(
    parsers.parse('a TLS server with the token "{token}" and a certificate for localhost and 127.0.0.1'),
    target_fixture="server",
)
def _tls_server(serve: Any, pairs: dict[str, CertificatePair], context: dict[str, Any], token: str) -> ServedServer:
    context["token"] = token
    server = serve(token=token, tls_cert=pairs["server"].cert, tls_key=pairs["server"].key)
    server.open_run(recipe_name="over-tls")  # something to list
    return server


@then("a client trusting the server's CA lists runs with the token at 127.0.0.1 and at localhost")
def _lists_over_tls(server: ServedServer, pairs: dict[str, CertificatePair], context: dict[str, Any]) -> None:
    for host in ("127.0.0.1", "localhost"):
        with VerityClient(f"{host}:{server.port}", context["token"], root_certificates=pairs["server"].pem) as client:
            assert [run.recipe_name for run in client.list_runs().runs] == ["over-tls"]


@then("the same client without the token is UNAUTHENTICATED")
def _tls_without_token(server: ServedServer, pairs: dict[str, CertificatePair]) -> None:
    with VerityClient(server.target, root_certificates=pairs["server"].pem) as client:
        with pytest.raises(VerityRpcError) as failure:
            client.list_runs()
    assert failure.value.code == grpc.StatusCode.UNAUTHENTICATED and failure.value.reason == "MISSING_TOKEN"


@then('"verity client list --tls-ca" with the token prints the runs')
def _cli_over_tls(
    server: ServedServer, pairs: dict[str, CertificatePair], context: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["client", "list", "--target", server.target, "--token", context["token"], "--tls-ca", str(pairs["server"].cert)])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "over-tls@1  created" in out.out


@then("a plain-text client fails with UNAVAILABLE and is told to connect with --tls-ca")
def _plaintext_refused(server: ServedServer) -> None:
    with VerityClient(server.target, timeout=5) as client:  # loopback: the token rule does not apply
        with pytest.raises(VerityRpcError) as failure:
            client.list_runs()
    assert failure.value.code == grpc.StatusCode.UNAVAILABLE
    assert "--tls-ca" in failure.value.message, failure.value.message


@then("a client trusting another CA fails with UNAVAILABLE naming the TLS handshake and the CA to check")
def _wrong_ca(server: ServedServer, pairs: dict[str, CertificatePair], context: dict[str, Any]) -> None:
    with VerityClient(server.target, context["token"], root_certificates=pairs["other"].pem, timeout=5) as client:
        with pytest.raises(VerityRpcError) as failure:
            client.list_runs()
    message = failure.value.message
    assert failure.value.code == grpc.StatusCode.UNAVAILABLE
    assert message.startswith(f"TLS handshake with {server.target} failed"), message
    assert "--tls-ca" in message and "CERTIFICATE_VERIFY_FAILED" in message


@then("streaming a run with that client fails at once instead of retrying")
def _wrong_ca_stream(
    server: ServedServer, pairs: dict[str, CertificatePair], context: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every resume attempt first sleeps its backoff, so the client's sleeps on this thread count its
    # retries; the spy still sleeps, it only records.
    retries: list[float] = []
    this_thread, sleep = threading.get_ident(), time.sleep

    def recording_sleep(seconds: float) -> None:
        if threading.get_ident() == this_thread:
            retries.append(seconds)
        sleep(seconds)

    monkeypatch.setattr(time, "sleep", recording_sleep)
    with VerityClient(server.target, context["token"], root_certificates=pairs["other"].pem, resume_backoff=0.01) as client:
        with pytest.raises(VerityRpcError) as failure:
            list(client.stream_run("run-any"))
    assert retries == [], retries
    assert failure.value.code == grpc.StatusCode.UNAVAILABLE and "TLS handshake" in failure.value.message


@then('"verity client list" with the other CA exits with code 4 and the same explanation')
def _cli_wrong_ca(
    server: ServedServer, pairs: dict[str, CertificatePair], context: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["client", "list", "--target", server.target, "--token", context["token"], "--tls-ca", str(pairs["other"].cert)])
    err = capsys.readouterr().err
    assert code == 4
    assert err.startswith(f"verity client: UNAVAILABLE: TLS handshake with {server.target} failed"), err
    assert "Traceback" not in err


@when("the server is configured with one pair's certificate and another pair's key", target_fixture="refusal")
def _mismatched_pair(pairs: dict[str, CertificatePair], tmp_path: Path) -> ServiceConfigError:
    config = ServerConfig(store_path=tmp_path / "x.db", tls_cert=pairs["server"].cert, tls_key=pairs["other"].key)
    with pytest.raises(ServiceConfigError) as failure:
        config.validate()
    return failure.value


@then("it refuses to start, naming the key file and the certificate")
def _mismatch_named(refusal: ServiceConfigError, pairs: dict[str, CertificatePair]) -> None:
    assert str(refusal) == f"{pairs['other'].key}: this private key does not belong to the certificate {pairs['server'].cert}"


SERVE_PUBLIC = ["serve", "--host", "0.0.0.0", "--port", "0", "--token", "public-token-1"]


@when(parsers.parse('I run "verity serve --host 0.0.0.0" with a token but without TLS'))
def _serve_plain_public(tmp_path: Path, context: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    code = main([*SERVE_PUBLIC, "--store", str(tmp_path / "x.db")])
    context["cli"] = (code, capsys.readouterr().err)


@then("it exits with code 2 explaining that the token needs TLS or --insecure")
def _refused_plain(context: dict[str, Any]) -> None:
    code, err = context["cli"]
    assert code == 2
    assert err.startswith("verity serve: refusing to listen on '0.0.0.0' with a bearer token but without TLS"), err
    assert "--tls-cert FILE and --tls-key FILE" in err and "--insecure" in err
    assert "public-token-1" not in err


@then("the same flags with --insecure are accepted")
def _insecure_accepted(tmp_path: Path) -> None:
    config = server_config_from_args(parse_args([*SERVE_PUBLIC, "--insecure", "--store", str(tmp_path / "x.db")]))
    assert config.insecure and not config.uses_tls
    config.validate()


@then("the same flags with --tls-cert and --tls-key are accepted")
def _tls_accepted(tmp_path: Path, pairs: dict[str, CertificatePair]) -> None:
    args = [*SERVE_PUBLIC, "--tls-cert", str(pairs["server"].cert), "--tls-key", str(pairs["server"].key)]
    config = server_config_from_args(parse_args(args))
    assert config.uses_tls and not config.insecure
    config.validate()
    half = server_config_from_args(parse_args([*SERVE_PUBLIC, "--tls-cert", str(pairs["server"].cert)]))
    with pytest.raises(ServiceConfigError, match="tls_cert is set but tls_key is not"):
        half.validate()


@then("a config file with tls_cert, tls_key and insecure is read relative to its folder")
def _config_file(tmp_path: Path, pairs: dict[str, CertificatePair]) -> None:
    folder = tmp_path / "conf"
    folder.mkdir()
    shutil.copy(pairs["server"].cert, folder / "server.crt")
    shutil.copy(pairs["server"].key, folder / "server.key")
    config_path = folder / "verity.yaml"
    config_path.write_text("host: 0.0.0.0\ntoken: t0k\ntls_cert: server.crt\ntls_key: server.key\ninsecure: false\n")
    values = load_config_file(config_path)
    assert values["tls_cert"] == (folder / "server.crt").resolve() and values["insecure"] is False
    ServerConfig(**values).validate()
    config_path.write_text("insecure: yes please\n")
    with pytest.raises(ServiceConfigError) as failure:
        load_config_file(config_path)
    assert str(failure.value) == f"{config_path}:1:1: insecure must be true or false, got 'yes please'"


@then(parsers.parse('a client for "{target}" with a token and no TLS is refused before it connects'))
def _client_refuses(target: str, context: dict[str, Any]) -> None:
    context["remote"] = target
    with pytest.raises(ValueError) as failure:
        VerityClient(target, "client-token-2")
    assert str(failure.value).startswith(f"refusing to send the bearer token in plain text to {target}")
    assert "client-token-2" not in str(failure.value)


@then("the same client with insecure set is allowed")
def _client_insecure(context: dict[str, Any]) -> None:
    with VerityClient(context["remote"], "client-token-2", insecure=True) as client:
        assert not client.uses_tls
