"""SSRF policy: which addresses a crawl of other people's websites may connect to.

Pure module: the standard library and webmd_spider.urls, no Scrapy or Twisted. The Scrapy layer
wires it in twice:

* before a request is scheduled/downloaded, :meth:`AddressPolicy.refusal_for_url`
  vets the scheme and any host that is an IP address *in any spelling*
  (``http://2130706433/``, ``http://0x7f.1/``, ``http://[::ffff:127.0.0.1]/`` ...);
* after DNS resolution, :meth:`AddressPolicy.refusal_for_ip` vets every address
  a host name resolved to (pass ``host=`` so host-name allowlist entries apply).

Both return ``None`` when the connection is allowed, otherwise a plain-English
reason suitable for a log line or a stats key suffix.

Why both checks: a web page can link to ``http://169.254.169.254/`` (cloud
metadata) directly, or to ``http://evil.example/`` whose DNS answer is
``10.0.0.1``. Only the resolver-level check sees the second; only the URL-level
check can reject a numeric host before any connection machinery is involved.
The resolver check is the one that must not be skipped (DNS rebinding: check
the address actually connected to, not one resolved earlier).

Address ranges follow the IANA IPv4/IPv6 Special-Purpose Address Registries
(RFC 6890 and its updates), plus the IPv6 transition formats that embed an
IPv4 address (RFC 4291 mapped, RFC 6052 NAT64, RFC 3056 6to4, RFC 4380
Teredo), whose embedded address is vetted like a plain IPv4 one.

Why one file of over 500 lines: much of it is the special-purpose address tables with
their RFC citations, kept beside the one policy that reads them.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from webmd_spider.urls import plain_origin

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

__all__ = [
    "AddressPolicy",
    "IPAddress",
    "parse_numeric_host",
]

_WEB_SCHEMES = frozenset({"http", "https"})
_DEFAULT_PORTS = {"http": 80, "https": 443}

#: origins whose verdict is kept; past it the cache starts again (a crawl of many hosts)
_VERDICTS_MAX = 4096

# Cloud instance-metadata endpoints; called out by name in reasons because they
# are the classic SSRF target (credentials served over plain HTTP).
# 169.254.169.254: AWS/GCP/Azure/OpenStack/...; 169.254.170.2: AWS ECS task
# metadata; fd00:ec2::254: AWS IPv6 IMDS; 100.100.100.200: Alibaba Cloud.
_METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    {
        ipaddress.IPv4Address("169.254.169.254"),
        ipaddress.IPv4Address("169.254.170.2"),
        ipaddress.IPv4Address("100.100.100.200"),
        ipaddress.IPv6Address("fd00:ec2::254"),
    }
)


def _v4(cidr: str) -> ipaddress.IPv4Network:
    return ipaddress.IPv4Network(cidr)


def _v6(cidr: str) -> ipaddress.IPv6Network:
    return ipaddress.IPv6Network(cidr)


# (network, label, source). Checked in order, so more specific entries come
# first (255.255.255.255 before 240.0.0.0/4). Source: IANA IPv4 Special-Purpose
# Address Registry (RFC 6890 section 2.2.2, updated by RFC 8190).
_IPV4_RANGES: tuple[tuple[ipaddress.IPv4Network, str, str], ...] = (
    (_v4("0.0.0.0/8"), "unspecified", '"this network", RFC 1122 / RFC 6890'),
    (_v4("10.0.0.0/8"), "private", "RFC 1918"),
    (_v4("100.64.0.0/10"), "carrier-grade NAT", "shared address space, RFC 6598"),
    (_v4("127.0.0.0/8"), "loopback", "RFC 1122"),
    (_v4("169.254.0.0/16"), "link-local", "RFC 3927"),
    (_v4("172.16.0.0/12"), "private", "RFC 1918"),
    (_v4("192.0.0.0/24"), "IETF protocol assignment", "RFC 6890"),
    (_v4("192.0.2.0/24"), "documentation range", "TEST-NET-1, RFC 5737"),
    (_v4("192.88.99.0/24"), "deprecated 6to4 relay anycast", "RFC 7526"),
    (_v4("192.168.0.0/16"), "private", "RFC 1918"),
    (_v4("198.18.0.0/15"), "benchmarking", "RFC 2544"),
    (_v4("198.51.100.0/24"), "documentation range", "TEST-NET-2, RFC 5737"),
    (_v4("203.0.113.0/24"), "documentation range", "TEST-NET-3, RFC 5737"),
    (_v4("224.0.0.0/4"), "multicast", "RFC 5771"),
    (_v4("255.255.255.255/32"), "limited broadcast", "RFC 919"),
    (_v4("240.0.0.0/4"), "reserved", "future use, RFC 1112"),
)

# IPv6 ranges refused outright (no IPv4 embedding worth vetting). Source: IANA
# IPv6 Special-Purpose Address Registry (RFC 6890 section 2.2.3 and updates).
# The embedding formats (::ffff:0:0/96, 64:ff9b::/96, 2002::/16, 2001::/32)
# are handled separately, before this table.
_IPV6_RANGES: tuple[tuple[ipaddress.IPv6Network, str, str], ...] = (
    (_v6("::/128"), "unspecified", "RFC 4291"),
    (_v6("::1/128"), "loopback", "RFC 4291"),
    # ::a.b.c.d "IPv4-compatible" addresses were deprecated by RFC 4291; some
    # stacks still route them to IPv4, so none is fetched.
    (_v6("::/96"), "deprecated IPv4-compatible IPv6", "RFC 4291 section 2.5.5.1"),
    (_v6("64:ff9b:1::/48"), "local-use NAT64", "RFC 8215"),
    (_v6("100::/64"), "discard-only", "RFC 6666"),
    (_v6("2001::/23"), "IETF protocol assignment", "RFC 2928"),
    (_v6("2001:db8::/32"), "documentation range", "RFC 3849"),
    (_v6("3fff::/20"), "documentation range", "RFC 9637"),
    (_v6("5f00::/16"), "segment-routing SID", "RFC 9602"),
    (_v6("fc00::/7"), "IPv6 unique-local", "RFC 4193"),
    (_v6("fe80::/10"), "IPv6 link-local", "RFC 4291"),
    (_v6("fec0::/10"), "deprecated IPv6 site-local", "RFC 3879"),
    (_v6("ff00::/8"), "multicast", "RFC 4291"),
)

_NAT64_WKP = _v6("64:ff9b::/96")  # RFC 6052 well-known prefix
_TEREDO = _v6("2001::/32")  # RFC 4380

# RFC 6761 section 6.3: "localhost" and every name under it are loopback by
# definition; resolvers may answer them without consulting DNS at all.
_LOCALHOST_RE = re.compile(r"(?:^|\.)localhost$")

# A DNS host name as it may appear in an allowlist (LDH labels, punycode ok;
# underscores tolerated because real intranets use them).
_HOSTNAME_RE = re.compile(
    r"^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*"
    r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$"
)

# Characters IDNA (UTS #46) maps to "." in host names: ideographic full stop,
# fullwidth full stop (also folded by NFKC), halfwidth ideographic full stop.
_DOT_EQUIVALENTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})


# --------------------------------------------------------------------------- #
# Numeric host parsing
# --------------------------------------------------------------------------- #


def _normalize_host_text(host: str) -> str:
    """Percent-decode, NFKC-fold and lower-case a host the way URL parsers do.

    WHATWG URL percent-decodes the host and applies UTS #46 mapping (which folds
    fullwidth digits and ideographic dots) before deciding it is IPv4, so
    ``%31%32%37.0.0.1`` and its fullwidth-digit spelling both reach 127.0.0.1.
    """
    text = unquote(host.strip()) if "%" in host else host.strip()
    text = unicodedata.normalize("NFKC", text).translate(_DOT_EQUIVALENTS)
    return text.lower()


def _ends_in_number(host: str) -> bool:
    """WHATWG URL "ends in a number checker": does the host claim to be IPv4?

    True when the last dot-separated label (a single trailing dot ignored) is
    all decimal digits or ``0x`` followed by hex digits. Such a host must parse
    as IPv4 or the URL is invalid; it is never looked up as a name.
    """
    parts = host.split(".")
    if parts[-1] == "":
        if len(parts) == 1:
            return False
        parts.pop()
    last = parts[-1]
    if last and last.isascii() and last.isdigit():
        return True
    return last[:2] == "0x" and all(c in "0123456789abcdef" for c in last[2:])


def _parse_ipv4_number(part: str) -> int | None:
    """One IPv4 component in inet_aton/WHATWG syntax: ``0x`` hex, ``0`` octal, decimal."""
    if not part or not part.isascii():
        return None
    if part[:2] == "0x":
        digits, base = part[2:], 16
        if digits == "":
            return 0  # WHATWG: "0x" alone is zero
    elif len(part) > 1 and part[0] == "0":
        digits, base = part[1:], 8
    else:
        digits, base = part, 10
    valid = "0123456789abcdef"[:base]
    if not digits or any(c not in valid for c in digits):
        return None
    return int(digits, base)


def _parse_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """WHATWG IPv4 parser (same acceptance as inet_aton, plus a trailing dot).

    1 to 4 components; every component but the last is one byte, the last
    fills the remaining bytes: ``127.1`` is 127.0.0.1, ``10.1`` is 10.0.0.1,
    ``2130706433`` is 127.0.0.1.
    """
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if not 1 <= len(parts) <= 4:
        return None
    numbers = [_parse_ipv4_number(p) for p in parts]
    value = 0
    for number in numbers[:-1]:
        if number is None or number > 255:
            return None
        value = value * 256 + number
    last = numbers[-1]
    remaining = 5 - len(parts)
    if last is None or last >= 256**remaining:
        return None
    value = value * 256**remaining + last
    return ipaddress.IPv4Address(value)


def _parse_ipv6(text: str) -> ipaddress.IPv6Address | None:
    """An IPv6 literal, brackets and zone id (``%eth0`` / ``%25eth0``) optional."""
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    text = unquote(text).partition("%")[0]
    try:
        return ipaddress.IPv6Address(text)
    except ValueError:
        return None


def parse_numeric_host(host: str) -> IPAddress | None:
    """Parse a host that is an IP address in any spelling a URL client accepts.

    Accepts what browsers (WHATWG URL) and curl/inet_aton treat as numeric:
    dotted quad, one to three dotted parts (``127.1``, ``10.1``), whole-number
    decimal (``2130706433``), hex (``0x7f000001``, ``0x7f.0.0.1``), octal
    (``0177.0.0.1``, ``017700000001``), mixtures of these, a trailing dot,
    percent-encoding and fullwidth digits; IPv6 literals with or without
    brackets, zone ids and embedded dotted IPv4 (``[::ffff:127.0.0.1]``).

    Returns ``None`` for real host names and for malformed numeric hosts
    (``1.2.3.4.5``, ``256.1.1.1``); see :func:`_ends_in_number` for how
    :meth:`AddressPolicy.refusal_for_url` tells those apart.
    """
    text = host.strip()
    if not text:
        return None
    if text.startswith("[") or ":" in text:
        return _parse_ipv6(text)
    normalized = _normalize_host_text(text)
    if not _ends_in_number(normalized):
        return None
    return _parse_ipv4(normalized)


def _as_address(ip: str | IPAddress) -> IPAddress | None:
    if isinstance(ip, ipaddress.IPv4Address | ipaddress.IPv6Address):
        return ip
    text = ip.strip()
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return parse_numeric_host(text)


# --------------------------------------------------------------------------- #
# Policy
# --------------------------------------------------------------------------- #


def _normalize_name(host: str) -> str:
    """A host name as compared against allowlist names: lower-case, no brackets,
    no trailing dot (``localhost.`` is ``localhost``), IDN as punycode."""
    name = host.strip().lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    name = name.rstrip(".")
    if not name.isascii():
        with contextlib.suppress(UnicodeError):
            name = name.encode("idna").decode("ascii")
    return name


def _parse_port(text: str, entry: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 65535:
        raise ValueError(f"bad allowlist entry {entry!r}: port {text!r} is not 1-65535")
    return int(text)


def _split_entries(entries: list[str] | tuple[str, ...] | str | None) -> list[str]:
    if entries is None:
        return []
    if isinstance(entries, str):
        entries = [entries]
    out: list[str] = []
    for item in entries:
        out.extend(part for part in re.split(r"[\s,]+", item) if part)
    return out


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> tuple[str, ipaddress.IPv4Address] | None:
    """The IPv4 address an IPv6 transition format routes to, with the format's name."""
    if ip.ipv4_mapped is not None:  # ::ffff:0:0/96, RFC 4291 section 2.5.5.2
        return "IPv4-mapped IPv6", ip.ipv4_mapped
    if ip in _NAT64_WKP:  # RFC 6052 section 2.1: low 32 bits are the IPv4
        return "NAT64 IPv6", ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip.sixtofour is not None:  # 2002::/16, RFC 3056: bits 16-47
        return "6to4 IPv6", ip.sixtofour
    return None


#: What ``allow_local`` lets through the SSRF guard: loopback (RFC 1122 section 3.2.1.3,
#: RFC 4291 section 2.5.3) and private networks (RFC 1918, RFC 4193 unique local). Not
#: link-local (RFC 3927: 169.254.169.254 is the cloud metadata service) nor any other
#: special-purpose range. ``localhost`` by name too (RFC 6761 section 6.3: loopback
#: by definition, refused by name unless allow-listed).
LOCAL_ALLOWLIST = (
    "localhost",
    "127.0.0.0/8",
    "::1/128",
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "fc00::/7",
)


@dataclass(frozen=True)
class AddressPolicy:
    """Which IP addresses a crawl may connect to. Build once per crawl.

    Everything that is not a publicly routable unicast address is refused (see
    the module docstring for the registries used). The allowlist overrides the
    refusal; it holds three kinds of entry:

    * networks, matched against the IP: ``127.0.0.0/8``, ``::1/128``, or a bare
      address (``10.0.0.5``, ``::1``) meaning that one address;
    * host names, matched exactly (case-insensitive, trailing dot ignored, no
      subdomains) against the ``host`` the address was resolved for:
      ``localhost``, ``intranet.example``;
    * ``host:port`` pairs, matched only when the port is known and equal:
      ``127.0.0.1:8080``, ``[::1]:8080``, ``intranet.example:8443``. The host
      part may be an IP (matched against the address) or a name (matched
      against ``host``). A bare IPv6 address needs brackets to carry a port.

    Instances are immutable and safe to share.
    """

    networks: tuple[IPNetwork, ...] = ()
    hosts: frozenset[str] = frozenset()
    ip_ports: frozenset[tuple[IPAddress, int]] = frozenset()
    host_ports: frozenset[tuple[str, int]] = frozenset()
    #: refusal_for_url's verdict per plain origin (a memo: the policy never changes)
    _verdicts: dict[str, str | None] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    @classmethod
    def from_allowlist(cls, entries: list[str] | tuple[str, ...] | str | None) -> AddressPolicy:
        """Build a policy from allowlist entries (see the class docstring).

        ``entries`` may be a list, or one string with entries separated by
        commas and/or whitespace; ``None`` or empty means no allowlist.
        Raises ``ValueError`` naming the first entry that is none of the
        accepted forms.
        """
        networks: list[IPNetwork] = []
        hosts: set[str] = set()
        ip_ports: set[tuple[IPAddress, int]] = set()
        host_ports: set[tuple[str, int]] = set()
        for entry in _split_entries(entries):
            text = entry.strip()
            # [v6]:port or [v6]
            if text.startswith("["):
                close = text.find("]")
                addr6 = _parse_ipv6(text[: close + 1]) if close > 0 else None
                rest = text[close + 1 :] if close > 0 else ""
                if addr6 is None or (rest and not rest.startswith(":")):
                    raise ValueError(f"bad allowlist entry {entry!r}: not an IPv6 literal")
                if rest:
                    ip_ports.add((addr6, _parse_port(rest[1:], entry)))
                else:
                    networks.append(ipaddress.IPv6Network(addr6))
                continue
            # CIDR or a bare address (IPv6 without brackets has no port)
            if "/" in text or text.count(":") > 1:
                try:
                    networks.append(ipaddress.ip_network(text, strict=False))
                except ValueError:
                    raise ValueError(
                        f"bad allowlist entry {entry!r}: not a CIDR network or address"
                    ) from None
                continue
            hostpart, colon, portpart = text.rpartition(":")
            if not colon:
                hostpart, portpart = text, ""
            if not hostpart:
                raise ValueError(f"bad allowlist entry {entry!r}: empty host")
            port = _parse_port(portpart, entry) if colon else None
            address = parse_numeric_host(hostpart)
            if address is not None:
                if port is None:
                    networks.append(ipaddress.ip_network(address))
                else:
                    ip_ports.add((address, port))
                continue
            if _ends_in_number(_normalize_host_text(hostpart)):
                raise ValueError(f"bad allowlist entry {entry!r}: malformed IP address")
            name = _normalize_name(hostpart)
            if not _HOSTNAME_RE.match(name):
                raise ValueError(f"bad allowlist entry {entry!r}: not a host name")
            if port is None:
                hosts.add(name)
            else:
                host_ports.add((name, port))
        return cls(
            networks=tuple(networks),
            hosts=frozenset(hosts),
            ip_ports=frozenset(ip_ports),
            host_ports=frozenset(host_ports),
        )

    # ------------------------------------------------------------------ #

    def _allowed(self, ip: IPAddress, port: int | None, name: str | None) -> bool:
        if any(ip.version == net.version and ip in net for net in self.networks):
            return True
        if port is not None and (ip, port) in self.ip_ports:
            return True
        if name is not None:
            if name in self.hosts:
                return True
            if port is not None and (name, port) in self.host_ports:
                return True
        return False

    def _refusal(self, ip: IPAddress, port: int | None, name: str | None) -> str | None:
        if self._allowed(ip, port, name):
            return None
        if isinstance(ip, ipaddress.IPv4Address):
            return _ipv4_refusal(ip)
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            kind, v4 = embedded
            inner = self._refusal(v4, port, name)
            if inner is None:
                return None
            return f"{kind} {_show(ip)} → {inner}"
        if ip in _TEREDO:
            # RFC 4380 section 4: server IPv4 in bits 32-63, client IPv4
            # obfuscated (bit-inverted) in the low 32 bits. Teredo is obsolete
            # and both ends are tunnelled, so it is refused either way; the
            # reason names a non-public embedded address when there is one.
            teredo = ip.teredo
            if teredo is not None:
                for role, v4 in zip(("server", "client"), teredo, strict=True):
                    inner = _ipv4_refusal(v4)
                    if inner is not None:
                        return f"Teredo IPv6 {ip} embeds {role} {inner}"
            return f"Teredo tunnelling address {ip} (2001::/32, RFC 4380)"
        for net, label, source in _IPV6_RANGES:
            if ip in net:
                return _range_reason(ip, net, label, source)
        # Backstop for registry entries newer than the tables above.
        if not ip.is_global:
            return f"non-global address {ip} (IANA special-purpose registry)"
        return None

    def refusal_for_ip(
        self, ip: str | IPAddress, port: int | None = None, host: str | None = None
    ) -> str | None:
        """Return why connecting to ``ip`` is refused, or ``None`` when allowed.

        ``ip`` is an address as a resolver returns it (a zone id such as
        ``fe80::1%eth0`` is ignored); ``port`` enables ``host:port`` allowlist
        entries; ``host`` is the name the address was resolved for and enables
        host-name allowlist entries. An allowlisted network also covers IPv6
        forms embedding an allowlisted IPv4 (``::ffff:127.0.0.1`` when
        ``127.0.0.0/8`` is allowed). A string that is not an IP address is
        refused (fail closed), never raised on.
        """
        address = _as_address(ip)
        if address is None:
            return f"not an IP address: {str(ip)!r}"
        name = _normalize_name(host) if host else None
        return self._refusal(address, port, name)

    def refusal_for_url(self, url: str) -> str | None:
        """Return why ``url`` must not be fetched, or ``None`` if it may be (so far).

        Refuses: any scheme other than http/https; a URL without a host or
        with an invalid port; a host that is an IP address in any spelling
        (see :func:`parse_numeric_host`) and not allowed by
        :meth:`refusal_for_ip`; a host that claims to be numeric but is
        malformed (``1.2.3.4.5``, ``0x1.999999999``: invalid per WHATWG URL,
        and inet_aton-style resolvers disagree on them); and ``localhost`` /
        ``*.localhost`` (RFC 6761 loopback by definition) unless that name is
        allowlisted. Credentials in the URL (``http://user@127.0.0.1/``) do not
        hide the host.

        Any other host name returns ``None``: its addresses are only known
        after DNS, where the resolver must call :meth:`refusal_for_ip` with
        ``host=`` that name. To be safe against parser differentials, the URL
        is checked both as the standard library splits it and as a browser
        would (backslashes as slashes, tabs/newlines removed); either refusing
        refuses.
        """
        origin = plain_origin(url)
        if origin is not None:
            # A plain URL (no user info hides its host, no browser-only rewrite applies)
            # is judged by its scheme and authority alone, so the verdict is kept per
            # origin: every request of a crawl is checked, and most share a few origins.
            verdicts = self._verdicts
            if origin in verdicts:
                return verdicts[origin]
            if len(verdicts) >= _VERDICTS_MAX:
                verdicts.clear()
            verdict = verdicts[origin] = self._url_refusal(origin)
            return verdict
        return self._any_url_refusal(url)

    def _any_url_refusal(self, url: str) -> str | None:
        """refusal_for_url without the per-origin memo: any URL, parsed both ways."""
        stripped = url.strip(" \t\n\r\f\v\x00")
        browser_like = re.sub(r"[\t\n\r]", "", stripped).replace("\\", "/")
        first = self._url_refusal(stripped)
        if first is not None or browser_like == stripped:
            return first
        return self._url_refusal(browser_like)

    def _url_refusal(self, url: str) -> str | None:
        try:
            parts = urlsplit(url)
        except ValueError as exc:
            return f"unparseable URL ({exc})"
        scheme = parts.scheme.lower()
        if scheme not in _WEB_SCHEMES:
            if not scheme:
                return "URL has no scheme; only http and https are fetched"
            return f"scheme {scheme!r} is never fetched"
        hostport = parts.netloc.rpartition("@")[2]
        if hostport.startswith("["):
            end = hostport.find("]")
            if end < 0:
                return f"malformed IPv6 literal in {hostport!r}"
            host, portpart = hostport[: end + 1], hostport[end + 1 :]
            if portpart and not portpart.startswith(":"):
                return f"malformed host {hostport!r}"
            portpart = portpart[1:]
        else:
            host, _, portpart = hostport.partition(":")
        if not host:
            return "URL has no host"
        port = _DEFAULT_PORTS[scheme]
        if portpart:
            if not (portpart.isascii() and portpart.isdigit()) or not (1 <= int(portpart) <= 65535):
                return f"invalid port {portpart!r}"
            port = int(portpart)
        if host.startswith("["):
            address: IPAddress | None = _parse_ipv6(host)
            if address is None:
                return f"malformed IPv6 literal {host!r}"
            return self._refusal(address, port, None)
        address = parse_numeric_host(host)
        if address is not None:
            return self._refusal(address, port, None)
        normalized = _normalize_host_text(host)
        if _ends_in_number(normalized):
            return f"malformed numeric host {host!r} (neither a valid IPv4 address nor a name)"
        name = _normalize_name(normalized)
        if _LOCALHOST_RE.search(name) and not (
            name in self.hosts or (name, port) in self.host_ports
        ):
            return f"loopback host name {name!r} (RFC 6761)"
        return None


def _range_reason(ip: IPAddress, net: IPNetwork, label: str, source: str) -> str:
    """``"<label> address <ip> (<net>, <source>)"``, naming metadata endpoints."""
    if ip in _METADATA_ADDRESSES:
        return f"{label} address {ip} (cloud metadata endpoint; {net}, {source})"
    return f"{label} address {ip} ({net}, {source})"


def _show(ip: ipaddress.IPv6Address) -> str:
    """IPv6 text with an IPv4-mapped tail kept dotted (``::ffff:10.0.0.1``)."""
    if ip.ipv4_mapped is not None:
        return f"::ffff:{ip.ipv4_mapped}"
    return str(ip)


def _ipv4_refusal(ip: ipaddress.IPv4Address) -> str | None:
    """Reason an IPv4 address is not publicly routable unicast, or None."""
    for net, label, source in _IPV4_RANGES:
        if ip in net:
            return _range_reason(ip, net, label, source)
    if not ip.is_global:  # backstop for registry entries newer than the table
        return f"non-global address {ip} (IANA special-purpose registry)"
    return None
