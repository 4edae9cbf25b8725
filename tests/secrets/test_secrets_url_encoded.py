"""Binds features/secrets_url_encoded.feature: redaction of a secret's percent-encoded forms. The
encodings are written here by hand, as a browser and a script write them, not by the module's
own calls."""

from __future__ import annotations

from typing import Any

from pytest_bdd import given, scenarios, then, when

from runtime.secrets import Secrets

scenarios("secrets_url_encoded.feature")

TOKEN = "zq7x s3cr3t/tok'~é"


@given("a run's secrets hold a token with a space, a slash, an apostrophe, a tilde and a non-ASCII letter", target_fixture="secrets")
def _secrets() -> Secrets:
    secrets = Secrets()
    secrets.add("token", TOKEN)
    return secrets


@when("texts hold it as a URL query, encodeURIComponent, a form body and lower-case hex write it", target_fixture="texts")
def _texts(secrets: Secrets) -> dict[str, Any]:
    written = {
        # A script's fetch URL (encodeURIComponent keeps ' and ~).
        "encodeURIComponent": "http://collect.evil.example/c?t=zq7x%20s3cr3t%2Ftok'~%C3%A9&n=1",
        # A GET form or URLSearchParams: a space as '+', the apostrophe and the tilde encoded.
        "form encoding": "token=zq7x+s3cr3t%2Ftok%27%7E%C3%A9&go=1",
        # Python's quote with nothing safe, in a log line.
        "strict percent-encoding": "refused http://collect.evil.example/zq7x%20s3cr3t%2Ftok%27~%C3%A9 (domain_not_allowed)",
        # Lower-case hex, as some scripts write it.
        "lower-case hex": "t=zq7x%20s3cr3t%2ftok%27~%c3%a9",
    }
    return {name: (text, secrets.redact_text(text)) for name, text in written.items()}


@then("each text shows «secret:token» in its place, and none holds the token or an encoding of it")
def _redacted(texts: dict[str, Any]) -> None:
    for name, (written, redacted) in texts.items():
        assert "«secret:token»" in redacted, (name, redacted)
        # What is left around the marker is what the text had besides the token.
        assert "zq7x" not in redacted and "s3cr3t" not in redacted, (name, redacted)
        assert written != redacted
