"""Tests for webmd_spider.policy.netguard: the SSRF address policy.

Pure tests: no sockets, no DNS. Addresses that a crawl would resolve are passed
in directly; the resolver that applies the policy to real DNS answers is tested in
tests/transport/test_resolver_dns.py.
"""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webmd_spider.policy.netguard import AddressPolicy, parse_numeric_host

POLICY = AddressPolicy.from_allowlist(None)

# --------------------------------------------------------------------------- #
# Ranges
# --------------------------------------------------------------------------- #

REFUSED_IPS: list[tuple[str, str]] = [
    # IPv4 special-purpose registry (RFC 6890)
    ("0.0.0.0", "unspecified"),
    ("0.1.2.3", "unspecified"),
    ("10.0.0.1", "private"),
    ("10.255.255.255", "private"),
    ("100.64.0.1", "carrier-grade NAT"),
    ("100.127.255.254", "carrier-grade NAT"),
    ("127.0.0.1", "loopback"),
    ("127.255.255.254", "loopback"),
    ("169.254.0.1", "link-local"),
    ("169.254.169.254", "cloud metadata"),
    ("172.16.0.1", "private"),
    ("172.31.255.255", "private"),
    ("192.0.0.8", "IETF protocol assignment"),
    ("192.0.2.1", "documentation range"),
    ("192.168.1.1", "private"),
    ("198.18.0.1", "benchmarking"),
    ("198.19.255.255", "benchmarking"),
    ("198.51.100.7", "documentation range"),
    ("203.0.113.9", "documentation range"),
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.254", "reserved"),
    ("255.255.255.255", "limited broadcast"),
    # IPv6
    ("::", "unspecified"),
    ("::1", "loopback"),
    ("fc00::1", "IPv6 unique-local"),
    ("fd12:3456::1", "IPv6 unique-local"),
    ("fd00:ec2::254", "cloud metadata"),
    ("fe80::1", "IPv6 link-local"),
    ("fe80::1%eth0", "IPv6 link-local"),
    ("ff02::1", "multicast"),
    ("2001:db8::1", "documentation range"),
    ("::ffff:10.0.0.1", "IPv4-mapped IPv6 ::ffff:10.0.0.1 → private"),
    ("::ffff:127.0.0.1", "IPv4-mapped IPv6 ::ffff:127.0.0.1 → loopback"),
    ("::ffff:169.254.169.254", "cloud metadata"),
    ("64:ff9b::10.0.0.1", "NAT64 IPv6 64:ff9b::a00:1 → private address 10.0.0.1"),
    ("64:ff9b::7f00:1", "NAT64"),
    ("2002:a00:1::1", "6to4 IPv6 2002:a00:1::1 → private address 10.0.0.1"),
    ("2002:7f00:1::", "loopback address 127.0.0.1"),
    # Teredo: server 65.54.227.120, client 192.0.2.45 (RFC 4380 example).
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"),
    ("2001::1", "Teredo"),
    ("::127.0.0.1", "deprecated IPv4-compatible"),
    ("fec0::1", "site-local"),
    ("64:ff9b:1::1", "local-use NAT64"),
]


@pytest.mark.parametrize(("ip", "fragment"), REFUSED_IPS)
def test_special_purpose_addresses_are_refused(ip: str, fragment: str) -> None:
    reason = POLICY.refusal_for_ip(ip)
    assert reason is not None
    assert fragment in reason


@pytest.mark.parametrize(
    "ip",
    [
        "93.184.216.34",
        "8.8.8.8",
        "1.1.1.1",
        "100.63.255.255",  # just below CGNAT
        "100.128.0.0",  # just above CGNAT
        "172.15.255.255",  # just below 172.16/12
        "172.32.0.0",  # just above
        "192.169.0.1",
        "198.17.255.255",
        "198.20.0.0",
        "223.255.255.255",  # just below multicast
        "2606:4700::1",
        "2a00:1450:4001::1",
        "::ffff:93.184.216.34",  # mapped public IPv4
        "64:ff9b::93.184.216.34",  # NAT64 of a public IPv4
        "2002:5db8:d822::1",  # 6to4 of 93.184.216.34
    ],
)
def test_public_addresses_are_allowed(ip: str) -> None:
    assert POLICY.refusal_for_ip(ip) is None


def test_reason_wording() -> None:
    assert str(POLICY.refusal_for_ip("127.0.0.1", 80)).startswith("loopback address 127.0.0.1")
    assert str(POLICY.refusal_for_ip("10.1.2.3")).startswith("private address 10.1.2.3")
    metadata = str(POLICY.refusal_for_ip("169.254.169.254"))
    assert metadata.startswith("link-local address 169.254.169.254 (cloud metadata")


def test_refusal_for_ip_fails_closed_on_garbage() -> None:
    reason = POLICY.refusal_for_ip("not-an-ip")
    assert reason is not None
    assert "not an IP address" in reason


def test_refusal_for_ip_accepts_address_objects() -> None:
    assert POLICY.refusal_for_ip(ipaddress.ip_address("10.0.0.1")) is not None
    assert POLICY.refusal_for_ip(ipaddress.ip_address("93.184.216.34")) is None


# --------------------------------------------------------------------------- #
# Numeric host spellings
# --------------------------------------------------------------------------- #

SPELLINGS: dict[str, list[str]] = {
    "127.0.0.1": [
        "127.0.0.1",
        "127.0.0.1.",
        "2130706433",
        "0x7f000001",
        "0X7F000001",
        "0x7f.0.0.1",
        "0x7f.0x0.0x0.0x1",
        "0177.0.0.1",
        "0177.0000.0000.0001",
        "017700000001",
        "127.1",
        "127.0.1",
        "0x7f.1",
        "0177.1",
        "127.0x0.01",
        "%31%32%37.0.0.1",
        "\uff11\uff12\uff17\uff0e\uff10\uff0e\uff10\uff0e\uff11",  # fullwidth
        "127\u30020\u30020\u30021",  # ideographic full stops
    ],
    "10.0.0.1": [
        "10.0.0.1",
        "10.1",
        "10.0.1",
        "167772161",
        "0xa000001",
        "0xa.0.0.1",
        "012.0.0.1",
        "01200000001",
        "0xa.1",
    ],
    "169.254.169.254": [
        "169.254.169.254",
        "2852039166",
        "0xa9fea9fe",
        "0xa9.0xfe.0xa9.0xfe",
        "0251.0376.0251.0376",
        "025177524776",
        "169.16689662",
        "169.254.43518",
        "0xa9.254.0251.0xfe",
    ],
}

SPELLING_CASES = [(ip, spelling) for ip, spellings in SPELLINGS.items() for spelling in spellings]


@pytest.mark.parametrize(("expected", "spelling"), SPELLING_CASES)
def test_parse_numeric_host_spellings(expected: str, spelling: str) -> None:
    assert parse_numeric_host(spelling) == ipaddress.IPv4Address(expected)


@pytest.mark.parametrize(("expected", "spelling"), SPELLING_CASES)
def test_every_spelling_is_refused_in_urls(expected: str, spelling: str) -> None:
    for url in (
        f"http://{spelling}/",
        f"https://{spelling}:8443/path?q=1",
        f"http://user:pw@{spelling}/",
    ):
        reason = POLICY.refusal_for_url(url)
        assert reason is not None, url
        assert expected in reason, (url, reason)


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("[::1]", "::1"),
        ("::1", "::1"),
        ("[::ffff:127.0.0.1]", "::ffff:7f00:1"),
        ("[fe80::1%25eth0]", "fe80::1"),
        ("fe80::1%eth0", "fe80::1"),
        ("[0:0:0:0:0:0:0:1]", "::1"),
    ],
)
def test_parse_numeric_host_ipv6(host: str, expected: str) -> None:
    assert parse_numeric_host(host) == ipaddress.IPv6Address(expected)


@pytest.mark.parametrize(
    "host",
    ["example.com", "localhost", "intranet.example", "1.2.3.4.5", "256.0.0.1", "0x1g", "", "a1"],
)
def test_parse_numeric_host_rejects_names_and_malformed(host: str) -> None:
    assert parse_numeric_host(host) is None


@pytest.mark.parametrize(
    "url",
    [
        "http://[::1]/",
        "http://[::1]:8080/x",
        "http://[0:0:0:0:0:0:0:1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://[::ffff:10.0.0.1]/",
        "http://[fe80::1%25eth0]/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://user@127.0.0.1/",
        "http://user:secret@127.0.0.1:8080/",
        "http://example.com@127.0.0.1/",
        "http://127.0.0.1./",
        "HTTP://127.0.0.1/",
        "http:\\\\127.0.0.1\\",
        "http://1.2.3.4.5/",  # claims to be numeric, is not valid IPv4
        "http://256.0.0.1/",
        "http://example.0x10/",
        "http://localhost/",
        "http://localhost./",
        "http://LOCALHOST:8080/",
        "http://api.localhost/",
        "http:///path",
        "http://[::1/",
        "http://example.com:99999/",
    ],
)
def test_dangerous_urls_are_refused(url: str) -> None:
    assert POLICY.refusal_for_url(url) is not None


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/",
        "https://example.com:8443/a?b=c",
        "http://127.0.0.1.example.com/",  # a name, checked after DNS
        "http://10.example/",
        "http://0x7f.example.com/",
        "http://user@example.com/",
        "http://93.184.216.34/",
        "http://[2606:4700::1]/",
        "https://intranet.example/",  # names are vetted by refusal_for_ip after DNS
    ],
)
def test_names_and_public_ips_pass_the_url_check(url: str) -> None:
    assert POLICY.refusal_for_url(url) is None


@pytest.mark.parametrize(
    ("url", "scheme"),
    [
        ("file:///etc/passwd", "file"),
        ("ftp://example.com/x", "ftp"),
        ("gopher://127.0.0.1:6379/_INFO", "gopher"),
        ("dict://127.0.0.1:11211/stat", "dict"),
        ("data:text/html,hi", "data"),
        ("javascript:alert(1)", "javascript"),
        ("ws://example.com/", "ws"),
        ("FILE:///etc/passwd", "file"),
    ],
)
def test_non_http_schemes_are_never_fetched(url: str, scheme: str) -> None:
    assert POLICY.refusal_for_url(url) == f"scheme {scheme!r} is never fetched"


def test_relative_url_is_refused() -> None:
    assert POLICY.refusal_for_url("/just/a/path") is not None


# --------------------------------------------------------------------------- #
# Allowlist
# --------------------------------------------------------------------------- #


def test_allowlist_cidr() -> None:
    policy = AddressPolicy.from_allowlist(["127.0.0.0/8", "::1/128", "10.1.0.0/16"])
    assert policy.refusal_for_ip("127.0.0.1") is None
    assert policy.refusal_for_ip("127.9.9.9", 8080) is None
    assert policy.refusal_for_ip("::1") is None
    assert policy.refusal_for_ip("10.1.2.3") is None
    assert policy.refusal_for_ip("10.2.0.1") is not None
    assert policy.refusal_for_ip("192.168.0.1") is not None
    # embedded forms of an allowed IPv4 are allowed too
    assert policy.refusal_for_ip("::ffff:127.0.0.1") is None
    # every numeric spelling in a URL goes through the same allowlist
    assert policy.refusal_for_url("http://2130706433:8080/") is None
    assert policy.refusal_for_url("http://[::1]:9000/") is None
    assert policy.refusal_for_url("http://0xa000001/") is not None


def test_allowlist_bare_address_is_single_host() -> None:
    policy = AddressPolicy.from_allowlist("10.0.0.5")
    assert policy.refusal_for_ip("10.0.0.5", 1234) is None
    assert policy.refusal_for_ip("10.0.0.6") is not None


def test_allowlist_host_name() -> None:
    policy = AddressPolicy.from_allowlist("localhost, intranet.example")
    assert policy.refusal_for_ip("127.0.0.1", 80, host="localhost") is None
    assert policy.refusal_for_ip("::1", 80, host="LOCALHOST") is None
    assert policy.refusal_for_ip("10.0.0.7", 443, host="intranet.example") is None
    # the name must match exactly: no subdomains, no other hosts
    assert policy.refusal_for_ip("10.0.0.7", host="www.intranet.example") is not None
    assert policy.refusal_for_ip("10.0.0.7", host="evil.example") is not None
    # host name entries never cover an address asked about without its name
    assert policy.refusal_for_ip("127.0.0.1") is not None
    assert policy.refusal_for_url("http://localhost:8080/") is None
    assert policy.refusal_for_url("http://127.0.0.1/") is not None


def test_trailing_dot_host() -> None:
    policy = AddressPolicy.from_allowlist("localhost")
    assert policy.refusal_for_ip("127.0.0.1", host="localhost.") is None
    assert policy.refusal_for_url("http://localhost./") is None
    dotted_entry = AddressPolicy.from_allowlist("localhost.")
    assert dotted_entry.refusal_for_ip("127.0.0.1", host="localhost") is None
    # without the allowlist, the dot changes nothing
    assert POLICY.refusal_for_ip("127.0.0.1", host="localhost.") is not None
    assert POLICY.refusal_for_url("http://localhost./") is not None
    assert POLICY.refusal_for_url("http://127.0.0.1./") is not None


def test_allowlist_host_port() -> None:
    policy = AddressPolicy.from_allowlist(["127.0.0.1:8080", "[::1]:8080", "intranet.example:8443"])
    assert policy.refusal_for_ip("127.0.0.1", 8080) is None
    assert policy.refusal_for_ip("::1", 8080) is None
    assert policy.refusal_for_ip("10.0.0.9", 8443, host="intranet.example") is None
    # another port, or an unknown port, is not allowed
    assert policy.refusal_for_ip("127.0.0.1", 8081) is not None
    assert policy.refusal_for_ip("127.0.0.1") is not None
    assert policy.refusal_for_ip("::1", 80) is not None
    assert policy.refusal_for_ip("10.0.0.9", 443, host="intranet.example") is not None
    # another address on the allowed port is not allowed
    assert policy.refusal_for_ip("127.0.0.2", 8080) is not None
    # URLs: the port comes from the URL, defaulting by scheme
    assert policy.refusal_for_url("http://127.0.0.1:8080/") is None
    assert policy.refusal_for_url("http://0x7f000001:8080/") is None
    assert policy.refusal_for_url("http://[::1]:8080/") is None
    assert policy.refusal_for_url("http://127.0.0.1/") is not None
    assert policy.refusal_for_url("http://127.0.0.1:9090/") is not None
    assert policy.refusal_for_url("https://[::1]/") is not None


def test_allowlist_default_ports_apply() -> None:
    policy = AddressPolicy.from_allowlist("127.0.0.1:80")
    assert policy.refusal_for_url("http://127.0.0.1/") is None
    assert policy.refusal_for_url("https://127.0.0.1/") is not None


@pytest.mark.parametrize("entries", [None, "", [], "  ,  "])
def test_empty_allowlist(entries: list[str] | str | None) -> None:
    policy = AddressPolicy.from_allowlist(entries)
    assert policy.refusal_for_ip("127.0.0.1") is not None
    assert policy.refusal_for_ip("93.184.216.34") is None


@pytest.mark.parametrize(
    "entry",
    [
        "10.0.0.0/33",
        "300.1.2.3",
        "1.2.3.4.5",
        "127.0.0.1:0",
        "127.0.0.1:65536",
        "127.0.0.1:http",
        "[::1]:",
        "[::1",
        "[nope]:80",
        "::1::2",
        "bad_host!",
        ":8080",
        "-leading-dash.example",
    ],
)
def test_bad_allowlist_entry_names_it(entry: str) -> None:
    with pytest.raises(ValueError, match="bad allowlist entry") as info:
        AddressPolicy.from_allowlist(["localhost", entry])
    assert repr(entry) in str(info.value)


def test_allowlist_string_forms() -> None:
    policy = AddressPolicy.from_allowlist("127.0.0.0/8,\n::1/128  intranet.example")
    assert policy.refusal_for_ip("127.0.0.5") is None
    assert policy.refusal_for_ip("::1") is None
    assert policy.refusal_for_ip("10.0.0.1", host="intranet.example") is None


# --------------------------------------------------------------------------- #
# Property: private IPv4 in any spelling is refused
# --------------------------------------------------------------------------- #

PRIVATE_NETS = [
    ipaddress.IPv4Network(n)
    for n in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
    )
]


@st.composite
def private_ipv4(draw: st.DrawFn) -> ipaddress.IPv4Address:
    net = draw(st.sampled_from(PRIVATE_NETS))
    offset = draw(st.integers(min_value=0, max_value=net.num_addresses - 1))
    return net[offset]


def _render_number(draw: st.DrawFn, value: int) -> str:
    style = draw(st.sampled_from(["dec", "hex", "HEX", "oct"]))
    if style == "dec":
        return str(value)
    if style == "oct":
        zeros = draw(st.integers(min_value=1, max_value=3))
        return "0" * zeros + format(value, "o")
    prefix = "0x" if style == "hex" else "0X"
    zeros = draw(st.integers(min_value=0, max_value=2))
    digits = format(value, "x" if style == "hex" else "X")
    return prefix + "0" * zeros + digits


@st.composite
def ipv4_spelling(draw: st.DrawFn, address: ipaddress.IPv4Address) -> str:
    """One inet_aton spelling: 1-4 parts, each part in decimal/hex/octal."""
    octets = address.packed
    count = draw(st.integers(min_value=1, max_value=4))
    head = list(octets[: count - 1])
    tail = int.from_bytes(octets[count - 1 :], "big")
    parts = [_render_number(draw, n) for n in [*head, tail]]
    host = ".".join(parts)
    if draw(st.booleans()):
        host += "."
    return host


@st.composite
def private_url(draw: st.DrawFn) -> tuple[ipaddress.IPv4Address, str]:
    address = draw(private_ipv4())
    host = draw(ipv4_spelling(address))
    scheme = draw(st.sampled_from(["http", "https", "HTTP"]))
    userinfo = draw(st.sampled_from(["", "user@", "user:pw@", "a%40b@"]))
    port = draw(st.sampled_from(["", ":80", ":8080", ":443"]))
    path = draw(st.sampled_from(["", "/", "/x?y=1", "#frag"]))
    return address, f"{scheme}://{userinfo}{host}{port}{path}"


@given(private_url())
def test_property_private_ipv4_any_spelling_refused(
    case: tuple[ipaddress.IPv4Address, str],
) -> None:
    address, url = case
    reason = POLICY.refusal_for_url(url)
    assert reason is not None, url
    assert str(address) in reason


@given(private_ipv4().flatmap(lambda a: st.tuples(st.just(a), ipv4_spelling(a))))
def test_property_spellings_parse_back(case: tuple[ipaddress.IPv4Address, str]) -> None:
    address, spelling = case
    assert parse_numeric_host(spelling) == address


@given(private_ipv4())
def test_property_embedded_private_ipv4_refused(address: ipaddress.IPv4Address) -> None:
    value = int(address)
    for embedded in (
        ipaddress.IPv6Address((0xFFFF << 32) | value),  # ::ffff:a.b.c.d
        ipaddress.IPv6Address((0x0064FF9B << 96) | value),  # 64:ff9b::a.b.c.d
        ipaddress.IPv6Address((0x2002 << 112) | (value << 80)),  # 2002:aabb:ccdd::
    ):
        assert POLICY.refusal_for_ip(str(embedded)) is not None
        assert POLICY.refusal_for_url(f"http://[{embedded}]/") is not None


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_property_url_check_agrees_with_ip_check(value: int) -> None:
    address = ipaddress.IPv4Address(value)
    by_ip = POLICY.refusal_for_ip(str(address))
    by_url = POLICY.refusal_for_url(f"http://{value}/")
    assert (by_ip is None) == (by_url is None)


# --------------------------------------------------------------------------- #
# The per-origin memo of refusal_for_url
# --------------------------------------------------------------------------- #

#: built once, so that its memo is filled by one URL and read for others
_ALLOWING = AddressPolicy.from_allowlist("127.0.0.0/8,localhost")

_HOST_PARTS = st.sampled_from(
    ["example", "com", "127", "0", "10", "0x7f", "1", "localhost", "a-b", "", "169", "254"]
)
_URL_HOSTS = st.lists(_HOST_PARTS, min_size=1, max_size=5).map(".".join)
_URL_TAILS = st.sampled_from(
    ["", "/", "/a/b?c=d#e", "?q", "#f", "/a b", "/a\\b", "/\t/x", "/%2F", "/@evil.com", "/é"]
)


@given(
    st.sampled_from(["http", "https", "HTTP", "ftp"]),
    _URL_HOSTS,
    st.sampled_from(["", ":80", ":080", ":00080", ":8080", ":0", ":99999", ":", ":x"]),
    _URL_TAILS,
    st.sampled_from(["", "user@", "user:pw@"]),
)
def test_property_memoised_verdict_equals_the_full_check(
    scheme: str, host: str, port: str, tail: str, userinfo: str
) -> None:
    url = f"{scheme}://{userinfo}{host}{port}{tail}"
    for policy in (POLICY, _ALLOWING):
        # twice: the first answer may fill the memo, the second comes from it
        assert policy.refusal_for_url(url) == policy._any_url_refusal(url), url
        assert policy.refusal_for_url(url) == policy._any_url_refusal(url), url


def test_memoised_verdicts_follow_the_origin_not_the_first_url() -> None:
    policy = AddressPolicy.from_allowlist("127.0.0.1:8080")
    assert policy.refusal_for_url("http://127.0.0.1:8080/a") is None
    assert policy.refusal_for_url("http://127.0.0.1:8080/b?c") is None
    # another port of the same host is another origin
    assert policy.refusal_for_url("http://127.0.0.1:8081/a") is not None
    # a user-info prefix is not a plain URL: checked in full, still refused
    assert policy.refusal_for_url("http://127.0.0.1:8080@10.0.0.1/") is not None
    # the memo is bounded
    for n in range(5000):
        policy.refusal_for_url(f"http://h{n}.example/")
    assert len(policy._verdicts) <= 4096
