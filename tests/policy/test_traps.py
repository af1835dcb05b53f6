"""Tests for webmd_spider.policy.traps: crawler-trap detection (pure, no network)."""

from __future__ import annotations

import dataclasses

import pytest

from webmd_spider.policy.traps import (
    QUERY_VARIANTS,
    REPEATED_SEGMENT,
    SESSION_ID,
    SESSION_PARAMS,
    TOO_MANY_PARAMS,
    TOO_MANY_SEGMENTS,
    URL_TOO_LONG,
    TrapDetector,
    TrapPolicy,
)

BASE = "https://docs.example.com"


def test_policy_defaults() -> None:
    policy = TrapPolicy()
    assert policy.max_repeated_segment == 2
    assert policy.max_segments == 20
    assert policy.max_url_length == 2000
    assert policy.max_query_params == 8
    assert policy.max_query_variants_per_path == 50
    # "sid" is not one: it is also a story id (story.pl?sid=24/01/01/123)
    assert "sid" not in SESSION_PARAMS
    for name in ("jsessionid", "phpsessid", "sessionid", "session_id", "cfid", "cftoken"):
        assert name in policy.session_params
    assert {"zenid", "oscsid"} <= SESSION_PARAMS


# --------------------------------------------------------------------------- #
# Repeated segments
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "path",
    ["/a/b/a/b/", "/a/b/a/b", "/a/a/", "/2024/01/01/", "/docs/v1/api/v1/x", "/a//a/"],
)
def test_two_repeats_allowed(path: str) -> None:
    assert TrapDetector().refusal(BASE + path) is None


@pytest.mark.parametrize(
    "path",
    [
        "/a/b/a/b/a/",
        "/a/a/a",
        "/x/a/y/a/z/a/",
        "/A/a/%61/",  # case-insensitive, percent-decoded
        "/a;x=1/a;y=2/a",  # path parameters ignored
    ],
)
def test_three_repeats_refused(path: str) -> None:
    assert TrapDetector().refusal(BASE + path) == REPEATED_SEGMENT


def test_repeat_limit_is_configurable() -> None:
    detector = TrapDetector(TrapPolicy(max_repeated_segment=3))
    assert detector.refusal(BASE + "/a/a/a/") is None
    assert detector.refusal(BASE + "/a/a/a/a/") == REPEATED_SEGMENT


# --------------------------------------------------------------------------- #
# Depth and length
# --------------------------------------------------------------------------- #


def _deep(count: int, trailing_slash: bool = False) -> str:
    path = "".join(f"/s{i}" for i in range(count))
    return BASE + path + ("/" if trailing_slash else "")


def test_segment_boundary() -> None:
    detector = TrapDetector()
    assert detector.refusal(_deep(20)) is None
    assert detector.refusal(_deep(20, trailing_slash=True)) is None
    assert detector.refusal(_deep(21)) == TOO_MANY_SEGMENTS


def test_empty_segments_count_towards_depth() -> None:
    detector = TrapDetector()
    assert detector.refusal(BASE + "/a" + "/" * 25 + "b") == TOO_MANY_SEGMENTS


def test_url_length_boundary() -> None:
    detector = TrapDetector()
    prefix = BASE + "/p/"
    ok = prefix + "x" * (2000 - len(prefix))
    assert len(ok) == 2000
    assert detector.refusal(ok) is None
    assert detector.refusal(ok + "x") == URL_TOO_LONG


# --------------------------------------------------------------------------- #
# Session ids
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "url",
    [
        BASE + "/page?PHPSESSID=abc123",
        BASE + "/page?a=1&jsessionid=abc",
        BASE + "/page?sessid=0f3e",
        BASE + "/page?SessionID=1",
        BASE + "/page?session_id=1",
        BASE + "/page?CFID=1&CFTOKEN=2",
        BASE + "/shop/item?zenid=1",
        BASE + "/shop/item?osCsid=1",
        BASE + "/default.asp?ASPSESSIONIDQQGGQGPG=ABC",
        BASE + "/page;jsessionid=0123456789ABCDEF",
        BASE + "/page.html;JSESSIONID=0123?x=1",
        BASE + "/app;jsessionid=1/next/page",
        BASE + "/page?%50HPSESSID=abc",  # percent-encoded name
    ],
)
def test_session_ids_refused(url: str) -> None:
    assert TrapDetector().refusal(url) == SESSION_ID


@pytest.mark.parametrize(
    "url",
    [
        BASE + "/page?side=left",  # not "sid"
        BASE + "/page?session=keynote",  # a conference session, not a session id
        BASE + "/page;v=2",  # an ordinary path parameter
        BASE + "/sid/jsessionid/page",  # segments, not parameters
    ],
)
def test_session_lookalikes_allowed(url: str) -> None:
    assert TrapDetector().refusal(url) is None


def test_custom_session_params() -> None:
    policy = TrapPolicy(session_params=frozenset({"visit"}))
    detector = TrapDetector(policy)
    assert detector.refusal(BASE + "/p?visit=1") == SESSION_ID
    assert detector.refusal(BASE + "/p?phpsessid=1") is None


# --------------------------------------------------------------------------- #
# Query parameters
# --------------------------------------------------------------------------- #


def _params(count: int) -> str:
    return "&".join(f"f{i}={i}" for i in range(count))


def test_param_count_boundary() -> None:
    detector = TrapDetector()
    assert detector.refusal(f"{BASE}/search?{_params(8)}") is None
    assert detector.refusal(f"{BASE}/search?{_params(9)}") == TOO_MANY_PARAMS


def test_empty_pairs_are_not_params() -> None:
    assert TrapDetector().refusal(f"{BASE}/search?{_params(8)}&&&") is None


# --------------------------------------------------------------------------- #
# Query variants per path
# --------------------------------------------------------------------------- #


def test_calendar_refused_after_cap_other_paths_unaffected() -> None:
    detector = TrapDetector()
    months = [f"{BASE}/cal?month={y}-{m:02d}" for y in range(2000, 2100) for m in range(1, 13)]
    results = [detector.refusal(url) for url in months]
    assert results[:50] == [None] * 50
    assert set(results[50:]) == {QUERY_VARIANTS}
    # already-seen variants stay fetchable (retries, re-discovery)
    assert detector.refusal(months[0]) is None
    assert detector.refusal(months[49]) is None
    assert detector.variants_seen(months[0]) == 50
    # other paths, hosts and schemes have their own budget
    assert detector.refusal(f"{BASE}/events?month=2000-01") is None
    assert detector.refusal("https://other.example/cal?month=2000-01") is None
    assert detector.refusal(f"{BASE}/cal/archive?month=2099-12") is None
    # the bare path is not a query variant
    assert detector.refusal(f"{BASE}/cal") is None


def test_variants_are_canonical() -> None:
    detector = TrapDetector(TrapPolicy(max_query_variants_per_path=1))
    assert detector.refusal(f"{BASE}/p?a=1&b=2") is None
    # same query in another order, host case, default port, tracking params
    assert detector.refusal(f"{BASE}/p?b=2&a=1") is None
    assert detector.refusal("https://DOCS.example.com:443/p?a=1&b=2&utm_source=x") is None
    assert detector.refusal(f"{BASE}/p?a=2&b=2") == QUERY_VARIANTS
    # only tracking parameters: that is the bare page, never a variant
    assert detector.refusal(f"{BASE}/p?utm_campaign=z") is None


def test_refused_urls_are_not_recorded() -> None:
    detector = TrapDetector(TrapPolicy(max_query_variants_per_path=2))
    assert detector.refusal(f"{BASE}/p?{_params(9)}") == TOO_MANY_PARAMS
    assert detector.refusal(f"{BASE}/p?sessid=1") == SESSION_ID
    assert detector.variants_seen(f"{BASE}/p") == 0
    assert detector.refusal(f"{BASE}/p?a=1") is None
    assert detector.refusal(f"{BASE}/p?a=2") is None
    assert detector.refusal(f"{BASE}/p?a=3") == QUERY_VARIANTS
    assert detector.variants_seen(f"{BASE}/p") == 2


# --------------------------------------------------------------------------- #
# Memory bound
# --------------------------------------------------------------------------- #


def test_memory_bound_with_200k_paths() -> None:
    detector = TrapDetector()
    for i in range(200_000):
        assert detector.refusal(f"{BASE}/p{i}?q=1") is None
        assert detector.tracked_paths <= 100_000
    assert detector.tracked_paths == 100_000
    # the oldest paths were evicted, the newest are still tracked
    assert detector.variants_seen(f"{BASE}/p0") == 0
    assert detector.variants_seen(f"{BASE}/p199999") == 1


def test_lru_keeps_active_trap_tracked() -> None:
    detector = TrapDetector(TrapPolicy(max_query_variants_per_path=5), max_tracked_paths=10)
    trap = f"{BASE}/cal"
    refused = 0
    for i in range(1_000):
        # a trap path touched constantly, interleaved with many one-off paths
        if detector.refusal(f"{trap}?day={i}") == QUERY_VARIANTS:
            refused += 1
        assert detector.refusal(f"{BASE}/one-off-{i}?x=1") is None
        assert detector.tracked_paths <= 10
    assert refused == 1_000 - 5


def test_variant_set_bounded_by_cap() -> None:
    detector = TrapDetector(TrapPolicy(max_query_variants_per_path=7))
    for i in range(10_000):
        detector.refusal(f"{BASE}/cal?d={i}")
    assert detector.variants_seen(f"{BASE}/cal") == 7


def test_max_tracked_paths_must_be_positive() -> None:
    with pytest.raises(ValueError):
        TrapDetector(max_tracked_paths=0)


# --------------------------------------------------------------------------- #
# Ordinary sites are never refused
# --------------------------------------------------------------------------- #


def test_normal_docs_site_never_refused() -> None:
    detector = TrapDetector()
    urls = [
        f"{BASE}/docs/{section}/{topic}/page-{n}.html"
        for section in ("guide", "reference", "tutorials", "api", "howto")
        for topic in ("intro", "install", "config", "deploy")
        for n in range(50)
    ]
    assert len(urls) == 1_000
    urls += [f"{BASE}/blog?page={n}" for n in range(1, 51)]
    urls += [f"{BASE}/search?q=install&page={n}&lang=en&sort=relevance" for n in range(1, 51)]
    urls += [
        f"{BASE}/docs/v2/guide/v2/intro/",
        f"{BASE}/2024/05/05/release-notes/",
        f"{BASE}/docs/guide/index.html#section-3",
        f"{BASE}/static/page.html?utm_source=news&utm_medium=mail",
    ]
    for url in urls:
        assert detector.refusal(url) is None, url
    # asking again (re-discovered links) changes nothing
    for url in urls:
        assert detector.refusal(url) is None, url


def test_policy_is_immutable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        TrapPolicy().max_segments = 3  # type: ignore[misc]
