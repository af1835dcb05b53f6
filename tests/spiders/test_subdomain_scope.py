"""follow_subdomains: which hosts are a start website's domain (``spiders/subdomains``),
with the Public Suffix List snapshot read offline."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from webmd_spider.spiders import subdomains
from webmd_spider.spiders.subdomains import domain_of, in_domain


def follows(start_key: str, key: str) -> bool:
    domain = domain_of(start_key)
    return domain is not None and in_domain(key, domain)


@pytest.mark.parametrize(
    ("start", "key", "followed"),
    [
        ("example.com", "docs.example.com", True),
        ("example.com", "a.b.example.com", True),
        # start docs.example.com: the apex and its siblings are the same domain
        ("docs.example.com", "example.com", True),
        ("docs.example.com", "blog.example.com", True),
        ("example.com", "example.com.evil.net", False),
        ("example.com", "badexample.com", False),
        ("example.com", "example.org", False),
        # another port is another service (site keys carry a non-default port)
        ("example.com", "docs.example.com:8443", False),
        ("example.com:8080", "docs.example.com:8080", True),
        ("example.com:8080", "docs.example.com", False),
        # the public suffix decides, its private section included
        ("example.co.uk", "docs.example.co.uk", True),
        ("example.co.uk", "other.co.uk", False),
        ("alice.github.io", "bob.github.io", False),
        ("alice.github.io", "docs.alice.github.io", True),
        # no known public suffix: the host itself is the domain
        ("localhost:8000", "docs.localhost:8000", True),
        ("docs.corp.internal", "a.docs.corp.internal", True),
        ("docs.corp.internal", "wiki.corp.internal", False),
        # no domain at all
        ("127.0.0.1:8000", "docs.127.0.0.1:8000", False),
        ("::1:8000", "docs.localhost:8000", False),
        ("github.io", "alice.github.io", False),
    ],
)
def test_which_hosts_are_the_start_websites_domain(start: str, key: str, followed: bool) -> None:
    assert follows(start, key) is followed


def test_the_suffix_list_is_read_without_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """The snapshot bundled with tldextract: no download at run time (its default would
    fetch publicsuffix.org into a disk cache)."""

    def no_network(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the Public Suffix List must not be downloaded")

    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    subdomains._suffixes.cache_clear()
    try:
        assert domain_of("www.example.co.uk") == ("example.co.uk", "")
    finally:
        subdomains._suffixes.cache_clear()
