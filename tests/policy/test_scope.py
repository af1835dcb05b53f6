"""The scope rule of start URLs (``policy.scope``): which URLs each start lets in."""

from __future__ import annotations

import pytest

from webmd_spider.policy.scope import (
    DIRECTORY,
    PAGE,
    SITE,
    StartScopes,
    path_of,
    start_mode,
)

BASE = "https://example.com"


@pytest.mark.parametrize(
    ("url", "option", "mode"),
    [
        (f"{BASE}/", "auto", SITE),
        (f"{BASE}", "auto", SITE),
        (f"{BASE}/?q=1", "auto", SITE),
        (f"{BASE}/guide/", "auto", DIRECTORY),
        (f"{BASE}/guide/a.html", "auto", PAGE),
        (f"{BASE}/guide", "auto", PAGE),
        # a directory's index file names the directory
        (f"{BASE}/index.html", "auto", SITE),
        (f"{BASE}/guide/index.html", "auto", DIRECTORY),
        (f"{BASE}/guide/Default.aspx", "auto", DIRECTORY),
        (f"{BASE}/guide/index.html", "page", PAGE),
        (f"{BASE}/guide/indexes.html", "auto", PAGE),
        (f"{BASE}/guide/a.html", "site", SITE),
        (f"{BASE}/guide/a.html", "directory", DIRECTORY),
        (f"{BASE}/guide/", "page", PAGE),
    ],
)
def test_start_mode(url: str, option: str, mode: str) -> None:
    assert start_mode(url, option) == mode


@pytest.mark.parametrize(
    ("url", "path"),
    [
        (f"{BASE}", "/"),
        (f"{BASE}/a/b.html?x=/y#z/w", "/a/b.html"),
        (f"{BASE}?q=1", "/"),
        (f"{BASE}#/frag", "/"),
    ],
)
def test_path_of(url: str, path: str) -> None:
    assert path_of(url) == path


def test_a_directory_start_lets_in_its_directory_only() -> None:
    scopes = StartScopes.build("auto", [f"{BASE}/guide/"])
    assert scopes.restricted("example.com")
    for url in (f"{BASE}/guide/", f"{BASE}/guide", f"{BASE}/guide/x/y.html?p=1"):
        assert scopes.admits("example.com", url, linked_from_start=False), url
    for url in (f"{BASE}/", f"{BASE}/blog/a.html", f"{BASE}/guidebook/", f"{BASE}/guide.html"):
        assert not scopes.admits("example.com", url, linked_from_start=True), url
    # another host of the crawl (follow_subdomains) has no start: not restricted
    assert not scopes.restricted("docs.example.com")
    assert scopes.admits("docs.example.com", "https://docs.example.com/x", False)


def test_a_page_start_lets_in_what_it_links_in_its_directory() -> None:
    scopes = StartScopes.build("auto", [f"{BASE}/guide/a.html"])
    assert scopes.admits("example.com", f"{BASE}/guide/b.html", linked_from_start=True)
    # one hop: the same URL linked from a page that is not a start is not let in
    assert not scopes.admits("example.com", f"{BASE}/guide/b.html", linked_from_start=False)
    assert not scopes.admits("example.com", f"{BASE}/blog/b.html", linked_from_start=True)


def test_site_scope_and_a_root_start_are_not_restricted() -> None:
    assert not StartScopes.build("site", [f"{BASE}/guide/"]).restricted("example.com")
    assert not StartScopes.build("auto", [f"{BASE}/"]).restricted("example.com")
    # the directory of the root is the whole website
    assert not StartScopes.build("directory", [f"{BASE}/"]).restricted("example.com")
    # www. and the bare domain are one website
    both = StartScopes.build("auto", [f"{BASE}/guide/", "https://www.example.com/"])
    assert not both.restricted("example.com")


def test_several_starts_widen_the_scope() -> None:
    scopes = StartScopes.build("auto", [f"{BASE}/guide/", f"{BASE}/blog/post.html"])
    assert scopes.admits("example.com", f"{BASE}/guide/deep/x.html", False)
    assert scopes.admits("example.com", f"{BASE}/blog/other.html", True)
    assert not scopes.admits("example.com", f"{BASE}/blog/other.html", False)
    assert not scopes.admits("example.com", f"{BASE}/about.html", True)


def test_a_start_that_redirects_moves_its_scope() -> None:
    # /docs is a page (its directory is the root, one hop); /docs/ is a directory
    scopes = StartScopes.build("auto", [f"{BASE}/docs"])
    assert scopes.admits("example.com", f"{BASE}/blog/x.html", True)
    assert scopes.moved(f"{BASE}/docs", f"{BASE}/docs/")
    assert scopes.admits("example.com", f"{BASE}/docs/a/b.html", False)
    assert not scopes.admits("example.com", f"{BASE}/blog/x.html", True)
    # /library/ -> /3/library/: the directory moves with it
    scopes = StartScopes.build("auto", [f"{BASE}/library/"])
    assert scopes.moved(f"{BASE}/library/", f"{BASE}/3/library/")
    assert scopes.admits("example.com", f"{BASE}/3/library/os.html", False)
    assert not scopes.admits("example.com", f"{BASE}/library/os.html", False)
    # an explicit mode is kept
    scopes = StartScopes.build("page", [f"{BASE}/a/x.html"])
    assert scopes.moved(f"{BASE}/a/x.html", f"{BASE}/b/")
    assert scopes.admits("example.com", f"{BASE}/b/y.html", True)
    assert not scopes.admits("example.com", f"{BASE}/b/y.html", False)
    # a start typed without a scheme, answered over http after the https probe failed,
    # and then redirected: its scope still moves
    scopes = StartScopes.build("auto", ["https://example.com/library"])
    assert scopes.moved("http://example.com/library", "http://example.com/library/")
    assert not scopes.admits("example.com", "http://example.com/blog/x.html", True)
    # a redirect to the home page does not widen a path's scope
    scopes = StartScopes.build("auto", [f"{BASE}/old/"])
    assert not scopes.moved(f"{BASE}/old/", f"{BASE}/")
    assert scopes.restricted("example.com")


def test_what_a_redirect_does_not_move() -> None:
    scopes = StartScopes.build("auto", [f"{BASE}/guide/"])
    assert not scopes.moved(f"{BASE}/guide/", f"{BASE}/guide/")  # no move
    assert not scopes.moved(f"{BASE}/other/", f"{BASE}/x/")  # not a start
    assert not scopes.moved(f"{BASE}/guide/", "https://elsewhere.org/guide/")  # off-site
    root = StartScopes.build("auto", [f"{BASE}/"])
    assert not root.moved(f"{BASE}/", f"{BASE}/en/")  # the root keeps the whole site
    assert not root.restricted("example.com")
