"""`inline.join_url` gives exactly ``urllib.parse.urljoin``'s result, shortcut or not;
`inline.defrag_url` exactly ``urllib.parse.urldefrag``'s."""

from __future__ import annotations

from urllib.parse import urldefrag, urljoin

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webmd_spider.extract.inline import defrag_url, join_url

_PLAIN = ["a", "b.html", "x-y_z~", "c."] * 6
_SEGMENTS = st.sampled_from([*_PLAIN, "", ".", "..", "é", "a b", "\\"])


def _path(segments: list[str]) -> str:
    return "/".join(segments)


# bases and hrefs mostly of the plain shapes the shortcut takes, mixed with every
# shape that must go to urllib (dot and empty segments, queries, params, odd hosts)
_BASES = st.builds(
    lambda scheme, host, path, suffix: f"{scheme}://{host}{path}{suffix}",
    st.sampled_from(["http", "https", "HTTP", "ftp"]),
    st.sampled_from(["h", "H.example:8080", "u@h", "[::1]", "[bad", "é.example", "h%41"]),
    st.one_of(st.just(""), st.lists(_SEGMENTS, max_size=4).map(lambda s: "/" + _path(s))),
    st.sampled_from(["", "", "", "", "", "", "?q=1", "#f", ";p", " "]),
)
_HREFS = st.builds(
    lambda lead, path, suffix: lead + path + suffix,
    st.sampled_from(["", "", "", "/", "//", "./", "../", "#", "?", "http:", "\t"]),
    st.lists(_SEGMENTS, min_size=1, max_size=4).map(_path),
    st.sampled_from(["", "", "#", "#f", "#a b", "#é", "#x\x7f", "?q", ";p", "/"]),
)


def _expected(base: str, href: str) -> str | None:
    try:
        return urljoin(base, href)
    except ValueError:
        return None


def _actual(base: str, href: str) -> str | None:
    try:
        return join_url(base, href)
    except ValueError:
        return None


@settings(max_examples=2000)
@given(_BASES, _HREFS)
def test_join_url_is_urljoin(base: str, href: str) -> None:
    assert _actual(base, href) == _expected(base, href)


@pytest.mark.parametrize(
    ("base", "href", "joined"),
    [
        ("http://h/a/b.html", "c.html", "http://h/a/c.html"),
        ("http://h/a/b.html", "c.html#x", "http://h/a/c.html#x"),
        ("http://h/a/b.html", "c.html#", "http://h/a/c.html"),
        ("http://h/a/", "sub/c.html", "http://h/a/sub/c.html"),
        ("http://h/a/../b.html", "c.html", "http://h/c.html"),
        ("http://h//a/b.html", "c.html", "http://h/a/c.html"),
        ("http://h", "c.html", "http://h/c.html"),
        ("http://h/a/b/c.html", "../d.html#x", "http://h/a/d.html#x"),
        ("http://h/a/c.html", "../../../x.html", "http://h/x.html"),
        ("http://h/a/b/", "./../", "http://h/a/"),
        ("http://h/a/b.html", "#top", "http://h/a/b.html#top"),
        ("http://h/a/b.html", "", "http://h/a/b.html"),
        # absolute and root-relative hrefs, the open web's links
        ("http://h/a/b.html", "/c.html", "http://h/c.html"),
        ("http://u@h:81/a/", "/c/d/#x", "http://u@h:81/c/d/#x"),
        ("https://h/a/", "/", "https://h/"),
        ("https://h/a/", "http://other.example/p?q=1#f", "http://other.example/p?q=1#f"),
        ("https://h/a/", "https://h/p#", "https://h/p"),
        ("https://h/a/", "/a//b", "https://h/a//b"),  # urllib keeps an empty segment here
    ],
)
def test_join_url_examples(base: str, href: str, joined: str) -> None:
    assert join_url(base, href) == joined == urljoin(base, href)


_PLAIN_SEGMENT = st.from_regex(r"[A-Za-z0-9_~-][A-Za-z0-9_.~-]{0,6}", fullmatch=True)
_PLAIN_BASES = st.builds(
    lambda scheme, host, segments, slash: f"{scheme}://{host}/{'/'.join(segments)}{slash}",
    st.sampled_from(["http", "https"]),
    st.sampled_from(["h", "H.example:8080", "u@h", "h%41"]),
    st.lists(_PLAIN_SEGMENT, max_size=4),
    st.sampled_from(["", "/"]),
)
_PLAIN_HREFS = st.builds(
    lambda lead, segments, slash, fragment: lead + "/".join(segments) + slash + fragment,
    st.sampled_from(["", "", "./", "../", "../../", "./../", "../../../../"]),
    st.lists(_PLAIN_SEGMENT, max_size=4),
    st.sampled_from(["", "/"]),
    st.one_of(st.just(""), st.text(max_size=5).map(lambda f: "#" + f)),
)


@settings(max_examples=1000)
@given(_PLAIN_BASES, _PLAIN_HREFS)
def test_join_url_shortcut_is_urljoin(base: str, href: str) -> None:
    """The shapes the shortcut takes (and fragments of any text, which it may not)."""
    assert _actual(base, href) == _expected(base, href)


# absolute and root-relative hrefs (the open web's links): the plain shapes the shortcut
# takes, mixed with every near miss that must go to urllib (upper-case scheme, empty
# query or fragment, params, dot and empty segments, brackets, whitespace)
_OPEN_WEB_HREFS = st.builds(
    lambda lead, segments, suffix: lead + "/".join(segments) + suffix,
    st.sampled_from(
        [
            "/",
            "/",
            "http://h/",
            "https://H.example:8080/",
            "HTTP://h/",
            "http://[bad/",
            "http://u@h",
            "https://é.example/",
            "//h/",
            "http:/",
            "ftp://h/",
            "/ ",
            "http://h\t/",
        ]
    ),
    st.lists(st.one_of(_PLAIN_SEGMENT, _SEGMENTS), max_size=4),
    st.sampled_from(["", "", "/", "?", "?q=1", "?a?b", "#", "#f", "#a b", ";p", "/;x", "?q#f"]),
)


@settings(max_examples=2000)
@given(st.one_of(_PLAIN_BASES, _BASES), _OPEN_WEB_HREFS)
def test_join_url_absolute_and_rooted_hrefs_are_urljoin(base: str, href: str) -> None:
    assert _actual(base, href) == _expected(base, href)


# URLs of the plain shape `defrag_url` cuts itself, mixed with every near miss that must
# go to urllib (upper-case scheme, empty query, params, brackets, odd hosts, whitespace)
_DEFRAG_URLS = st.builds(
    lambda lead, scheme, host, path, query, fragment: (
        f"{lead}{scheme}{host}{path}{query}{fragment}"
    ),
    st.sampled_from(["", "", "", "", " ", "\t"]),
    st.sampled_from(["http://", "https://", "HTTP://", "ftp://", "http:", "http:///", ""]),
    st.sampled_from(["h", "H.example:8080", "u@h", "[::1]", "[bad", "é.example", "h%41", ""]),
    st.one_of(st.just(""), st.lists(_SEGMENTS, max_size=4).map(lambda s: "/" + _path(s))),
    st.sampled_from(["", "", "?", "?q=1", "?a?b", ";p", "/;", ";", "?\n"]),
    st.one_of(
        st.sampled_from(["", "#", "#f", "#a#b", "#\t", "#?x", "#;"]),
        st.text(max_size=6).map(lambda f: "#" + f),
    ),
)


def _defrag_expected(url: str) -> str | None:
    try:
        return urldefrag(url)[0]
    except ValueError:
        return None


def _defrag_actual(url: str) -> str | None:
    try:
        return defrag_url(url)
    except ValueError:
        return None


@settings(max_examples=2000)
@given(_DEFRAG_URLS)
def test_defrag_url_is_urldefrag(url: str) -> None:
    assert _defrag_actual(url) == _defrag_expected(url)


@pytest.mark.parametrize(
    ("url", "page"),
    [
        ("http://h/a.html#x", "http://h/a.html"),
        ("https://h:8080/a/b?q=1#x#y", "https://h:8080/a/b?q=1"),
        ("http://h#x", "http://h"),
        ("http://h/a.html?#x", "http://h/a.html"),  # urllib drops an empty query
        ("HTTP://h/a#x", "http://h/a"),  # and lower-cases the scheme
        ("http://h/a;#x", "http://h/a"),  # and drops empty params
        ("http://h/a.html", "http://h/a.html"),
    ],
)
def test_defrag_url_examples(url: str, page: str) -> None:
    assert defrag_url(url) == page == urldefrag(url)[0]


def test_encoded_dot_segments_are_removed_before_anything_fetches_them() -> None:
    # issue 16 item 11: "/%2e%2e/%2e%2e/x" went on the wire as "GET /../../x"
    from webmd_spider.extract.inline import join_href, remove_dot_segments

    base = "https://docs.example.org/a/b.html"
    assert join_href(base, "/%2e%2e/%2e%2e/x") == "https://docs.example.org/x"
    assert join_href(base, "%2E%2E/y?q=1") == "https://docs.example.org/y?q=1"
    assert join_href(base, "https://other.example/a/./b/../c") == "https://other.example/a/c"
    assert join_href(base, "/.well-known/security.txt").endswith("/.well-known/security.txt")
    assert remove_dot_segments("/a/b/c/./../../g") == "/a/g"  # RFC 3986 §5.2.4 example
    assert remove_dot_segments("/../x/..") == "/"
    assert remove_dot_segments("/a/b/.") == "/a/b/"
