"""Tests of the static-site server (webmd_spider.demo.server), the demo site and the
fixture sites' ``_expected.json`` files, using only urllib/http.client."""

from __future__ import annotations

import gzip
import http.client
import json
import re
import time
import types
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from collections import deque
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import pytest

from webmd_spider.demo import server as server_module
from webmd_spider.demo.server import SiteServer, demo_site_path, main

SITES_DIR = Path(__file__).resolve().parents[1] / "sites"
SM_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def fetch(url: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body of ``url``, without following redirects."""
    request = urllib.request.Request(url, method=method)
    try:
        with _OPENER.open(request, timeout=10) as response:
            return response.status, dict(response.headers.items()), response.read()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, dict(err.headers.items()), err.read()


def raw_get(server: SiteServer, path: str) -> int:
    """Status of a GET with ``path`` sent verbatim (no client-side normalisation)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.putrequest("GET", path, skip_accept_encoding=True)
        conn.endheaders()
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A small site in ``tmp_path/site`` with a secret file next to it."""
    root = tmp_path / "site"
    (root / "docs").mkdir(parents=True)
    (root / "empty-dir").mkdir()
    (tmp_path / "secret.txt").write_text("top secret")
    (root / "index.html").write_text(
        "<html><body><a href='{{origin}}/docs/'>Docs</a></body></html>"
    )
    (root / "docs" / "index.html").write_text("<html><body>Docs home</body></html>")
    (root / "docs" / "page.html").write_text("<html><body>Page</body></html>")
    (root / "robots.txt").write_text("User-agent: *\nSitemap: {{origin}}/sitemap.xml\n")
    (root / "sitemap.xml").write_text(
        "<urlset><url><loc>{{origin}}/docs/page.html</loc></url></urlset>"
    )
    (root / "report.pdf").write_bytes(b"%PDF-1.4\n{{origin}}\n%%EOF\n")
    (root / "data.json").write_text('{"origin": "{{origin}}"}')
    (root / "style.css").write_text("body{}")
    (root / "js-shell.html").write_text("<div id='root'></div>")
    routes = {
        "/old-page": {"status": 301, "location": "/docs/page.html"},
        "/temp": {"location": "{{origin}}/docs/"},
        "/gone": {"status": 410},
        "/error": {"status": 500},
        "/js-app/": {"file": "js-shell.html"},
        "/sitemap-pages.xml.gz": {"gzip_of": "sitemap.xml"},
        "/slow": {"delay": 0.3, "file": "docs/page.html"},
        "/feed": {"file": "report.pdf", "content_type": "application/pdf"},
        "/h": {"headers": {"X-Robots-Tag": "noai"}, "file": "docs/page.html"},
        "/search?q=x": {"body": "<p>results for x at {{origin}}</p>"},
        "/api": {"body": '{"ok": true}', "content_type": "application/json"},
        "/broken": {"file": "does-not-exist.html"},
    }
    (root / "_routes.json").write_text(json.dumps(routes))
    return root


# -- static files --------------------------------------------------------------


def test_serves_files_with_content_types(
    site: Path, serve_site: Callable[[Path], SiteServer]
) -> None:
    srv = serve_site(site)
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", srv.base_url)
    cases = {
        "/docs/page.html": "text/html; charset=utf-8",
        "/robots.txt": "text/plain; charset=utf-8",
        "/sitemap.xml": "application/xml",
        "/report.pdf": "application/pdf",
        "/data.json": "application/json",
        "/style.css": "text/css; charset=utf-8",
    }
    for path, ctype in cases.items():
        status, headers, body = fetch(srv.url(path))
        assert status == 200, path
        assert headers["Content-Type"] == ctype, path
        assert headers["Content-Length"] == str(len(body)), path
    assert fetch(srv.url("/docs/page.html"))[2] == (site / "docs/page.html").read_bytes()


def test_directory_serves_index_and_redirects_without_slash(
    site: Path, serve_site: Callable[[Path], SiteServer]
) -> None:
    srv = serve_site(site)
    assert fetch(srv.url("/docs/"))[2] == b"<html><body>Docs home</body></html>"
    assert b"Docs" in fetch(srv.url("/"))[2]
    status, headers, _ = fetch(srv.url("/docs?x=1"))
    assert status == 301
    assert headers["Location"] == "/docs/?x=1"
    assert fetch(srv.url("/empty-dir/"))[0] == 404


def test_missing_is_404_with_html_body(
    site: Path, serve_site: Callable[[Path], SiteServer]
) -> None:
    srv = serve_site(site)
    status, headers, body = fetch(srv.url("/nope.html"))
    assert status == 404
    assert headers["Content-Type"].startswith("text/html")
    assert b"404" in body and b"<html" in body


@pytest.mark.parametrize(
    "path",
    [
        "/../secret.txt",
        "/docs/../../secret.txt",
        "/%2e%2e/secret.txt",
        "/docs/%2E%2E/%2e%2e/secret.txt",
    ],
)
def test_never_serves_outside_root(
    site: Path, serve_site: Callable[[Path], SiteServer], path: str
) -> None:
    srv = serve_site(site)
    assert raw_get(srv, path) == 404


def test_symlink_out_of_root_refused(site: Path, serve_site: Callable[[Path], SiteServer]) -> None:
    (site / "link.txt").symlink_to(site.parent / "secret.txt")
    srv = serve_site(site)
    assert fetch(srv.url("/link.txt"))[0] == 404


def test_underscore_files_are_not_served(
    site: Path, serve_site: Callable[[Path], SiteServer]
) -> None:
    srv = serve_site(site)
    assert fetch(srv.url("/_routes.json"))[0] == 404


# -- templating and routes -----------------------------------------------------


def test_origin_templating_in_text_files_only(
    site: Path, serve_site: Callable[[Path], SiteServer]
) -> None:
    srv = serve_site(site)
    origin = srv.base_url.encode()
    assert (
        fetch(srv.url("/robots.txt"))[2] == b"User-agent: *\nSitemap: " + origin + b"/sitemap.xml\n"
    )
    assert origin + b"/docs/" in fetch(srv.url("/"))[2]
    assert b"{{origin}}" not in fetch(srv.url("/sitemap.xml"))[2]
    # binary and unlisted types are served verbatim
    assert b"{{origin}}" in fetch(srv.url("/report.pdf"))[2]
    assert b"{{origin}}" in fetch(srv.url("/data.json"))[2]


def test_redirect_routes(site: Path, serve_site: Callable[[Path], SiteServer]) -> None:
    srv = serve_site(site)
    status, headers, body = fetch(srv.url("/old-page"))
    assert (status, headers["Location"]) == (301, "/docs/page.html")
    assert body  # a small HTML body
    status, headers, _ = fetch(srv.url("/temp"))
    assert (status, headers["Location"]) == (302, srv.base_url + "/docs/")
    # urllib follows the redirect with the default opener
    with urllib.request.urlopen(srv.url("/old-page"), timeout=10) as response:
        assert response.geturl() == srv.url("/docs/page.html")
        assert response.read() == b"<html><body>Page</body></html>"


def test_status_and_file_routes(site: Path, serve_site: Callable[[Path], SiteServer]) -> None:
    srv = serve_site(site)
    assert fetch(srv.url("/gone"))[0] == 410
    assert fetch(srv.url("/error"))[0] == 500
    status, headers, body = fetch(srv.url("/js-app/"))
    assert (status, body) == (200, b"<div id='root'></div>")
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    status, headers, body = fetch(srv.url("/feed"))
    assert headers["Content-Type"] == "application/pdf"
    assert body.startswith(b"%PDF-1.4")
    status, headers, _ = fetch(srv.url("/h"))
    assert (status, headers["X-Robots-Tag"]) == (200, "noai")
    assert fetch(srv.url("/broken"))[0] == 500


def test_body_routes_and_query_matching(
    site: Path, serve_site: Callable[[Path], SiteServer]
) -> None:
    srv = serve_site(site)
    status, _, body = fetch(srv.url("/search?q=x"))
    assert (status, body) == (200, f"<p>results for x at {srv.base_url}</p>".encode())
    assert fetch(srv.url("/search?q=y"))[0] == 404
    status, headers, body = fetch(srv.url("/api?page=2"))  # falls back to the path route
    assert (status, headers["Content-Type"], body) == (200, "application/json", b'{"ok": true}')


def test_gzip_of_serves_compressed_templated_bytes(
    site: Path, serve_site: Callable[[Path], SiteServer]
) -> None:
    srv = serve_site(site)
    status, headers, body = fetch(srv.url("/sitemap-pages.xml.gz"))
    assert status == 200
    assert headers["Content-Type"] == "application/gzip"
    assert "Content-Encoding" not in headers
    expected = (site / "sitemap.xml").read_text().replace("{{origin}}", srv.base_url)
    assert gzip.decompress(body).decode() == expected


def server_pauses(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The pauses the server takes (seconds asked of ``time.sleep``), in order, each
    still slept: what a route's ``delay`` or ``drip`` does, counted rather than timed
    (issue 35: no clock in tests). The server records a pause before it answers."""
    pauses: list[float] = []
    real_sleep = time.sleep

    def sleep(seconds: float) -> None:
        pauses.append(seconds)
        real_sleep(seconds)

    clock = types.SimpleNamespace(**vars(time))
    clock.sleep = sleep
    monkeypatch.setattr(server_module, "time", clock)
    return pauses


def test_delay_route(
    site: Path, serve_site: Callable[[Path], SiteServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    srv = serve_site(site)
    pauses = server_pauses(monkeypatch)
    assert fetch(srv.url("/docs/page.html"))[0] == 200
    assert pauses == []
    assert fetch(srv.url("/slow"))[0] == 200
    assert pauses == [0.3]  # the route's delay, before the answer


def test_routes_reloaded_when_changed(site: Path, serve_site: Callable[[Path], SiteServer]) -> None:
    srv = serve_site(site)
    assert fetch(srv.url("/new"))[0] == 404
    routes = json.loads((site / "_routes.json").read_text())
    routes["/new"] = {"status": 204}
    (site / "_routes.json").write_text(json.dumps(routes, indent=1))
    assert fetch(srv.url("/new"))[0] == 204


@pytest.mark.parametrize(
    "routes",
    [
        {"/x": {"bogus": 1}},
        {"/x": {"file": "a.html", "body": "b"}},
        {"/x": {"status": 999}},
        {"x": {"status": 404}},
        {"/x": {"headers": {"A": 1}}},
        {"/x": {"delay": -1}},
        ["/x"],
    ],
)
def test_invalid_routes_rejected_at_start(tmp_path: Path, routes: Any) -> None:
    (tmp_path / "_routes.json").write_text(json.dumps(routes))
    with pytest.raises(ValueError):
        SiteServer(tmp_path).start()


def test_missing_root_rejected(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        SiteServer(tmp_path / "nope").start()


# -- request log, HEAD, methods, lifecycle -------------------------------------


def test_request_log_and_hits(site: Path, serve_site: Callable[[Path], SiteServer]) -> None:
    srv = serve_site(site)
    fetch(srv.url("/docs/page.html"))
    fetch(srv.url("/docs/page.html"))
    fetch(srv.url("/docs/page.html?a=1"))
    fetch(srv.url("/nope"))
    assert srv.hits("/docs/page.html") == 2
    assert srv.hits("/docs/page.html?a=1") == 1
    assert srv.hits("/other") == 0
    last = srv.requests[-1]
    assert (last.method, last.path, last.status) == ("GET", "/nope", 404)
    assert "User-Agent" in last.headers
    srv.clear_requests()
    assert srv.requests == []


def test_request_log_is_bounded(
    site: Path, serve_site: Callable[[Path], SiteServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_module, "MAX_REQUEST_RECORDS", 3)
    srv = serve_site(site)
    for i in range(5):
        fetch(srv.url(f"/docs/page.html?i={i}"))
    assert [r.path for r in srv.requests] == [f"/docs/page.html?i={i}" for i in (2, 3, 4)]


def test_head(site: Path, serve_site: Callable[[Path], SiteServer]) -> None:
    srv = serve_site(site)
    _, get_headers, get_body = fetch(srv.url("/docs/page.html"))
    status, headers, body = fetch(srv.url("/docs/page.html"), method="HEAD")
    assert (status, body) == (200, b"")
    assert headers["Content-Length"] == str(len(get_body))
    assert headers["Content-Type"] == get_headers["Content-Type"]
    assert fetch(srv.url("/nope"), method="HEAD")[0] == 404
    assert srv.requests[-1].method == "HEAD"


def test_other_methods_not_allowed(site: Path, serve_site: Callable[[Path], SiteServer]) -> None:
    srv = serve_site(site)
    request = urllib.request.Request(srv.url("/"), data=b"x=1", method="POST")
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=10)
    assert info.value.code == 405
    info.value.close()


def test_context_manager_start_stop(site: Path) -> None:
    with SiteServer(site) as srv:
        assert fetch(srv.url("/"))[0] == 200
        with pytest.raises(RuntimeError):
            srv.start()
    srv.stop()  # idempotent
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(srv.url("/"), timeout=2)


def test_main_reports_bad_root(tmp_path: Path) -> None:
    assert main([str(tmp_path / "missing"), "--port", "0"]) == 2


# -- the bundled demo site -----------------------------------------------------


class _Links(HTMLParser):
    """Collects ``<a href>`` values and the text of ``<main>``."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.main_text: list[str] = []
        self._in_main = 0
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            href = dict(attrs).get("href")
            if href is not None:
                self.hrefs.append(href)
        elif tag == "main":
            self._in_main += 1
        elif tag in ("pre", "script", "style"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "main":
            self._in_main -= 1
        elif tag in ("pre", "script", "style"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if self._in_main and not self._skip:
            self.main_text.append(data)


def parse(body: bytes) -> _Links:
    parser = _Links()
    parser.feed(body.decode("utf-8"))
    return parser


def sitemap_urls(srv: SiteServer, url: str) -> list[str]:
    """Page URLs reachable from a sitemap or sitemap index (locs resolved against it)."""
    status, _, body = fetch(url)
    assert status == 200, url
    if body[:2] == b"\x1f\x8b":
        body = gzip.decompress(body)
    tree = ET.fromstring(body)
    locs = [urljoin(url, (el.text or "").strip()) for el in tree.iter(f"{SM_NS}loc")]
    if tree.tag == f"{SM_NS}sitemapindex":
        return [page for child in locs for page in sitemap_urls(srv, child)]
    return locs


def test_demo_site_pages() -> None:
    root = demo_site_path()
    assert (root / "index.html").is_file() and (root / "robots.txt").is_file()
    pages = sorted(root.rglob("*.html"))
    assert 10 <= len(pages) <= 14
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert '<html lang="en">' in html, page
        for marker in ('class="cookie-banner"', "<nav", "<header", "<footer", 'name="description"'):
            assert marker in html, (page, marker)
        words = len(" ".join(parse(html.encode()).main_text).split())
        assert 80 <= words <= 400, (page, words)
        if "/docs/" in page.as_posix():
            assert "<aside" in html, page
    all_html = "".join(p.read_text(encoding="utf-8") for p in pages)
    for marker in (
        "language-python",
        "language-bash",
        "<th>",
        "BlogPosting",
        "article:published_time",
    ):
        assert marker in all_html, marker


def test_demo_site_served_with_sitemaps_and_robots() -> None:
    with SiteServer(demo_site_path()) as srv:
        robots = fetch(srv.url("/robots.txt"))[2].decode()
        assert "Disallow: /private/" in robots
        assert f"Sitemap: {srv.base_url}/sitemap_index.xml" in robots
        raw = gzip.decompress(fetch(srv.url("/sitemap-pages.xml.gz"))[2]).decode()
        assert "<loc>/docs/</loc>" in raw and "<loc>docs/quickstart.html</loc>" in raw
        assert "<lastmod>" in raw
        urls = sitemap_urls(srv, srv.url("/sitemap_index.xml"))
        assert srv.url("/docs/quickstart.html") in urls
        assert srv.url("/about.html") not in urls
        stale = srv.url("/docs/changelog-2023.html")  # listed on purpose: a diagnostic row
        for url in urls:
            status, headers, _ = fetch(url)
            want = 404 if url == stale else 200
            assert (status, headers["Content-Type"]) == (want, "text/html; charset=utf-8"), url
        assert fetch(srv.url("/private/"))[0] == 200  # served; robots.txt is the guard
        status, headers, _ = fetch(srv.url("/docs/getting-started.html"))
        assert (status, headers["Location"]) == (301, "/docs/install.html")


# -- fixture sites: _expected.json agrees with what the server serves ----------


def load_expected(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SITES_DIR / name / "_expected.json").read_text())
    return data


SKIP_EXTENSIONS = (".css", ".js", ".png", ".jpg", ".xml", ".zip", ".pdf", ".gz", ".json")


def canonical(url: str) -> str | None:
    """A simple canonical form for the simulation: None for links not to crawl."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return None
    path = parts.path or "/"
    if path.lower().endswith(SKIP_EXTENSIONS) or path.startswith("/api/"):
        return None
    query = sorted((k, v) for k, v in parse_qsl(parts.query) if not k.startswith("utm_"))
    return urlunsplit((parts.scheme, parts.netloc, path, urlencode(query), ""))


def simulate(
    srv: SiteServer, seeds: list[str], via: str, max_depth: int = 3, first_via: str = ""
) -> dict[str, Any]:
    """Breadth-first crawl as the crawler is meant to do it, max_depth 3 by default
    (``first_via``: how the first seed, the start page, is discovered).

    Returns ``pages`` (final path -> depth, discovered_via, words of ``<main>``) and
    ``errors`` (path -> error type: http-error, unsupported (a PDF), not-html, or empty
    under 20 words).
    """
    pages: dict[str, dict[str, Any]] = {}
    errors: dict[str, str] = {}
    seen: set[str] = set()
    host = urlsplit(srv.base_url).netloc
    queue: deque[tuple[str, int, str]] = deque()
    for index, seed in enumerate(seeds):
        url = canonical(seed) or seed
        if url not in seen:
            seen.add(url)
            queue.append((url, 0, first_via if index == 0 and first_via else via))
    while queue:
        url, depth, how = queue.popleft()
        status, headers, body = fetch(url)
        hops = 0
        while status in (301, 302) and hops < 5:
            url = urljoin(url, headers["Location"])
            status, headers, body = fetch(url)
            hops += 1
        path = url[len(srv.base_url) :]
        if hops and path in pages:
            continue
        if status >= 400:
            errors[path] = "http-error"
            continue
        if headers["Content-Type"].startswith("application/pdf"):
            errors[path] = "unsupported"  # the fixture's one PDF is a stub without text
            continue
        if not headers["Content-Type"].startswith("text/html"):
            errors[path] = "not-html"
            continue
        parsed = parse(body)
        words = len(" ".join(parsed.main_text).split())
        if words < 20:
            errors[path] = "empty"
            continue
        pages[path] = {"depth": depth, "discovered_via": how, "words": words}
        if depth >= max_depth:
            continue
        for href in parsed.hrefs:
            link = canonical(urljoin(url, href))
            if link is None or urlsplit(link).netloc != host or link in seen:
                continue
            if urlsplit(link).path.startswith("/private/"):
                continue
            seen.add(link)
            queue.append((link, depth + 1, "link"))
    return {"pages": pages, "errors": errors}


def test_links_site_expected(links_site: SiteServer) -> None:
    expected = load_expected("links")
    assert fetch(links_site.url("/robots.txt"))[2] == b"User-agent: *\nAllow: /\n"
    assert fetch(links_site.url("/sitemap.xml"))[0] == 404
    result = simulate(links_site, [links_site.url("/")], "input")
    got = {p: (v["depth"], v["discovered_via"]) for p, v in result["pages"].items()}
    want = {p["path"]: (p["depth"], p["discovered_via"]) for p in expected["pages"]}
    assert got == want
    assert all(v["words"] >= 60 for v in result["pages"].values())
    assert result["errors"] == {d["path"]: d["error_type"] for d in expected["diagnostics"]}
    for path in expected["never_requested"]:
        assert path not in got
        assert fetch(links_site.url(path))[0] == 200  # exists, so a wrong fetch is visible
    for item in expected["beyond_max_depth"]:
        assert fetch(links_site.url(item["path"]))[0] == 200


def test_basic_site_expected(basic_site: SiteServer) -> None:
    expected = load_expected("basic")
    robots = fetch(basic_site.url("/robots.txt"))[2].decode()
    assert f"Sitemap: {basic_site.base_url}/sitemap_index.xml" in robots
    assert "Disallow: /private/" in robots
    urls = sitemap_urls(basic_site, basic_site.url("/sitemap_index.xml"))
    assert len(urls) == len(set(urls)) == expected["sitemap_url_count"]
    blocked = [u for u in urls if urlsplit(u).path.startswith("/private/")]
    assert [urlsplit(u).path for u in blocked] == expected["robots_blocked"]
    # the start page first (issue 16 item 2), then the sitemap's URLs
    seeds = [basic_site.url("/"), *(u for u in urls if u not in blocked)]
    result = simulate(basic_site, seeds, "sitemap", first_via="input")
    got = {p: (v["depth"], v["discovered_via"]) for p, v in result["pages"].items()}
    want = {p["path"]: (p["depth"], p["discovered_via"]) for p in expected["pages"]}
    assert got == want
    assert all(v["words"] >= 60 for v in result["pages"].values())
    for pair in expected["redirects"]:
        status, headers, _ = fetch(basic_site.url(pair["from"]))
        assert status == pair["status"]
        assert urljoin(basic_site.url(pair["from"]), headers["Location"]) == basic_site.url(
            pair["to"]
        )
    errors = {d["path"]: d for d in expected["diagnostics"]}
    assert result["errors"] == {p: d["error_type"] for p, d in errors.items()}
    for path, diag in errors.items():
        assert fetch(basic_site.url(path))[0] == diag["status_code"], path
    status, headers, _ = fetch(basic_site.url("/files/brochure.pdf"))
    assert headers["Content-Type"] == errors["/files/brochure.pdf"]["content_type"]
    shell = parse(fetch(basic_site.url("/app/"))[2])
    assert shell.main_text == []
    shell_text = re.sub(r"<[^>]+>", " ", fetch(basic_site.url("/app/"))[2].decode())
    assert len(shell_text.split()) < 20
    raw = fetch(basic_site.url("/sitemap-pages.xml.gz"))
    assert raw[1]["Content-Type"] == "application/gzip" and "Content-Encoding" not in raw[1]


# -- fault routes: drip, encoding, repeat_body, chunked, drop ----------------------


def _fault_site(tmp_path: Path, routes: dict[str, Any]) -> Path:
    root = tmp_path / "faults"
    root.mkdir()
    (root / "page.html").write_text("<p>at {{origin}}</p>")
    (root / "bomb.gz").write_bytes(gzip.compress(b"\0" * 1_000_000))
    (root / "_routes.json").write_text(json.dumps(routes))
    return root


def test_drip_sends_the_body_slowly_with_a_content_length(
    tmp_path: Path, serve_site: Callable[[Path], SiteServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    body = "x" * (server_module.DRIP_CHUNK * 4)
    srv = serve_site(_fault_site(tmp_path, {"/drip": {"body": body, "drip": 0.1}}))
    pauses = server_pauses(monkeypatch)
    status, headers, data = fetch(srv.url("/drip"))
    assert (status, data) == (200, body.encode())
    assert headers["Content-Length"] == str(len(body))
    assert pauses == [0.1] * 3  # 4 pieces, 3 pauses between them


def test_encoding_gzip_compresses_file_and_body(
    tmp_path: Path, serve_site: Callable[[Path], SiteServer]
) -> None:
    routes = {
        "/f": {"file": "page.html", "encoding": "gzip"},
        "/b": {"body": "<p>hi</p>", "encoding": "gzip", "repeat_body": 3},
    }
    srv = serve_site(_fault_site(tmp_path, routes))
    status, headers, data = fetch(srv.url("/f"))
    assert (status, headers["Content-Encoding"]) == (200, "gzip")
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Content-Length"] == str(len(data))
    assert gzip.decompress(data) == f"<p>at {srv.base_url}</p>".encode()
    assert gzip.decompress(fetch(srv.url("/b"))[2]) == b"<p>hi</p>" * 3


def test_repeat_body_streams_the_copies(
    tmp_path: Path, serve_site: Callable[[Path], SiteServer]
) -> None:
    srv = serve_site(_fault_site(tmp_path, {"/big": {"body": "ab", "repeat_body": 100_000}}))
    status, headers, data = fetch(srv.url("/big"))
    assert (status, headers["Content-Length"], data) == (200, "200000", b"ab" * 100_000)


def test_chunked_has_no_content_length(
    tmp_path: Path, serve_site: Callable[[Path], SiteServer]
) -> None:
    routes = {"/c": {"body": "chunk", "repeat_body": 50_000, "chunked": True}}
    srv = serve_site(_fault_site(tmp_path, routes))
    status, headers, data = fetch(srv.url("/c"))
    assert status == 200 and "Content-Length" not in headers
    assert headers["Transfer-Encoding"] == "chunked"
    assert data == b"chunk" * 50_000


def test_drop_closes_the_connection_without_an_answer(
    tmp_path: Path, serve_site: Callable[[Path], SiteServer]
) -> None:
    srv = serve_site(_fault_site(tmp_path, {"/robots.txt": {"drop": True}}))
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        raw_get(srv, "/robots.txt")
    assert srv.hits("/robots.txt") == 1 and srv.requests[-1].status == 0


def test_prebuilt_gzip_file_served_raw_as_html(
    tmp_path: Path, serve_site: Callable[[Path], SiteServer]
) -> None:
    route = {
        "file": "bomb.gz",
        "content_type": "text/html",
        "headers": {"Content-Encoding": "gzip"},
    }
    site = _fault_site(tmp_path, {"/bomb": route})
    srv = serve_site(site)
    status, headers, data = fetch(srv.url("/bomb"))
    assert (status, headers["Content-Type"], headers["Content-Encoding"]) == (
        200,
        "text/html",
        "gzip",
    )
    assert data == (site / "bomb.gz").read_bytes()


@pytest.mark.parametrize(
    "route",
    [
        {"drip": -1},
        {"drip": "slow"},
        {"encoding": "br"},
        {"repeat_body": 0},
        {"repeat_body": 2.5},
        {"chunked": "yes"},
        {"drop": True, "status": 200},
    ],
)
def test_invalid_fault_routes_rejected(tmp_path: Path, route: dict[str, Any]) -> None:
    root = tmp_path / "bad"
    root.mkdir()
    (root / "_routes.json").write_text(json.dumps({"/x": route}))
    with pytest.raises(ValueError):
        SiteServer(root).start()
