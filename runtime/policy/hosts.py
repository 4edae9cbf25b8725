"""Hosts as the WHATWG URL standard parses them for http(s)/ws(s) URLs, which Chromium follows.

The policy must judge the host Chromium will connect to, not the one urllib reads. So a host is
percent-decoded, mapped by UTS #46 (the `idna` package's table: case folding, full-width forms,
ideographic full stops) and turned into punycode; a name whose last label is a number is an IPv4
address in any of its forms (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`); `[...]` is IPv6.
Anything the standard rejects raises `HostError`, so a caller never guesses.
"""

from __future__ import annotations

import functools
import ipaddress
import re
import unicodedata
from dataclasses import dataclass
from enum import Enum
from urllib.parse import unquote_to_bytes

import idna


class HostError(ValueError):
    """The text is not a host a browser would connect to; the message says why."""


class HostKind(str, Enum):
    DOMAIN = "domain"
    IPV4 = "ipv4"
    IPV6 = "ipv6"


@dataclass(frozen=True)
class Host:
    """A parsed host: `name` is its serialisation (`example.com`, `127.0.0.1`, `[::1]`)."""

    kind: HostKind
    name: str

    @functools.cached_property
    def address(self) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
        if self.kind is HostKind.IPV4:
            return ipaddress.IPv4Address(self.name)
        if self.kind is HostKind.IPV6:
            return ipaddress.IPv6Address(self.name[1:-1])
        return None

    @property
    def bare(self) -> str:
        """The name to compare and to connect to: no IPv6 brackets, no trailing dot."""
        if self.kind is HostKind.IPV6:
            return self.name[1:-1]
        return self.name.rstrip(".") if self.kind is HostKind.DOMAIN else self.name


# The standard's forbidden domain code points: these can never be part of a domain.
_FORBIDDEN_DOMAIN = frozenset("\x00\t\n\r #/:<>?@[\\]^|%\x7f") | frozenset(chr(c) for c in range(0x20))
_HEX_DIGITS = re.compile(r"[0-9a-fA-F]*")
_OCTAL_DIGITS = re.compile(r"[0-7]*")
_DECIMAL_DIGITS = re.compile(r"[0-9]*")
_IPV6_TEXT = re.compile(r"[0-9a-fA-F:.]+")


@functools.lru_cache(maxsize=1024)
def parse_host(text: str) -> Host:
    """The host parser of the URL standard for special schemes (not file:); an immutable result of
    the text alone, so each host is parsed once."""
    if text.startswith("["):
        if not text.endswith("]"):
            raise HostError(f"{text!r}: an IPv6 address must end with ']'")
        return Host(HostKind.IPV6, f"[{serialise_ipv6(parse_ipv6(text[1:-1]))}]")
    if not text:
        raise HostError("the host is empty")
    decoded = unquote_to_bytes(text).decode("utf-8", errors="replace")
    domain = domain_to_ascii(decoded)
    forbidden = sorted({c for c in domain if c in _FORBIDDEN_DOMAIN})
    if forbidden:
        raise HostError(f"{text!r}: a host may not contain {', '.join(map(repr, forbidden))}")
    if ends_in_a_number(domain):
        return Host(HostKind.IPV4, str(parse_ipv4(domain)))
    return Host(HostKind.DOMAIN, domain)


def domain_to_ascii(domain: str) -> str:
    """UTS #46 ToASCII as the URL standard calls it: non-transitional, no STD3 rules, no hyphen or
    DNS-length checks, Bidi and joiner checks on. Plain ASCII without `xn--` is only lowercased."""
    labels = domain.split(".")
    if domain.isascii() and not any(label.lower().startswith("xn--") for label in labels):
        return domain.lower()
    try:
        mapped = idna.uts46_remap(domain, std3_rules=False, transitional=False)
    except idna.IDNAError as error:
        raise HostError(f"{domain!r} is not a valid international domain name: {error}") from None
    unicode_labels = [_decoded_label(label, domain) for label in mapped.split(".")]
    _check_bidi_and_joiners(unicode_labels, domain)
    ascii_labels = [label if label.isascii() else "xn--" + label.encode("punycode").decode("ascii") for label in unicode_labels]
    result = ".".join(ascii_labels)
    if not result:
        raise HostError(f"{domain!r} maps to an empty host")
    return result


def _decoded_label(label: str, domain: str) -> str:
    """A label as Unicode: `xn--` labels are decoded and must be valid once decoded."""
    if not label.startswith("xn--"):
        return label
    try:
        decoded = label[4:].encode("ascii").decode("punycode")
    except (UnicodeError, ValueError):
        raise HostError(f"{domain!r}: {label!r} is not valid punycode") from None
    if not decoded or decoded.isascii():
        raise HostError(f"{domain!r}: {label!r} does not encode an international label")
    try:
        remapped = idna.uts46_remap(decoded, std3_rules=False, transitional=False)
    except idna.IDNAError:
        remapped = ""
    if remapped != decoded:
        raise HostError(f"{domain!r}: {label!r} decodes to a label that is not in its mapped form")
    return decoded


def _check_bidi_and_joiners(labels: list[str], domain: str) -> None:
    try:
        # A Bidi domain name (any right-to-left label) must satisfy RFC 5893 in every label.
        if any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for label in labels for c in label):
            for label in labels:
                if label:
                    idna.check_bidi(label, check_ltr=True)
        for label in labels:
            for position, char in enumerate(label):
                if char in "\u200c\u200d" and not idna.valid_contextj(label, position):
                    raise HostError(f"{domain!r}: a zero-width joiner is not allowed where it stands")
    except idna.IDNAError as error:
        raise HostError(f"{domain!r} is not a valid international domain name: {error}") from None


def ends_in_a_number(domain: str) -> bool:
    """The standard's test for 'this host must be read as IPv4'."""
    parts = domain.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    last = parts[-1]
    if last and _DECIMAL_DIGITS.fullmatch(last):
        return True
    return _ipv4_number(last) is not None


def _ipv4_number(part: str) -> int | None:
    if not part:
        return None
    radix, digits, pattern = 10, part, _DECIMAL_DIGITS
    if len(part) >= 2 and part[:2] in ("0x", "0X"):
        radix, digits, pattern = 16, part[2:], _HEX_DIGITS
    elif len(part) >= 2 and part[0] == "0":
        radix, digits, pattern = 8, part[1:], _OCTAL_DIGITS
    if not pattern.fullmatch(digits):
        return None
    return int(digits, radix) if digits else 0


def parse_ipv4(text: str) -> ipaddress.IPv4Address:
    """Decimal, octal (leading 0) and hex (0x) parts, one to four of them; the last part fills the
    remaining bytes, so `127.1` is 127.0.0.1 and `2130706433` is 127.0.0.1 too."""
    parts = text.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4:
        raise HostError(f"{text!r}: an IPv4 address has at most four parts")
    numbers = [_ipv4_number(part) for part in parts]
    if any(number is None for number in numbers):
        raise HostError(f"{text!r} ends in a number but is not an IPv4 address")
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        raise HostError(f"{text!r}: an IPv4 part is out of range")
    address = values[-1]
    for index, value in enumerate(values[:-1]):
        address += value * 256 ** (3 - index)
    return ipaddress.IPv4Address(address)


def parse_ipv6(text: str) -> ipaddress.IPv6Address:
    # ipaddress also accepts a zone (`%eth0`), which the URL standard does not: check characters first.
    if not _IPV6_TEXT.fullmatch(text):
        raise HostError(f"[{text}] is not an IPv6 address")
    try:
        return ipaddress.IPv6Address(text)
    except ValueError:
        raise HostError(f"[{text}] is not an IPv6 address") from None


def serialise_ipv6(address: ipaddress.IPv6Address) -> str:
    """The standard's serialisation: lowercase hex, the first longest run of 2+ zero pieces as
    `::`, and IPv4-mapped addresses in hex too (`::ffff:7f00:1`)."""
    pieces = [int.from_bytes(address.packed[i : i + 2], "big") for i in range(0, 16, 2)]
    best_start, best_length, start = -1, 1, None
    for index, piece in enumerate([*pieces, 1]):
        if piece == 0 and start is None:
            start = index
        elif piece != 0 and start is not None:
            if index - start > best_length:
                best_start, best_length = start, index - start
            start = None
    if best_start < 0:
        return ":".join(f"{p:x}" for p in pieces)
    head = ":".join(f"{p:x}" for p in pieces[:best_start])
    tail = ":".join(f"{p:x}" for p in pieces[best_start + best_length :])
    return f"{head}::{tail}"
