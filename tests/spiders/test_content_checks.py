"""Opt-outs, robots directives, interstitials, canonical duplicates and traps in a crawl."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer
from webmd_spider.urls import parse_start_input

from ..crawling import by_type, crawl, summary_of

WORDS = " ".join(f"w{i}" for i in range(40))
Serve = Callable[[Path], SiteServer]


def html(body: str, head: str = "") -> str:
    return f"<html><head>{head}</head><body><p>{WORDS}</p>{body}</body></html>"


@deferred_f_from_coro_f
async def test_directives_interstitials_and_canonicals(serve_site: Serve, tmp_path: Path) -> None:
    root = tmp_path / "s"
    root.mkdir()
    linked = ("noai.html", "header-noai.html", "stop.html", "noindex.html", "challenge.html")
    linked += ("a.html", "a-copy.html")
    index_links = "".join(f'<a href="/{p}">{p}</a>' for p in linked)
    index_links += '<a href="/secret.html" rel="nofollow">s</a>'
    challenge = (
        "<html><head><title>Just a moment...</title></head>"
        "<body>Checking your browser before accessing the site.</body></html>"
    )
    canonical = '<link rel="canonical" href="/a.html">'
    pages = {
        "index.html": html(index_links),
        "noai.html": html("", '<meta name="robots" content="noai, noimageai">'),
        "header-noai.html": html(""),
        "stop.html": html(
            '<a href="/behind-nofollow.html">b</a>', '<meta name="robots" content="nofollow">'
        ),
        "behind-nofollow.html": html(""),
        "secret.html": html(""),
        "noindex.html": html("", '<meta name="robots" content="noindex">'),
        "challenge.html": challenge,
        "a.html": html("", canonical),
        "a-copy.html": html("", canonical),
    }
    for name, text in pages.items():
        # each page its own content: identical pages are content duplicates
        (root / name).write_text(text.replace("<body>", f"<body><h1>{name}</h1>", 1))
    routes = {
        "/header-noai.html": {"file": "header-noai.html", "headers": {"X-Robots-Tag": "noai"}}
    }
    (root / "_routes.json").write_text(json.dumps(routes))
    server = serve_site(root)
    rows = await crawl(tmp_path, start=server.base_url + "/", max_concurrency="1")
    errors = {
        r["url"].removeprefix(server.base_url): r["error_type"] for r in by_type(rows, "diagnostic")
    }
    assert errors == {
        "/noai.html": "opted-out",
        "/header-noai.html": "opted-out",
        "/challenge.html": "blocked",
    }
    pages_by_path = {r["final_url"].removeprefix(server.base_url): r for r in by_type(rows, "page")}
    assert pages_by_path["/noindex.html"]["noindex"] is True
    assert pages_by_path["/"]["noindex"] is False
    assert "/a.html" in pages_by_path and "/a-copy.html" not in pages_by_path
    assert server.hits("/secret.html") == 0, "rel=nofollow links are not followed"
    assert server.hits("/behind-nofollow.html") == 0, "meta nofollow pages' links are not followed"
    rejected = [r["reason"] for r in summary_of(tmp_path)["rejected"]]
    assert any(r.startswith("duplicate:canonical") for r in rejected)


@deferred_f_from_coro_f
async def test_traps_are_refused_and_counted(serve_site: Serve, tmp_path: Path) -> None:
    root = tmp_path / "s"
    root.mkdir()
    months = "".join(f'<a href="/cal?month={m}">{m}</a>' for m in range(120))
    loops = '<a href="/a/b/a/b/a/b/page.html">loop</a><a href="/x?jsessionid=123">s</a>'
    (root / "index.html").write_text(html(months + loops))
    routes = {f"/cal?month={m}": {"body": html(f"month {m}")} for m in range(120)}
    (root / "_routes.json").write_text(json.dumps(routes))
    server = serve_site(root)
    # the per-path cap is max(50, 2 x max_pages) = 100 query variants
    rows = await crawl(tmp_path, start=server.base_url + "/", max_pages="50")
    assert len(by_type(rows, "page")) == 50
    counts = summary_of(tmp_path)["rejected_counts"]
    assert counts["trap"] == 20 + 2
    assert server.hits("/a/b/a/b/a/b/page.html") == 0


def test_bare_ip_and_other_unusable_inputs() -> None:
    for raw in (
        "10.0.0.1",
        "0x7f000001",
        "someone@example.com",
        "ftp://x.example/",
    ):
        assert parse_start_input(raw).kind == "invalid", raw
    assert parse_start_input("http://127.0.0.1:8080/").kind == "root"
    # with a port an address names a service: probed https then http (issue 31), the
    # SSRF guard still judging the address
    assert parse_start_input("127.0.0.1:8080").kind == "domain"
    assert "http://10.0.0.1/" in (parse_start_input("10.0.0.1").error or "")


@deferred_f_from_coro_f
async def test_review_cases_canonical_home_agent_scoped_headers_and_second_meta(
    serve_site: Serve, tmp_path: Path
) -> None:
    root = tmp_path / "s"
    root.mkdir()
    home_canonical = '<link rel="canonical" href="/">'
    pages = {
        "index.html": html('<a href="/p0.html">p0</a><a href="/scoped.html">s</a>'
                           '<a href="/second-meta.html">m</a>', home_canonical),
        "p0.html": html('<a href="/q0.html">q0</a>', home_canonical),  # canonical = home
        "q0.html": html(""),
        "scoped.html": html(""),
        "second-meta.html": html("", '<meta name="robots" content="index, follow">'
                                     '<meta name="robots" content="noai">'),
    }  # fmt: skip
    for name, text in pages.items():
        # each page its own content: identical pages are content duplicates
        (root / name).write_text(text.replace("<body>", f"<body><h1>{name}</h1>", 1))
    routes = {
        "/scoped.html": {"file": "scoped.html", "headers": {"X-Robots-Tag": "otherbot: noai"}}
    }
    (root / "_routes.json").write_text(json.dumps(routes))
    server = serve_site(root)
    rows = await crawl(tmp_path, start=server.base_url + "/")
    got = {r["final_url"].removeprefix(server.base_url) for r in by_type(rows, "page")}
    assert "/q0.html" in got, "links behind a canonical duplicate are still followed"
    assert "/p0.html" not in got and "/scoped.html" in got
    errors = {
        r["url"].removeprefix(server.base_url): r["error_type"] for r in by_type(rows, "diagnostic")
    }
    assert errors == {"/second-meta.html": "opted-out"}


@deferred_f_from_coro_f
async def test_a_typed_url_redirecting_to_another_website_is_a_blocked_row(
    serve_site: Serve, tmp_path: Path
) -> None:
    other_root = tmp_path / "other"
    other_root.mkdir()
    (other_root / "robots.txt").write_text("User-agent: *\nDisallow: /private\n")
    (other_root / "private.html").write_text(html(""))
    other = serve_site(other_root)
    root = tmp_path / "s"
    root.mkdir()
    (root / "_routes.json").write_text(
        json.dumps({"/go": {"status": 302, "location": other.base_url + "/private.html"}})
    )
    server = serve_site(root)
    rows = await crawl(tmp_path, start=server.base_url + "/go")
    (diag,) = by_type(rows, "diagnostic")
    assert diag["error_type"] == "blocked" and "another website" in diag["error"]
    assert other.hits("/private.html") == 0
