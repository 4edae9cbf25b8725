"""`require_dns_fence(browser)`: does an attached browser look up names that pages choose?

Verity's own Chromium is started with every name mapped to "not found" in its resolver
(`DNS_FENCE_FLAG`, launch/chromium_start.py), so WebRTC's TURN servers and remote candidates, a
`dns-prefetch` or the browser's own services never reach a DNS server; its requests go to the
run's policy proxy by name, and the proxy looks up only the names a run allows. A browser attached
with `--browser-ws` was started by someone else. Unlike WebRTC UDP (udp_fence.py), a lookup cannot
be observed from here: the query goes to whatever resolver that machine has. So the browser is
asked for its own command line (`Browser.getBrowserCommandLine`, which Chromium answers only when
it was started with `--enable-automation`), and it is refused unless its `--host-resolver-rules`
map every name to `~NOTFOUND`, with nothing but exclusions and IP literals beside that rule.
"""

from __future__ import annotations

import ipaddress
import weakref

from runtime.browser.launch.browser import Browser
from runtime.browser.launch.chromium_start import DNS_FENCE_FLAG
from runtime.browser.launch.endpoints import redact_endpoint
from runtime.browser.vocabulary.errors import BrowserLaunchError, LaunchErrorCode

_RULES_SWITCH = "--host-resolver-rules="
_CATCH_ALL = ("MAP", "*", "~NOTFOUND")


def dns_fence_problem(arguments: list[str]) -> str | None:
    """Why a browser started with `arguments` may look names up itself; None when it cannot.
    Of several `--host-resolver-rules=`, Chromium keeps the last."""
    given = [argument[len(_RULES_SWITCH):] for argument in arguments if argument.startswith(_RULES_SWITCH)]
    if not given:
        return "it was started without --host-resolver-rules"
    rules = [tuple(rule.split()) for rule in given[-1].strip().strip("\"'").split(",") if rule.strip()]
    if _CATCH_ALL not in rules:
        return f"its --host-resolver-rules ({given[-1]!r}) do not map every name to ~NOTFOUND"
    for rule in rules:
        if rule == _CATCH_ALL or (len(rule) == 2 and rule[0] == "EXCLUDE"):
            continue
        # A rule mapping a name to an address resolves nothing; one mapping it to another name
        # sends that name to DNS.
        if len(rule) == 3 and rule[0] == "MAP" and _is_address(rule[2]):
            continue
        return f"its --host-resolver-rules hold {' '.join(rule)!r}, which may send a name to DNS"
    return None


def _is_address(text: str) -> bool:
    host = text.rsplit(":", 1)[0] if text.count(":") == 1 else text
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


# One verdict per connection, as for the UDP probe: a reconnected browser is asked again.
_PROBLEMS: weakref.WeakKeyDictionary[Browser, str | None] = weakref.WeakKeyDictionary()


async def require_dns_fence(browser: Browser) -> None:
    """Raise `BrowserLaunchError(dns_not_fenced)` naming the flags the browser must be started
    with, unless its command line shows the DNS fence; asked once per connection."""
    if browser not in _PROBLEMS:
        try:
            reply = await browser.send("Browser.getBrowserCommandLine")
        except Exception as error:  # noqa: BLE001 - no command line proves nothing: not fenced
            problem: str | None = f"it does not tell its command line ({error}; start it with --enable-automation)"
        else:
            problem = dns_fence_problem([str(argument) for argument in reply.get("arguments", [])])
        _PROBLEMS[browser] = problem
    problem = _PROBLEMS[browser]
    if problem is not None:
        raise BrowserLaunchError(
            LaunchErrorCode.DNS_NOT_FENCED,
            f"the browser at {redact_endpoint(browser.ws_endpoint)} may look up names its pages choose, "
            f"outside Verity's network fence: {problem}; start it with --enable-automation and "
            f"'{DNS_FENCE_FLAG}' and attach again",
        )
