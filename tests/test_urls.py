"""Tests for webmd_spider.urls: canonical form, sites, start inputs, patterns, link filters."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webmd_spider.urls import (
    NON_PAGE_EXTENSIONS,
    TRACKING_PARAMS,
    TRACKING_PREFIXES,
    PatternError,
    StartInput,
    UrlFilter,
    canonicalize,
    compile_pattern,
    discovery_candidates,
    follow_rejection,
    parse_start_input,
    parse_start_inputs,
    same_site,
    site_key,
    split_patterns,
)

# --------------------------------------------------------------------------- #
# canonicalize
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        # scheme and host case
        ("HTTP://ExAmple.COM/Path/To", "http://example.com/Path/To"),
        # default ports dropped, others kept
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com:443/a", "http://example.com:443/a"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("http://[::1]:80/x", "http://[::1]/x"),
        # fragments
        ("https://example.com/a#section-2", "https://example.com/a"),
        ("https://example.com/#", "https://example.com/"),
        # query order: sorted by name, stable for repeated keys, blank values kept
        ("https://example.com/s?b=2&a=1", "https://example.com/s?a=1&b=2"),
        ("https://example.com/s?z=1&a=2&a=1&a=", "https://example.com/s?a=2&a=1&a=&z=1"),
        ("https://example.com/s?flag&b=", "https://example.com/s?b=&flag"),
        ("https://example.com/s?", "https://example.com/s"),
        # tracking parameters dropped, others kept
        (
            "https://example.com/p?id=7&utm_source=news&utm_medium=mail&gclid=abc&fbclid=x",
            "https://example.com/p?id=7",
        ),
        ("https://example.com/p?UTM_Campaign=x&page=2&msclkid=1", "https://example.com/p?page=2"),
        ("https://example.com/p?_ga=1&_gl=2&mc_cid=3&mc_eid=4", "https://example.com/p"),
        # empty path
        ("https://example.com", "https://example.com/"),
        ("https://example.com?b=1", "https://example.com/?b=1"),
        # no trailing-slash or path-case changes
        ("https://example.com/Docs/", "https://example.com/Docs/"),
        ("https://example.com/Docs", "https://example.com/Docs"),
        # IDN host to punycode
        ("https://bücher.de/katalog", "https://xn--bcher-kva.de/katalog"),
        ("https://BÜCHER.de/", "https://xn--bcher-kva.de/"),
        # percent-encoding: unsafe escaped, unreserved decoded, reserved kept, hex upper
        ("https://example.com/a b/café", "https://example.com/a%20b/caf%C3%A9"),
        ("https://example.com/%7Euser/%41bc", "https://example.com/~user/Abc"),
        ("https://example.com/a%2fb", "https://example.com/a%2Fb"),
        ("https://example.com/a%3Fb?q=%26x", "https://example.com/a%3Fb?q=%26x"),
        ("https://example.com/s?q=a+b", "https://example.com/s?q=a+b"),
        # surrounding whitespace
        ("  https://example.com/x \n", "https://example.com/x"),
    ],
)
def test_canonicalize_cases(url: str, expected: str) -> None:
    assert canonicalize(url) == expected
    assert canonicalize(expected) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "not a url",
        "/relative/path",
        "mailto:a@example.com",
        "http://",
        "http://h:99999/",
    ],
)
def test_canonicalize_leaves_unparsable_input_stripped(text: str) -> None:
    assert canonicalize(text) == text.strip()
    assert canonicalize(f"  {text}  ") == text.strip()


def test_tracking_vocabulary_is_named_data() -> None:
    assert {"gclid", "fbclid", "msclkid", "mc_cid", "mc_eid", "_ga", "_gl"} <= TRACKING_PARAMS
    assert "utm_" in TRACKING_PREFIXES


@given(st.text())
def test_canonicalize_never_raises_and_is_idempotent_on_any_text(text: str) -> None:
    once = canonicalize(text)
    assert isinstance(once, str)
    assert canonicalize(once) == once


_SCHEMES = st.sampled_from(["http", "https", "HTTP", "HtTpS"])
_HOSTS = st.sampled_from(
    [
        "example.com",
        "WWW.Example.COM",
        "bücher.de",
        "127.0.0.1",
        "[::1]",
        "localhost",
        "sub.domain.example.co.uk",
        "xn--bcher-kva.de",
    ]
)
_PORTS = st.sampled_from(["", ":80", ":443", ":8080", ":0443"])
_SEGMENT = st.text(alphabet=st.sampled_from(list("abcXYZ019-._~%20é /;=+&2F:@!$'()*,")), max_size=8)
_PATHS = st.lists(_SEGMENT, max_size=4).map(lambda segs: "".join("/" + s for s in segs))
_PARAM = st.tuples(
    st.sampled_from(["a", "b", "utm_source", "gclid", "Q", "x%20y", "", "é"]),
    st.sampled_from(["", "=", "=1", "=two words", "=%41", "=a+b", "=é"]),
).map("".join)
_QUERIES = st.one_of(st.just(""), st.lists(_PARAM, max_size=5).map(lambda ps: "?" + "&".join(ps)))
_FRAGMENTS = st.sampled_from(["", "#", "#top", "#a/b?c"])

generated_urls = st.builds(
    lambda scheme, host, port, path, query, frag: f"{scheme}://{host}{port}{path}{query}{frag}",
    _SCHEMES,
    _HOSTS,
    _PORTS,
    _PATHS,
    _QUERIES,
    _FRAGMENTS,
)


@given(generated_urls)
def test_canonicalize_generated_urls(url: str) -> None:
    once = canonicalize(url)
    assert canonicalize(once) == once
    assert "#" not in once
    assert once.startswith(("http://", "https://"))
    assert "utm_source" not in once and "gclid" not in once
    assert site_key(once) == site_key(canonicalize(url))


# --------------------------------------------------------------------------- #
# site_key / same_site
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("https://www.Example.com/a", "example.com"),
        ("http://example.com:80/", "example.com"),
        ("https://example.com:443/", "example.com"),
        ("https://example.com:8443/", "example.com:8443"),
        ("http://127.0.0.1:8080/x", "127.0.0.1:8080"),
        ("https://docs.example.com/", "docs.example.com"),
    ],
)
def test_site_key(url: str, key: str) -> None:
    assert site_key(url) == key


def test_same_site() -> None:
    assert same_site("https://www.example.com/a", "http://example.com/b")
    assert not same_site("https://example.com/", "https://example.com:8443/")
    assert not same_site("https://docs.example.com/", "https://example.com/")


# --------------------------------------------------------------------------- #
# start inputs
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("raw", "kind", "url"),
    [
        ("example.com", "domain", "https://example.com/"),
        ("Example.COM/", "domain", "https://example.com/"),
        ("www.example.com", "domain", "https://www.example.com/"),
        ("localhost:8080", "domain", "https://localhost:8080/"),
        ("bücher.de", "domain", "https://xn--bcher-kva.de/"),
        ("example.com/docs", "page", "https://example.com/docs"),
        ("example.com/?p=1", "page", "https://example.com/?p=1"),
        ("http://127.0.0.1:8080/", "root", "http://127.0.0.1:8080/"),
        ("https://example.com", "root", "https://example.com/"),
        ("https://example.com/#top", "root", "https://example.com/"),
        ("http://localhost/", "root", "http://localhost/"),
        ("http://[::1]:8000/", "root", "http://[::1]:8000/"),
        ("http://h.example/x", "page", "http://h.example/x"),
        ("https://example.com/?q=1", "page", "https://example.com/?q=1"),
    ],
)
def test_parse_start_input_valid(raw: str, kind: str, url: str) -> None:
    parsed = parse_start_input(raw)
    assert parsed == StartInput(raw=raw, url=url, kind=kind, error=None)


@pytest.mark.parametrize(
    ("raw", "error_fragment"),
    [
        ("user@example.com", "e-mail address"),
        ("mailto:user@example.com", "only http:// and https://"),
        ("ftp://example.com/file", "unsupported address type 'ftp:'"),
        ("file:///etc/passwd", "unsupported address type 'file:'"),
        ("javascript:", "unsupported address type 'javascript:'"),
        ("javascript:alert(1)", "unsupported address type 'javascript:'"),
        ("http://", "no host name"),
        ("http://exa mple.com", "contains spaces"),
        ("://x", "missing scheme"),
        ("intranet", "not a full domain name"),
        ("http://intranet/", "not a full domain name"),
        ("http://example.com:99999/", "malformed address"),
        ("exa_$mple.com", "not a valid host name"),
        ("", "empty input"),
    ],
)
def test_parse_start_input_invalid(raw: str, error_fragment: str) -> None:
    parsed = parse_start_input(raw)
    assert parsed.kind == "invalid"
    assert parsed.url is None
    assert parsed.raw == raw
    assert parsed.error is not None and error_fragment in parsed.error


def test_parse_start_inputs_splits_dedupes_and_keeps_order() -> None:
    parsed = parse_start_inputs(" example.com, http://b.example/x\n\nexample.com,,ftp://c.example ")
    assert [p.raw for p in parsed] == ["example.com", "http://b.example/x", "ftp://c.example"]
    assert [p.kind for p in parsed] == ["domain", "page", "invalid"]
    assert parse_start_inputs("  , \n") == []


@given(st.text())
def test_parse_start_input_never_raises(text: str) -> None:
    parsed = parse_start_input(text)
    assert parsed.kind in {"domain", "root", "page", "invalid"}
    assert (parsed.url is None) == (parsed.kind == "invalid")
    assert (parsed.error is None) == (parsed.kind != "invalid")


# --------------------------------------------------------------------------- #
# discovery
# --------------------------------------------------------------------------- #


def test_discovery_candidates() -> None:
    assert discovery_candidates("https://example.com/") == [
        "https://example.com/",
        "https://www.example.com/",
        "http://example.com/",
    ]
    assert discovery_candidates("https://www.example.com/") == [
        "https://www.example.com/",
        "http://www.example.com/",
    ]
    assert discovery_candidates("https://localhost:8080/") == [
        "https://localhost:8080/",
        "http://localhost:8080/",
    ]
    assert discovery_candidates("https://127.0.0.1/") == [
        "https://127.0.0.1/",
        "http://127.0.0.1/",
    ]


def test_discovery_candidates_from_parsed_domain() -> None:
    parsed = parse_start_input("docs.example.org")
    assert parsed.url is not None
    assert discovery_candidates(parsed.url)[1] == "https://www.docs.example.org/"


# --------------------------------------------------------------------------- #
# patterns
# --------------------------------------------------------------------------- #


def test_glob_star_spans_slashes_and_must_cover_whole_url() -> None:
    pattern = compile_pattern("*/docs/*")
    assert pattern.match("https://example.com/docs/a/b.html")
    assert pattern("https://example.com/docs/")
    assert not pattern.match("https://example.com/blog/docs")
    assert pattern.source == "*/docs/*"
    # whole-URL: no implicit leading/trailing wildcard
    assert not compile_pattern("/docs/*").match("https://example.com/docs/x")
    assert compile_pattern("https://example.com/*").match("https://example.com/a?b=c")


def test_glob_question_mark_is_one_character_and_rest_is_literal() -> None:
    pattern = compile_pattern("https://example.com/v?/index.html")
    assert pattern.match("https://example.com/v2/index.html")
    assert not pattern.match("https://example.com/v10/index.html")
    assert not pattern.match("https://example.com/v2/indexxhtml")  # "." literal
    assert compile_pattern("*[a]*").match("https://example.com/[a]")
    assert not compile_pattern("*[a]*").match("https://example.com/a")


def test_regex_pattern_with_flags() -> None:
    pattern = compile_pattern("/Docs/i")
    assert pattern.match("https://example.com/docs/x")
    assert pattern.match("https://example.com/DOCS")
    assert not compile_pattern("/Docs/").match("https://example.com/docs/x")
    assert compile_pattern(r"/\/v\d+\//").match("https://example.com/v12/a")
    assert compile_pattern("/^https://example\\.com/blog/").match("https://example.com/blog/1")


@pytest.mark.parametrize("bad", ["/(unclosed/", "/[a-/i", "/*/", "//", ""])
def test_broken_pattern_raises_pattern_error(bad: str) -> None:
    with pytest.raises(PatternError) as info:
        compile_pattern(bad)
    if bad:
        assert bad in str(info.value)


def test_url_filter_exclude_wins_and_empty_include_allows_all() -> None:
    everything = UrlFilter.from_strings([], [])
    assert everything.allows("https://example.com/anything")
    assert everything.rejection("https://example.com/anything") is None

    scoped = UrlFilter.from_strings(["*/docs/*"], ["*/docs/old/*", "/\\.pdf$/i"])
    assert scoped.allows("https://example.com/docs/new/a")
    assert scoped.rejection("https://example.com/docs/old/a") == (
        "excluded by pattern */docs/old/*"
    )
    assert scoped.rejection("https://example.com/docs/A.PDF") == "excluded by pattern /\\.pdf$/i"
    assert scoped.rejection("https://example.com/blog/a") == "not matched by any include pattern"
    assert not scoped.allows("https://example.com/blog/a")


def test_url_filter_from_strings_raises_on_bad_pattern() -> None:
    with pytest.raises(PatternError):
        UrlFilter.from_strings(["*/ok/*"], ["/(/"])


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, []),
        ("", []),
        ("*/docs/*, */blog/*", ["*/docs/*", "*/blog/*"]),
        ("*/a/*  */b/*\n*/c/*", ["*/a/*", "*/b/*", "*/c/*"]),
        ("/a,b/i", ["/a,b/i"]),
        ("*/x/*,/a,b/i,*/y/*", ["*/x/*", "/a,b/i", "*/y/*"]),
        ("/a/, /b/", ["/a/", "/b/"]),
        (r"/a\/b,c/ x", [r"/a\/b,c/", "x"]),
        (["*/a/*,*/b/*", "/c,d/"], ["*/a/*", "*/b/*", "/c,d/"]),
    ],
)
def test_split_patterns(value: str | list[str] | None, expected: list[str]) -> None:
    assert split_patterns(value) == expected


def test_split_patterns_regex_with_comma_compiles_as_one() -> None:
    [pattern] = [compile_pattern(p) for p in split_patterns("/page-[0-9]{1,3}$/")]
    assert pattern.match("https://example.com/page-12")


# --------------------------------------------------------------------------- #
# follow_rejection
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("mailto:someone@example.com", "scheme:mailto"),
        ("javascript:void(0)", "scheme:javascript"),
        ("data:text/html,hi", "scheme:data"),
        ("tel:+15551234", "scheme:tel"),
        ("ftp://example.com/f", "scheme:ftp"),
        ("file:///etc/passwd", "scheme:file"),
        ("https://example.com/img/logo.PNG", "asset:.png"),
        ("https://example.com/a/photo.jpg?w=200", "asset:.jpg"),
        ("https://example.com/static/site.css", "asset:.css"),
        ("https://example.com/app.js", "asset:.js"),
        ("https://example.com/fonts/x.woff2", "asset:.woff2"),
        ("https://example.com/media/talk.mp4", "asset:.mp4"),
        ("https://example.com/dl/release.tar.gz", "asset:.gz"),
        ("https://example.com/files/report.pdf", "document:.pdf"),
        ("https://example.com/files/sheet.xlsx", "asset:.xlsx"),
        ("https://example.com/file.zip;jsessionid=1", "asset:.zip"),
        ("https://example.com/sitemap.xml", "asset:.xml"),
        ("https://example.com/feed", "feed"),
        ("https://example.com/blog/feed/", "feed"),
        ("https://example.com/rss", "feed"),
        ("https://example.com/news.rss", "feed"),
        ("https://example.com/posts.atom", "feed"),
        ("https://example.com/atom.xml", "feed"),
        ("https://example.com/blog/feed.xml", "feed"),
        ("https://example.com/?feed=rss2", "feed"),
        ("https://example.com/api/users", "api-path"),
        ("https://example.com/api/v1/users/3", "api-path"),
        ("https://example.com/api", "api-path"),
        ("https://example.com/graphql", "api-path"),
        ("https://example.com/wp-json/wp/v2/posts", "api-path"),
        ("https://example.com/" + "a" * 2001, "too-long"),
        ("/relative/page", "scheme:none"),
    ],
)
def test_follow_rejection_reasons(url: str, reason: str) -> None:
    assert follow_rejection(url) == reason


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/",
        "https://example.com/docs/page.html",
        "https://example.com/blog/post",
        "https://example.com/index.php?id=3",
        "https://example.com/docs/api/reference",  # human API docs are pages
        "https://example.com/api/java.base/module-summary.html",  # Javadoc's api/ folder
        "https://example.com/v1.2/guide",
        "https://example.com/about.aspx",
        "http://example.com/llms.txt",
        "https://example.com/feedback",
    ],
)
def test_follow_rejection_allows_normal_pages(url: str) -> None:
    assert follow_rejection(url) is None


def test_non_page_extensions_vocabulary() -> None:
    for ext in (".png", ".css", ".js", ".woff2", ".mp3", ".zip", ".docx", ".pdf", ".rss"):
        assert ext in NON_PAGE_EXTENSIONS
    assert all(ext.startswith(".") and ext == ext.lower() for ext in NON_PAGE_EXTENSIONS)
    assert ".html" not in NON_PAGE_EXTENSIONS and ".php" not in NON_PAGE_EXTENSIONS


@given(st.text(max_size=300))
def test_follow_rejection_never_raises(text: str) -> None:
    result = follow_rejection(text)
    assert result is None or isinstance(result, str)


# -- the plain-URL fast path of canonicalize ------------------------------------------
def _plain_urls() -> st.SearchStrategy[str]:
    from webmd_spider.urls import _PLAIN_URL

    return st.from_regex(_PLAIN_URL, fullmatch=True)


@given(_plain_urls())
def test_a_plain_url_is_one_safe_url_string_leaves_as_it_is(url: str) -> None:
    # what lets canonicalize skip safe_url_string for it
    from w3lib.url import safe_url_string

    assert safe_url_string(url) == url


def _canonical_or_error(url: str) -> str:
    from webmd_spider.urls import _canonicalize

    try:
        return _canonicalize(url)
    except Exception as exc:  # canonicalize's contract: it returns the stripped URL then
        return f"raised {type(exc).__name__}"


@given(
    st.one_of(
        _plain_urls(),
        st.from_regex(
            r"https?://[A-Za-z0-9.:\[\]@-]{1,20}(/[ -~\u00e9\u4e2d]{0,30})?", fullmatch=True
        ),
    )
)
def test_canonicalize_gives_what_the_full_path_gives(url: str) -> None:
    import re

    import webmd_spider.urls as urls

    url = url.strip()
    fast = _canonical_or_error(url)
    pattern = urls._PLAIN_URL
    urls._PLAIN_URL = re.compile(r"(?!)")  # nothing is plain: every URL the full path
    try:
        slow = _canonical_or_error(url)
    finally:
        urls._PLAIN_URL = pattern
    assert fast == slow


@pytest.mark.parametrize(
    ("url", "plain"),
    [
        ("http://127.0.0.1:41234/a.html", True),  # a test server's ephemeral port
        ("http://example.com:65535/", True),
        ("http://example.com:65536/", False),  # not a port: the full path decides
        ("http://example.com:099/", False),  # a leading zero is not left as it is
        ("http://example.com:0/", False),
    ],
)
def test_plain_urls_take_every_valid_port(url: str, plain: bool) -> None:
    from webmd_spider.urls import _PLAIN_URL

    assert bool(_PLAIN_URL.fullmatch(url)) is plain
