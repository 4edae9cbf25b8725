"""Which IP addresses are private: the server-side request forgery door the policy keeps shut.

Loopback, RFC 1918, CGNAT, link-local, unique-local, unspecified, multicast and reserved space, and
the cloud metadata endpoints. IPv6 forms that carry an IPv4 address (IPv4-mapped, IPv4-compatible,
NAT64, 6to4) are judged by the IPv4 address they reach.
"""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address

Address = IPv4Address | IPv6Address

# Metadata endpoints first: they sit inside wider private ranges but deserve their own name.
_IPV4_CLASSES: tuple[tuple[IPv4Network, str], ...] = tuple(
    (IPv4Network(network), name)
    for network, name in (
        ("169.254.169.254/32", "cloud metadata"),
        ("169.254.170.2/32", "cloud metadata"),
        ("100.100.100.200/32", "cloud metadata"),
        ("192.0.0.192/32", "cloud metadata"),
        ("168.63.129.16/32", "cloud metadata"),
        ("0.0.0.0/8", "unspecified"),
        ("127.0.0.0/8", "loopback"),
        ("10.0.0.0/8", "private (RFC 1918)"),
        ("172.16.0.0/12", "private (RFC 1918)"),
        ("192.168.0.0/16", "private (RFC 1918)"),
        ("100.64.0.0/10", "shared address space (CGNAT)"),
        ("169.254.0.0/16", "link-local"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved"),
    )
)
_IPV6_CLASSES: tuple[tuple[IPv6Network, str], ...] = tuple(
    (IPv6Network(network), name)
    for network, name in (
        ("fd00:ec2::254/128", "cloud metadata"),
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("fc00::/7", "unique-local"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local"),
        ("ff00::/8", "multicast"),
    )
)
# IPv6 prefixes whose last 32 bits are an IPv4 address that the packet really reaches.
_EMBEDDING_IPV4_LAST: tuple[tuple[IPv6Network, str], ...] = (
    (IPv6Network("::ffff:0:0/96"), "IPv4-mapped"),
    (IPv6Network("::/96"), "IPv4-compatible"),
    (IPv6Network("64:ff9b::/96"), "NAT64"),
    (IPv6Network("64:ff9b:1::/48"), "NAT64"),
)


def private_class(address: Address | str) -> str | None:
    """The name of the private class `address` belongs to, or None for a public address."""
    if isinstance(address, str):
        address = ip_address(address)
    if isinstance(address, IPv4Address):
        return _ipv4_class(address)
    for network, name in _IPV6_CLASSES:
        if address in network:
            return name
    embedded = _embedded_ipv4(address)
    if embedded is not None:
        via, ipv4 = embedded
        inner = _ipv4_class(ipv4)
        return f"{inner} ({via} {ipv4})" if inner else None
    return None if address.is_global else "reserved"


def _ipv4_class(address: IPv4Address) -> str | None:
    for network, name in _IPV4_CLASSES:
        if address in network:
            return name
    return None if address.is_global else "reserved"


def _embedded_ipv4(address: IPv6Address) -> tuple[str, IPv4Address] | None:
    for network, via in _EMBEDDING_IPV4_LAST:
        if address in network:
            return via, IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        return "6to4", address.sixtofour
    return None
