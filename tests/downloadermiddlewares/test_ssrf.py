"""The SSRF guard: private, loopback and link-local destinations are refused unless
allow-listed, in every spelling and after redirects; no packet is sent to them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer

from ..crawling import by_type, crawl, read_rows, scrapy_crawl

WORDS = " ".join(f"w{i}" for i in range(40))
Serve = Callable[[Path], SiteServer]


def tiny_site(root: Path, routes: dict[str, object] | None = None) -> Path:
    root.mkdir(parents=True)
    links = '<a href="/to-private">a</a><a href="/to-metadata">b</a><a href="/to-file">c</a>'
    (root / "index.html").write_text(f"<html><body><p>{WORDS}</p>{links}</body></html>")
    if routes:
        (root / "_routes.json").write_text(json.dumps(routes))
    return root


@deferred_f_from_coro_f
async def test_redirects_to_forbidden_addresses_are_refused(
    serve_site: Serve, tmp_path: Path
) -> None:
    routes = {
        # 10.0.0.1 in hex and 169.254.169.254 in decimal: refused before any connection
        "/to-private": {"status": 302, "location": "http://0x0a000001/admin"},
        "/to-metadata": {"status": 302, "location": "http://2852039166/latest/meta-data/"},
        "/to-file": {"status": 302, "location": "file:///etc/passwd"},
    }
    server = serve_site(tiny_site(tmp_path / "s", routes))
    port = server.base_url.rsplit(":", 1)[1]
    rows = await crawl(
        tmp_path, {"WEBMD_SSRF_ALLOWLIST": f"127.0.0.1:{port}"}, start=server.base_url + "/"
    )
    errors = {r["url"].removeprefix(server.base_url): r for r in by_type(rows, "diagnostic")}
    assert "private address 10.0.0.1" in errors["/to-private"]["error"]
    assert "169.254.169.254" in errors["/to-metadata"]["error"]
    assert errors["/to-private"]["error_type"] == errors["/to-metadata"]["error_type"] == "blocked"
    # Scrapy never follows a redirect to file:, so that one ends as the 302 it was
    assert errors["/to-file"]["error_type"] == "http-error"
    assert len(by_type(rows, "page")) == 1


def test_loopback_is_refused_without_an_allowlist(serve_site: Serve, tmp_path: Path) -> None:
    server = serve_site(tiny_site(tmp_path / "s"))
    port = server.base_url.rsplit(":", 1)[1]
    for start in (f"http://127.0.0.1:{port}/", f"http://localhost:{port}/"):
        out = tmp_path / "rows.jsonl"
        done = scrapy_crawl("-a", f"start={start}", "-O", str(out), "-s", "LOG_LEVEL=INFO",
                            "-s", "WEBMD_HOST_DELAY=0", cwd=tmp_path)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        rows = read_rows(out)
        (diag,) = by_type(rows, "diagnostic")
        assert diag["error_type"] == "blocked" and "SSRF" in diag["error"], diag
    assert server.hits("/robots.txt") == 0 and server.hits("/") == 0, "nothing reached it"
