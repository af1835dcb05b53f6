"""Tests for webmd_spider.robots: RFC 9309 status handling, groups, matching, limits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webmd_spider.robots import DEFAULT_TOKEN, MAX_ROBOTS_BYTES, RobotsRules

SITE = "https://www.example.com"


def rules(text: str, status: int = 200) -> RobotsRules:
    return RobotsRules.from_response(status, text.encode("utf-8"))


# --------------------------------------------------------------------------- #
# Status handling (RFC 9309 §2.3.1)
# --------------------------------------------------------------------------- #


def test_200_is_parsed() -> None:
    r = rules("User-agent: *\nDisallow: /private/\n")
    assert r.policy == "parsed"
    assert r.status == 200
    assert r.parser is not None
    assert r.token == DEFAULT_TOKEN == "webmd"
    assert r.allowed(f"{SITE}/public/page")
    assert not r.allowed(f"{SITE}/private/page")


@pytest.mark.parametrize("status", [404, 403, 401, 410, 429, 400, 499])
def test_4xx_allows_everything(status: int) -> None:
    # The body is ignored: an error page that looks like a robots.txt changes nothing.
    r = RobotsRules.from_response(status, b"User-agent: *\nDisallow: /\n")
    assert r.policy == "allow-all"
    assert r.status == status
    assert r.parser is None
    assert r.allowed(f"{SITE}/")
    assert r.allowed(f"{SITE}/anything/at/all")
    assert r.sitemaps() == []
    assert r.crawl_delay() is None


@pytest.mark.parametrize("status", [500, 502, 503, 504, 599])
def test_5xx_disallows_everything(status: int) -> None:
    r = RobotsRules.from_response(status, b"User-agent: *\nAllow: /\n")
    assert r.policy == "disallow-all"
    assert r.status == status
    assert not r.allowed(f"{SITE}/")
    assert not r.allowed(f"{SITE}/page")
    assert r.sitemaps() == []
    assert r.crawl_delay() is None


def test_unreachable_disallows_everything() -> None:
    r = RobotsRules.unreachable()
    assert r.policy == "disallow-all"
    assert r.status is None
    assert not r.allowed(f"{SITE}/")
    assert not r.allowed(f"{SITE}/robots-free/page")


def test_allow_all_when_robots_turned_off() -> None:
    r = RobotsRules.allow_all()
    assert r.policy == "allow-all"
    assert r.status is None
    assert r.allowed(f"{SITE}/private/")


def test_empty_200_allows_everything() -> None:
    r = RobotsRules.from_response(200, b"")
    assert r.policy == "parsed"
    assert r.allowed(f"{SITE}/any")


# --------------------------------------------------------------------------- #
# Groups: our product token beats `*` (RFC 9309 §2.2.1)
# --------------------------------------------------------------------------- #


def test_webmd_group_disallows_while_star_allows() -> None:
    r = rules("User-agent: webmd\nDisallow: /x\n\nUser-agent: *\nDisallow:\n")
    assert not r.allowed(f"{SITE}/x")
    assert not r.allowed(f"{SITE}/x/y")
    assert r.allowed(f"{SITE}/y")


def test_webmd_group_allows_while_star_disallows() -> None:
    r = rules("User-agent: *\nDisallow: /\n\nUser-agent: webmd\nAllow: /\n")
    assert r.allowed(f"{SITE}/x")
    assert r.allowed(f"{SITE}/")


def test_star_group_applies_when_no_group_names_us() -> None:
    r = rules("User-agent: otherbot\nDisallow: /\n\nUser-agent: *\nDisallow: /x\n")
    assert r.allowed(f"{SITE}/y")
    assert not r.allowed(f"{SITE}/x")


def test_other_bot_group_does_not_apply() -> None:
    r = rules("User-agent: otherbot\nDisallow: /\n")
    assert r.allowed(f"{SITE}/page")


def test_product_token_matching_is_case_insensitive() -> None:
    r = rules("User-agent: WebMD\nDisallow: /x\n\nUser-agent: *\nDisallow:\n")
    assert not r.allowed(f"{SITE}/x")


def test_custom_token() -> None:
    text = b"User-agent: otherbot\nDisallow: /\n\nUser-agent: *\nAllow: /\n"
    assert not RobotsRules.from_response(200, text, token="otherbot").allowed(f"{SITE}/p")
    assert RobotsRules.from_response(200, text).allowed(f"{SITE}/p")


def test_byte_order_mark_does_not_hide_the_first_group() -> None:
    r = RobotsRules.from_response(200, b"\xef\xbb\xbfUser-agent: *\nDisallow: /x\n")
    assert not r.allowed(f"{SITE}/x")
    assert r.allowed(f"{SITE}/y")


# --------------------------------------------------------------------------- #
# Longest match (RFC 9309 §2.2.2)
# --------------------------------------------------------------------------- #


def test_longer_allow_beats_shorter_disallow() -> None:
    r = rules("User-agent: *\nAllow: /p\nDisallow: /\n")
    assert r.allowed(f"{SITE}/page")
    assert r.allowed(f"{SITE}/p")
    assert not r.allowed(f"{SITE}/x")
    assert not r.allowed(f"{SITE}/")


def test_longer_disallow_beats_shorter_allow() -> None:
    r = rules("User-agent: *\nAllow: /folder\nDisallow: /folder/private\n")
    assert r.allowed(f"{SITE}/folder/public")
    assert not r.allowed(f"{SITE}/folder/private/page")


def test_rule_order_does_not_matter() -> None:
    a = rules("User-agent: *\nAllow: /p\nDisallow: /\n")
    b = rules("User-agent: *\nDisallow: /\nAllow: /p\n")
    for path in ("/page", "/p", "/x", "/"):
        assert a.allowed(SITE + path) == b.allowed(SITE + path)


def test_dollar_anchors_the_end() -> None:
    r = rules("User-agent: *\nDisallow: /*.gif$\n")
    assert not r.allowed(f"{SITE}/image.gif")
    assert not r.allowed(f"{SITE}/deep/dir/image.gif")
    assert r.allowed(f"{SITE}/image.gifs")
    assert r.allowed(f"{SITE}/image.gif/page")
    assert r.allowed(f"{SITE}/image.png")


def test_star_wildcard_in_path() -> None:
    r = rules("User-agent: *\nDisallow: /*/private\n")
    assert not r.allowed(f"{SITE}/team/private")
    assert r.allowed(f"{SITE}/private")


def test_empty_disallow_allows_everything() -> None:
    r = rules("User-agent: *\nDisallow:\n")
    assert r.allowed(f"{SITE}/anything")


# --------------------------------------------------------------------------- #
# Other records
# --------------------------------------------------------------------------- #


def test_sitemaps_are_listed() -> None:
    r = rules(
        "Sitemap: https://www.example.com/sitemap.xml\n"
        "User-agent: *\nDisallow: /x\n"
        "Sitemap: https://www.example.com/news-sitemap.xml\n"
    )
    assert r.sitemaps() == [
        "https://www.example.com/sitemap.xml",
        "https://www.example.com/news-sitemap.xml",
    ]


def test_no_sitemaps() -> None:
    assert rules("User-agent: *\nDisallow: /x\n").sitemaps() == []


def test_crawl_delay_for_our_token() -> None:
    r = rules("User-agent: *\nCrawl-delay: 10\n\nUser-agent: webmd\nCrawl-delay: 2.5\n")
    assert r.crawl_delay() == 2.5
    assert isinstance(r.crawl_delay(), float)


def test_crawl_delay_from_star_group_and_absent() -> None:
    assert rules("User-agent: *\nCrawl-delay: 4\n").crawl_delay() == 4.0
    assert rules("User-agent: *\nDisallow: /x\n").crawl_delay() is None
    assert rules("User-agent: otherbot\nCrawl-delay: 9\n").crawl_delay() is None


# --------------------------------------------------------------------------- #
# Size limit (RFC 9309 §2.5)
# --------------------------------------------------------------------------- #


def test_600_kib_file_parses_only_first_512_kib() -> None:
    head = b"User-agent: *\nDisallow: /early\n"
    filler_line = b"# " + b"x" * 60 + b"\n"
    filler = filler_line * (MAX_ROBOTS_BYTES // len(filler_line) + 1)
    tail = b"Disallow: /late\n"
    body = head + filler + tail
    body += b"# pad\n" * ((600 * 1024 - len(body)) // 6 + 1)
    assert len(body) >= 600 * 1024
    assert body.index(tail) >= MAX_ROBOTS_BYTES

    r = RobotsRules.from_response(200, body)
    assert r.policy == "parsed"
    assert not r.allowed(f"{SITE}/early")
    assert r.allowed(f"{SITE}/late")  # beyond the limit: never read


def test_cut_through_a_multibyte_character_does_not_fail() -> None:
    head = b"User-agent: *\nDisallow: /early\n# "
    body = head + "é".encode() * MAX_ROBOTS_BYTES  # the cut lands inside a character
    assert len(body[:MAX_ROBOTS_BYTES]) == MAX_ROBOTS_BYTES
    r = RobotsRules.from_response(200, body)
    assert not r.allowed(f"{SITE}/early")


def test_max_robots_bytes_is_at_least_rfc_minimum() -> None:
    assert MAX_ROBOTS_BYTES >= 500 * 1024


@given(st.binary(max_size=2000), st.integers(min_value=100, max_value=599))
def test_any_response_gives_rules_without_raising(body: bytes, status: int) -> None:
    r = RobotsRules.from_response(status, body)
    assert r.policy in {"parsed", "allow-all", "disallow-all"}
    assert isinstance(r.allowed(f"{SITE}/some/page"), bool)
    assert isinstance(r.sitemaps(), list)
