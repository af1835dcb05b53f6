"""Tests for webmd_spider.policy.robots: RFC 9309 status handling, groups, matching, limits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webmd_spider.policy.robots import DEFAULT_TOKEN, MAX_ROBOTS_BYTES, RobotsRules

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


@pytest.mark.parametrize("status", [404, 403, 401, 410, 400, 499])
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
    r = rules(
        "User-agent: *\nCrawl-delay: 10\nDisallow: /x\n\nUser-agent: webmd\nCrawl-delay: 2.5\n"
    )
    assert r.crawl_delay() == 2.5
    assert isinstance(r.crawl_delay(), float)


def test_crawl_delay_does_not_end_a_group() -> None:
    # RFC 9309 §2.2.1: only a rule ends the run of user-agent lines, so `*` and webmd share
    # one group here and both delays are theirs; the longer (politer) one is used.
    # (This test used to expect 2.5: Protego ends a group at any non-user-agent line.)
    r = rules("User-agent: *\nCrawl-delay: 10\n\nUser-agent: webmd\nCrawl-delay: 2.5\n")
    assert r.crawl_delay() == 10.0


def test_crawl_delay_of_merged_groups_and_bad_values() -> None:
    text = "User-agent: webmd\nCrawl-delay: 1\nDisallow: /a\n\nUser-agent: webmd\nCrawl-delay: 3\n"
    assert rules(text).crawl_delay() == 3.0
    assert rules("User-agent: *\nCrawl-delay: soon\n").crawl_delay() is None
    assert rules("User-agent: *\nCrawl-delay: -1\n").crawl_delay() is None
    assert rules("User-agent: *\nCrawl-delay: nan\n").crawl_delay() is None
    assert rules("Crawl-delay: 5\nUser-agent: *\nDisallow: /x\n").crawl_delay() is None
    # Our group has none: the `*` group's delay does not leak into it.
    text = "User-agent: *\nCrawl-delay: 5\nDisallow:\n\nUser-agent: webmd\nDisallow: /x\n"
    assert rules(text).crawl_delay() is None


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


# --------------------------------------------------------------------------- #
# RFC 9309 examples and the points where Protego 0.7 deviates from it
# --------------------------------------------------------------------------- #


def test_parse_classmethod() -> None:
    r = RobotsRules.parse("User-agent: *\nDisallow: /x\n")
    assert (r.policy, r.status, r.token) == ("parsed", 200, DEFAULT_TOKEN)
    assert not r.allowed(f"{SITE}/x")
    other = RobotsRules.parse("User-agent: foobot\nDisallow: /x\n", token="FooBot")
    assert other.token == "FooBot"
    assert not other.allowed(f"{SITE}/x")


RFC_2_1 = """\
User-Agent : foobot
Disallow : /example/page.html
Disallow : /example/disallowed.gif

User-Agent : barbot
User-Agent : bazbot
Allow : /example/page.html
Disallow : /example/disallowed.gif

User-Agent: quxbot

EOF
"""


@pytest.mark.parametrize(
    ("token", "path", "allowed"),
    [
        ("foobot", "/example/page.html", False),
        ("foobot", "/example/disallowed.gif", False),
        ("foobot", "/example/other", True),
        ("barbot", "/example/page.html", True),
        ("barbot", "/example/disallowed.gif", False),
        ("bazbot", "/example/page.html", True),
        ("bazbot", "/example/disallowed.gif", False),
        ("quxbot", "/example/disallowed.gif", True),
        ("webmd", "/example/disallowed.gif", True),
    ],
)
def test_rfc_2_1_group_example(token: str, path: str, allowed: bool) -> None:
    assert RobotsRules.parse(RFC_2_1, token).allowed(SITE + path) is allowed


def test_rfc_2_2_1_groups_for_the_same_agent_are_combined() -> None:
    text = (
        "user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\n"
        "user-agent: ExampleBot\ndisallow: /baz\n"
    )
    r = RobotsRules.parse(text, "examplebot")
    for path in ("/foo", "/bar", "/baz/x"):
        assert not r.allowed(SITE + path)
    assert r.allowed(f"{SITE}/qux")


def test_merged_groups_with_star_ignored_when_we_are_named() -> None:
    text = (
        "User-agent: *\nDisallow: /star\n\n"
        "User-agent: webmd\nDisallow: /a\n\n"
        "User-agent: other\nDisallow: /o\n\n"
        "User-agent: WEBMD/2.0\nAllow: /a/ok\nDisallow: /b\n"
    )
    r = RobotsRules.parse(text)
    assert not r.allowed(f"{SITE}/a/x")
    assert r.allowed(f"{SITE}/a/ok/page")
    assert not r.allowed(f"{SITE}/b")
    assert r.allowed(f"{SITE}/star")  # `*` applies only when no group names us
    assert r.allowed(f"{SITE}/o")


def test_unknown_line_between_user_agent_lines_does_not_end_the_group() -> None:
    # One group for both agents. Protego 0.7 ends the group at "Foo: bar": otherbot
    # then gets no rules at all and may fetch /x.
    text = "User-agent: otherbot\nFoo: bar\nUser-agent: webmd\nDisallow: /x\n"
    assert not RobotsRules.parse(text, "otherbot").allowed(f"{SITE}/x")
    assert not RobotsRules.parse(text).allowed(f"{SITE}/x")
    text = "User-agent: webmd\nFoo: bar\nUser-agent: otherbot\nDisallow: /x\n"
    assert not RobotsRules.parse(text).allowed(f"{SITE}/x")


@pytest.mark.parametrize(
    "between", ["Sitemap: https://www.example.com/s.xml", "Crawl-delay: 1", "", "# note", "junk"]
)
def test_other_records_do_not_end_the_group(between: str) -> None:
    text = f"User-agent: otherbot\n{between}\nUser-agent: webmd\nDisallow: /x\n"
    assert not RobotsRules.parse(text).allowed(f"{SITE}/x")
    assert not RobotsRules.parse(text, "otherbot").allowed(f"{SITE}/x")


def test_user_agent_line_after_a_rule_starts_a_new_group() -> None:
    text = "User-agent: otherbot\nDisallow: /o\nUser-agent: webmd\nDisallow: /x\n"
    r = RobotsRules.parse(text)
    assert r.allowed(f"{SITE}/o")
    assert not r.allowed(f"{SITE}/x")
    # An empty "Disallow:" is no rule, but it still ends the user-agent lines.
    text = "User-agent: otherbot\nDisallow:\nUser-agent: webmd\nDisallow: /x\n"
    assert RobotsRules.parse(text, "otherbot").allowed(f"{SITE}/x")


def test_prefix_of_our_token_does_not_match() -> None:
    # Protego 0.7 matches "web" against "webmd" (the line's value is found in our token).
    r = RobotsRules.parse("User-agent: web\nDisallow: /\n")
    assert r.allowed(f"{SITE}/page")
    r = RobotsRules.parse("User-agent: web\nDisallow: /\n\nUser-agent: *\nDisallow: /x\n")
    assert r.allowed(f"{SITE}/page")
    assert not r.allowed(f"{SITE}/x")


@pytest.mark.parametrize(
    "line",
    ["webmdx", "xwebmd", "web-md", "webmd_bot", "Mozilla/5.0 (compatible; webmd/1.0)", "*webmd"],
)
def test_user_agent_values_that_are_not_our_token(line: str) -> None:
    r = RobotsRules.parse(f"User-agent: {line}\nDisallow: /\n")
    assert r.allowed(f"{SITE}/page")


@pytest.mark.parametrize(
    "line", ["webmd", "WebMD", "WEBMD", "webmd/1.0", "WebMD/2.1 (+https://x.example)", "webmd bot"]
)
def test_user_agent_values_that_name_our_token(line: str) -> None:
    r = RobotsRules.parse(f"User-agent: *\nAllow: /\n\nUser-agent: {line}\nDisallow: /\n")
    assert not r.allowed(f"{SITE}/page")


def test_our_token_is_matched_case_insensitively_and_by_product_token() -> None:
    text = "User-agent: webmd\nDisallow: /x\n"
    for token in ("webmd", "WEBMD", "WebMd", "webmd/3.0"):
        assert not RobotsRules.parse(text, token).allowed(f"{SITE}/x")


def test_star_followed_by_text_is_not_the_global_agent() -> None:
    assert RobotsRules.parse("User-agent: *bot\nDisallow: /\n").allowed(f"{SITE}/p")
    assert not RobotsRules.parse("User-agent: * # all\nDisallow: /\n").allowed(f"{SITE}/p")


def test_empty_group_naming_us_allows_everything() -> None:
    # §2.2.2: a matching group without rules allows every URL; `*` is not consulted.
    r = RobotsRules.parse("User-agent: *\nDisallow: /\n\nUser-agent: webmd\n")
    assert r.allowed(f"{SITE}/page")


def test_rules_before_any_user_agent_apply_to_nobody() -> None:
    r = RobotsRules.parse("Disallow: /x\nUser-agent: *\nDisallow: /y\n")
    assert r.allowed(f"{SITE}/x")
    assert not r.allowed(f"{SITE}/y")


RFC_5_1 = """\
User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
"""


@pytest.mark.parametrize(
    ("token", "path", "allowed"),
    [
        ("webmd", "/example/page.html", False),
        ("webmd", "/image.gif", False),
        ("webmd", "/publications/paper.html", True),
        ("webmd", "/publications/chart.gif", True),  # /publications/ is longer than *.gif$
        ("webmd", "/other/page.html", True),
        ("foobot", "/example/page.html", True),
        ("foobot", "/example/allowed.gif", True),
        ("foobot", "/example/other.html", False),
        ("foobot", "/", False),
        ("barbot", "/example/page.html", False),
        ("barbot", "/example/other.html", True),
        ("bazbot", "/example/page.html", False),
        ("bazbot", "/image.gif", True),
        ("quxbot", "/example/page.html", True),
        ("quxbot", "/image.gif", True),
    ],
)
def test_rfc_5_1_simple_example(token: str, path: str, allowed: bool) -> None:
    assert RobotsRules.parse(RFC_5_1, token).allowed(SITE + path) is allowed


@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        ("/example/page/", True),
        ("/example/page/other.html", True),
        ("/example/page/disallowed.gif", False),
        ("/example/page/disallowed.gif.bak", False),
        ("/example/", True),
    ],
)
def test_rfc_5_2_longest_match_example(path: str, allowed: bool) -> None:
    text = "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n"
    assert RobotsRules.parse(text, "foobot").allowed(SITE + path) is allowed


def test_allow_wins_a_tie() -> None:
    r = RobotsRules.parse("User-agent: *\nDisallow: /page\nAllow: /page\n")
    assert r.allowed(f"{SITE}/page")
    r = RobotsRules.parse("User-agent: *\nDisallow: /*.html\nAllow: /a/b.h*\n")  # both 7 octets
    assert r.allowed(f"{SITE}/a/b.html")
    assert not r.allowed(f"{SITE}/a/c.html")


@pytest.mark.parametrize(
    ("pattern", "matches", "does_not_match"),
    [
        (
            "/fish",
            ["/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fish.php?id=anything"],
            ["/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"],
        ),
        ("/fish*", ["/fish", "/fish.html", "/fishheads/yummy.html"], ["/Fish.asp", "/catfish"]),
        (
            "/fish/",
            ["/fish/", "/fish/?id=anything", "/fish/salmon.htm"],
            ["/fish", "/fish.html", "/animals/fish/", "/Fish/Salmon.asp"],
        ),
        (
            "/*.php",
            ["/index.php", "/folder/filename.php?parameters", "/folder/any.php.file.html"],
            ["/", "/windows.PHP"],
        ),
        (
            "/*.php$",
            ["/filename.php", "/folder/filename.php"],
            ["/filename.php?parameters", "/filename.php/", "/filename.php5", "/windows.PHP"],
        ),
        ("/fish*.php", ["/fish.php", "/fishheads/catfish.php?parameters"], ["/Fish.PHP"]),
        ("/this/path/exactly$", ["/this/path/exactly"], ["/this/path/exactly/", "/this/path"]),
        ("/this/*/path", ["/this/a/path", "/this/a/b/path/c"], ["/this/path", "/that/a/path"]),
        ("/a**b", ["/ab", "/a/x/b"], ["/a"]),
        ("*", ["/", "/anything"], []),
        ("/*/*/*/*/*/*/*/*/*/*/*/z$", ["/a/b/c/d/e/f/g/h/i/j/k/z"], ["/" + "a/" * 2000 + "y"]),
    ],
)
def test_rfc_2_2_3_special_characters(
    pattern: str, matches: list[str], does_not_match: list[str]
) -> None:
    r = RobotsRules.parse(f"User-agent: *\nDisallow: {pattern}\n")
    for path in matches:
        assert not r.allowed(SITE + path), path
    for path in does_not_match:
        assert r.allowed(SITE + path), path


def test_percent_encoded_special_characters_match_literally() -> None:
    # §2.2.3: "%2A" and "%24" in a pattern stand for a literal "*" and "$".
    r = RobotsRules.parse(
        "User-agent: *\nDisallow: /path/file-with-a-%2A.html\nDisallow: /path/foo-%24\n"
    )
    assert not r.allowed(f"{SITE}/path/file-with-a-*.html")
    assert not r.allowed(f"{SITE}/path/file-with-a-%2a.html")
    assert r.allowed(f"{SITE}/path/file-with-a-b.html")
    assert not r.allowed(f"{SITE}/path/foo-$")
    assert not r.allowed(f"{SITE}/path/foo-$/more")
    # A "$" that does not end the pattern is an ordinary character.
    assert not RobotsRules.parse("User-agent: *\nDisallow: /a$b\n").allowed(f"{SITE}/a$bc")


@pytest.mark.parametrize(
    ("pattern", "url_path"),
    [
        # §2.2.2 table of percent-encoded URI components.
        ("/foo/bar?baz=quz", "/foo/bar?baz=quz"),
        ("/foo/bar?baz=https://foo.bar", "/foo/bar?baz=https%3A%2F%2Ffoo.bar"),
        ("/foo/bar?baz=https://foo.bar", "/foo/bar?baz=https://foo.bar"),
        ("/foo/bar/ツ", "/foo/bar/%E3%83%84"),
        ("/foo/bar/ツ", "/foo/bar/ツ"),
        ("/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84"),
        ("/foo/bar/%E3%83%84", "/foo/bar/%e3%83%84"),
        ("/foo/bar/%E3%83%84", "/foo/bar/ツ"),
        ("/foo/bar/%62%61%7A", "/foo/bar/baz"),
        ("/foo/bar/baz", "/foo/bar/%62%61%7A"),
        ("/a%2Fb", "/a%2fb"),
        ("/with space", "/with%20space"),
        ("/café/*.html$", "/caf%C3%A9/menu.html"),
    ],
)
def test_percent_encoding_is_normalised(pattern: str, url_path: str) -> None:
    r = RobotsRules.parse(f"User-agent: *\nDisallow: {pattern}\n")
    assert not r.allowed(SITE + url_path)


@pytest.mark.parametrize(
    ("pattern", "url_path"),
    [
        # An escaped "/" or "?" is not a path separator or a query: different resources.
        ("/a/b", "/a%2Fb"),
        ("/a%2Fb", "/a/b"),
        ("/a?b", "/a%3Fb"),
        # "&" and "=" keep their meaning in a query: escaped, they are data.
        ("/s?a=1&b=2", "/s?a=1%26b=2"),
        ("/foo/bar/ツ", "/foo/bar/%E3%83%85"),
    ],
)
def test_reserved_escapes_are_not_decoded(pattern: str, url_path: str) -> None:
    r = RobotsRules.parse(f"User-agent: *\nDisallow: {pattern}\n")
    assert r.allowed(SITE + url_path)


def test_url_forms() -> None:
    r = RobotsRules.parse("User-agent: *\nDisallow: /$\nDisallow: /p?\n")
    assert not r.allowed(SITE)  # no path is "/"
    assert not r.allowed(f"{SITE}/")
    assert not r.allowed(f"{SITE}/#frag")  # the fragment is never matched
    assert not r.allowed(f"{SITE}/p?")  # an empty query is still a query
    assert r.allowed(f"{SITE}/p")
    assert r.allowed(f"{SITE}/p#?")
    assert not r.allowed("//www.example.com/")
    assert not r.allowed("/")


def test_robots_txt_is_always_allowed() -> None:
    r = RobotsRules.parse("User-agent: *\nDisallow: /\n")
    assert r.allowed(f"{SITE}/robots.txt")
    assert r.allowed("http://other.example:8080/robots.txt")
    assert not r.allowed(f"{SITE}/robots.txt.bak")
    assert not r.allowed(f"{SITE}/dir/robots.txt")


def test_line_endings_comments_and_syntax() -> None:
    for end in ("\n", "\r\n", "\r"):
        text = end.join(
            [
                "# header comment",
                "User-agent: otherbot # trailing comment",
                "Disallow /no-colon-is-ignored",
                "   user-AGENT   :   webmd   ",
                "DISALLOW: /x # the rest is a comment",
                "Disallow: /y#z",
                "Allow:",
                "",
            ]
        )
        r = RobotsRules.parse(text)
        assert not r.allowed(f"{SITE}/x"), end
        assert not r.allowed(f"{SITE}/y"), end
        assert not r.allowed(f"{SITE}/yz"), end  # "#z" was a comment: the rule is "/y"
        assert r.allowed(f"{SITE}/no-colon-is-ignored"), end
        assert r.allowed(f"{SITE}/z"), end
        assert not RobotsRules.parse(text, "otherbot").allowed(f"{SITE}/x"), end


def test_bom_in_text_and_frequent_typos() -> None:
    r = RobotsRules.parse("\ufeffUser-agent: *\nDisallow: /x\n")
    assert not r.allowed(f"{SITE}/x")
    r = RobotsRules.parse("Useragent: *\nDisalow: /x\n")
    assert not r.allowed(f"{SITE}/x")


def test_sitemaps_from_any_group_and_outside_groups() -> None:
    r = RobotsRules.parse(
        "Sitemap: https://a.example/1.xml\n"
        "User-agent: otherbot\nSitemap: https://a.example/2.xml\nDisallow: /\n"
        "User-agent: webmd\nSitemap:\nSITEMAP:https://a.example/3.xml\n"
    )
    assert r.sitemaps() == [
        "https://a.example/1.xml",
        "https://a.example/2.xml",
        "https://a.example/3.xml",
    ]


def test_600_kib_of_rules_are_read_up_to_the_limit() -> None:
    line = b"Disallow: /%05d\n"
    size = len(line % 0)  # 17 bytes
    head = b"User-agent: *\n"
    # Pad the head so that the limit cuts a line right after "Disallow: /".
    pad = (MAX_ROBOTS_BYTES - len(head) - 11) % size or size
    head += b"#" * (pad - 1) + b"\n"
    assert (MAX_ROBOTS_BYTES - len(head)) % size == 11
    body = head + b"".join(line % i for i in range(600 * 1024 // size + 1))
    assert len(body) > 600 * 1024
    read = (MAX_ROBOTS_BYTES - len(head)) // size  # whole lines within the limit
    assert read * size >= 500 * 1024 - len(head)

    r = RobotsRules.from_response(200, body)
    assert not r.allowed(f"{SITE}/00000")
    assert not r.allowed(f"{SITE}/{read - 1:05d}")
    assert r.allowed(f"{SITE}/{read + 1:05d}")  # beyond the limit: never read
    # The line cut in two ("Disallow: /") is dropped rather than disallowing everything.
    assert r.allowed(f"{SITE}/{read:05d}")
    assert r.allowed(f"{SITE}/x")


@given(st.text(max_size=3000), st.text(max_size=200))
def test_parse_never_raises_on_arbitrary_text(text: str, path: str) -> None:
    r = RobotsRules.parse(text)
    assert isinstance(r.allowed(f"{SITE}/{path}"), bool)
    assert isinstance(r.allowed(path), bool)
    assert isinstance(r.sitemaps(), list)
    delay = r.crawl_delay()
    assert delay is None or delay >= 0


robots_lines = st.lists(
    st.tuples(
        st.sampled_from(["User-agent", "Allow", "Disallow", "Sitemap", "Crawl-delay", "X"]),
        st.text(alphabet="/*$?%#:abcAB09-ツ é", max_size=12),
    ),
    max_size=30,
)


@given(robots_lines, st.text(alphabet="/*$?%#abc09ツ& ", max_size=30))
def test_structured_robots_never_raise(lines: list[tuple[str, str]], path: str) -> None:
    text = "\n".join(f"{key}: {value}" for key, value in lines)
    assert isinstance(RobotsRules.parse(text).allowed(f"{SITE}/{path}"), bool)
    assert isinstance(RobotsRules.parse(text, "*").allowed(f"{SITE}/{path}"), bool)


def test_429_is_a_refusal_not_a_missing_file() -> None:
    # Too Many Requests on robots.txt: disallow everything for now (as for 5xx)
    rules = RobotsRules.from_response(429, b"")
    assert rules.policy == "disallow-all" and not rules.allowed("https://example.com/")
