"""The operator's webhook settings: the shared secret, the server's own URL, the URLs a run may
name, and how deliveries are retried. Checked before the server starts (see runs/webhooks.py for
the deliveries themselves).

The secret is written as Standard Webhooks writes it: "whsec_" and the key in base64. It is
read from a file or the environment, never a flag, and never shown.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field

from runtime.policy.network_policy import NetworkPolicy
from runtime.policy.urls import judge_url, parse_url

SECRET_PREFIX = "whsec_"
# Standard Webhooks asks for 24 to 64 random bytes.
MIN_SECRET_BYTES = 24
MAX_SECRET_BYTES = 64
WEBHOOK_SCHEMES = ("http", "https")
MAX_ATTEMPTS = 20


@dataclass(frozen=True)
class WebhookSettings:
    # The decoded key every delivery is signed with; repr=False: it never shows in logs.
    secret: bytes = field(repr=False)
    # Receives every run's terminal state unless the run names its own URL.
    url: str | None = None
    # A run option may name one of these exactly, or a URL starting with one that ends in "/".
    allowed_urls: tuple[str, ...] = ()
    # Whether a webhook may reach loopback, RFC 1918, link-local and other private addresses.
    allow_private_network: bool = False
    attempts: int = 6
    # The wait before the second attempt; each later wait doubles it.
    backoff_seconds: float = 5.0
    # How long one attempt may take (connecting, sending, the answer's status line).
    timeout_seconds: float = 10.0

    def policy(self) -> NetworkPolicy:
        # No domain list (the operator chose the URL); the private-network rule as for any request.
        return NetworkPolicy.of((), allow_private_network=self.allow_private_network, listed_private_hosts=False)

    def retry_wait(self, attempt: int) -> float:
        """The wait after failed attempt number `attempt` (1 is the first)."""
        return self.backoff_seconds * 2 ** (attempt - 1)


def parse_webhook_secret(text: str) -> bytes:
    """The key of a "whsec_<base64>" secret; ValueError saying what is wrong (never the value)."""
    text = text.strip()
    if not text.startswith(SECRET_PREFIX):
        raise ValueError(f"the webhook secret must start with {SECRET_PREFIX!r} followed by the key in base64")
    try:
        key = base64.b64decode(text[len(SECRET_PREFIX) :], validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"the webhook secret after {SECRET_PREFIX!r} is not base64") from None
    if not MIN_SECRET_BYTES <= len(key) <= MAX_SECRET_BYTES:
        raise ValueError(f"the webhook secret's key must be {MIN_SECRET_BYTES} to {MAX_SECRET_BYTES} bytes, got {len(key)}")
    return key


def webhook_url_problem(url: str, allow_private_network: bool) -> str | None:
    """Why `url` can never receive a webhook (not http(s), or a private address the operator does
    not allow), or None. A name is judged again by its addresses at each delivery."""
    try:
        scheme = parse_url(url).scheme
    except ValueError as error:
        return str(error)
    if scheme not in WEBHOOK_SCHEMES:
        return f"{url[:80]!r}: a webhook URL must be http or https"
    policy = NetworkPolicy.of((), allow_private_network=allow_private_network, listed_private_hosts=False)
    judgement = judge_url(url, policy)
    if not judgement.allowed:
        return judgement.reason.replace("the server's allow_private_network", "the server's webhook_allow_private_network")
    return None


def allowed_url_problem(entry: str) -> str | None:
    """An allowlist entry is a whole URL, or a prefix ending in "/" after its host (so that
    https://hooks.example/ cannot admit https://hooks.example.evil/)."""
    try:
        parsed = parse_url(entry)
    except ValueError as error:
        return str(error)
    if parsed.scheme not in WEBHOOK_SCHEMES:
        return f"{entry[:80]!r}: a webhook URL must be http or https"
    if not parsed.rest.startswith("/"):
        return f"{entry[:80]!r}: write the URL with its path (at least a '/' after the host)"
    return None


def on_allowlist(url: str, allowed_urls: tuple[str, ...]) -> bool:
    return any(url == entry or (entry.endswith("/") and url.startswith(entry)) for entry in allowed_urls)


def shown_url(url: str) -> str:
    """The URL as events show it: no user info, query or fragment (they may carry credentials)."""
    try:
        parsed = parse_url(url)
    except ValueError:
        return "(not a URL)"
    path = parsed.rest.split("?", 1)[0].split("#", 1)[0]
    port = f":{parsed.port}" if parsed.port is not None else ""
    host = parsed.host.name if parsed.host is not None else ""
    return f"{parsed.scheme}://{host}{port}{path}"
