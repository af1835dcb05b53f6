"""follow_subdomains, crawled for real: one HTTP server on 127.0.0.1 answers each
``*.localhost`` name with its own pages and robots.txt (virtual hosts, by the ``Host``
header), and the crawl's reactor resolves ``*.localhost`` to loopback as RFC 6761
section 6.3 says (browsers and curl do; glibc here does not)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from scrapy.utils.defer import deferred_f_from_coro_f
from twisted.internet.address import IPv4Address
from twisted.internet.interfaces import IHostnameResolver, IHostResolution
from zope.interface import implementer

from webmd_spider.options import OptionsError
from webmd_spider.spiders.subdomains import MAX_SUBDOMAIN_WEBSITES

from ..crawling import by_type, crawl, prose_page, summary_of


class VirtualHosts:
    """One server on 127.0.0.1: each host name (``Host`` header, port ignored) has its
    own pages, path -> body (``(status, body)`` for another status); anything else is a
    404. ``requests`` lists (host, path) in the order asked."""

    def __init__(self, sites: dict[str, dict[str, Any]]) -> None:
        self.sites = sites
        self.requests: list[tuple[str, str]] = []
        lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                host = (self.headers.get("Host") or "").rsplit(":", 1)[0].lower()
                with lock:
                    outer.requests.append((host, self.path))
                answer = outer.sites.get(host, {}).get(self.path, (404, "not here"))
                status, body = answer if isinstance(answer, tuple) else (200, answer)
                kind = "text/plain" if self.path.endswith(".txt") else "text/html"
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", f"{kind}; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def start(self) -> VirtualHosts:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def url(self, host: str, path: str = "/") -> str:
        return f"http://{host}:{self.port}{path}"

    def asked(self, host: str) -> list[str]:
        """The paths asked of ``host``, in order."""
        return [path for name, path in self.requests if name == host]


@implementer(IHostResolution)
class _Resolution:
    def __init__(self, name: str) -> None:
        self.name = name

    def cancel(self) -> None:
        pass


@implementer(IHostnameResolver)
class LoopbackNames:
    """RFC 6761 section 6.3: a name under ``localhost`` is a loopback address; other
    names go to the reactor's own resolver."""

    def __init__(self, fallback: Any) -> None:
        self.fallback = fallback

    def resolveHostName(
        self,
        resolutionReceiver: Any,
        hostName: str,
        portNumber: int = 0,
        addressTypes: Any = None,
        transportSemantics: str = "TCP",
    ) -> Any:
        if not hostName.rstrip(".").lower().endswith(".localhost"):
            return self.fallback.resolveHostName(
                resolutionReceiver, hostName, portNumber, addressTypes, transportSemantics
            )
        resolution = _Resolution(hostName)
        resolutionReceiver.resolutionBegan(resolution)
        resolutionReceiver.addressResolved(IPv4Address("TCP", "127.0.0.1", portNumber))
        resolutionReceiver.resolutionComplete()
        return resolution


@pytest.fixture
def loopback_names() -> Iterator[None]:
    """``*.localhost`` resolves to 127.0.0.1 in this test's crawls."""
    from twisted.internet import reactor  # the one pytest-twisted installed (asyncio)

    simple, complex_ = reactor.resolver, reactor.nameResolver  # type: ignore[attr-defined]
    reactor.installNameResolver(LoopbackNames(complex_))  # type: ignore[attr-defined]
    try:
        yield
    finally:
        reactor.installNameResolver(complex_)  # type: ignore[attr-defined]
        reactor.resolver = simple  # type: ignore[attr-defined]


@pytest.fixture
def hosts() -> Iterator[list[VirtualHosts]]:
    """Started servers, stopped at teardown."""
    started: list[VirtualHosts] = []
    yield started
    for server in started:
        server.stop()


def serve(hosts: list[VirtualHosts], sites: dict[str, dict[str, Any]]) -> VirtualHosts:
    server = VirtualHosts(sites).start()
    hosts.append(server)
    return server


def allow(*names: str) -> dict[str, Any]:
    """Settings letting these ``*.localhost`` names past the SSRF guard (it refuses
    localhost names unless named)."""
    return {"WEBMD_SSRF_ALLOWLIST": ",".join(("127.0.0.0/8", "localhost", *names))}


def docs_family(hosts: list[VirtualHosts]) -> VirtualHosts:
    """localhost links to docs.localhost (whose robots.txt disallows /secret/), to
    docs.localhost on another port and to a look-alike host; docs links on to
    blog.localhost."""
    server = VirtualHosts({})  # its port is in the pages
    hosts.append(server)
    port = server.port
    server.sites.update(
        {
            "localhost": {
                "/": prose_page(
                    "Home",
                    "/about.html",
                    f"http://docs.localhost:{port}/",
                    f"http://docs.localhost:{port}/secret/plans.html",
                    f"http://docs.localhost:{port + 1}/",
                    f"http://docs.localhost.evil.test:{port}/",
                ),
                "/about.html": prose_page("About"),
            },
            "docs.localhost": {
                "/robots.txt": "User-agent: *\nDisallow: /secret/\n",
                "/": prose_page(
                    "Docs", "/guide.html", "/secret/plans.html", f"http://localhost:{port}/"
                ),
                "/guide.html": prose_page("Guide", f"http://blog.localhost:{port}/"),
                "/secret/plans.html": prose_page("Secret plans"),
            },
            "blog.localhost": {"/": prose_page("Blog")},
        }
    )
    server.start()
    return server


def websites(rows: list[dict[str, Any]], row_type: str) -> set[str]:
    return {r["website"] for r in by_type(rows, row_type)}


@deferred_f_from_coro_f
async def test_a_linked_subdomain_is_crawled_as_a_website_of_its_own(
    loopback_names: None, hosts: list[VirtualHosts], tmp_path: Path
) -> None:
    server = docs_family(hosts)
    start, port = server.url("localhost"), server.port
    rows = await crawl(
        tmp_path,
        allow("docs.localhost", "blog.localhost"),
        start=start,
        follow_subdomains="true",
        discovery="links",
    )
    pages = {(r["website"], r["url"]): r for r in by_type(rows, "page")}
    docs, blog = f"docs.localhost:{port}", f"blog.localhost:{port}"
    assert set(pages) == {
        (f"localhost:{port}", start),
        (f"localhost:{port}", server.url("localhost", "/about.html")),
        (docs, server.url("docs.localhost")),
        (docs, server.url("docs.localhost", "/guide.html")),
        (blog, server.url("blog.localhost")),
    }
    # its pages keep their link depth: home 0, docs 1, its guide 2, the blog it links 3
    assert pages[(docs, server.url("docs.localhost"))]["depth"] == 1
    assert pages[(docs, server.url("docs.localhost", "/guide.html"))]["depth"] == 2
    assert pages[(blog, server.url("blog.localhost"))]["depth"] == 3
    assert {r["discovered_via"] for r in pages.values() if r["website"] != f"localhost:{port}"} == {
        "link"
    }
    # its own site row, under the start entry it was found from
    sites = {r["website"]: r for r in by_type(rows, "site")}
    assert set(sites) == {f"localhost:{port}", docs, blog}
    assert sites[docs]["pages_extracted"] == 2 and sites[blog]["pages_extracted"] == 1
    assert {r["input"] for r in sites.values()} == {start}
    assert sites[docs]["url"] == server.url("docs.localhost")
    # its robots.txt was read first and obeyed: the disallowed page was never asked
    asked = server.asked("docs.localhost")
    assert asked[0] == "/robots.txt" and asked.count("/robots.txt") == 1
    assert "/secret/plans.html" not in asked
    assert sites[docs]["robots_blocked"] == 1
    assert server.asked("blog.localhost")[0] == "/robots.txt"
    # another port and a look-alike host are other websites: not followed
    assert not [r for r in rows if r["website"] in (f"docs.localhost:{port + 1}",)]
    assert not [r for r in rows if "evil" in (r["website"] or "")]
    assert summary_of(tmp_path)["rejected_counts"]["robots"] == 1


@deferred_f_from_coro_f
async def test_without_the_option_a_subdomain_link_is_not_followed(
    loopback_names: None, hosts: list[VirtualHosts], tmp_path: Path
) -> None:
    server = docs_family(hosts)
    rows = await crawl(
        tmp_path,
        allow("docs.localhost", "blog.localhost"),
        start=server.url("localhost"),
        discovery="links",
    )
    assert websites(rows, "page") == websites(rows, "site") == {f"localhost:{server.port}"}
    assert len(by_type(rows, "page")) == 2
    assert {host for host, _ in server.requests} == {"localhost"}


@deferred_f_from_coro_f
async def test_a_site_linking_many_subdomains_adds_only_so_many(
    loopback_names: None, hosts: list[VirtualHosts], tmp_path: Path
) -> None:
    count = MAX_SUBDOMAIN_WEBSITES + 5
    names = [f"s{i}.localhost" for i in range(count)]
    server = VirtualHosts({})
    hosts.append(server)
    links = [f"http://{name}:{server.port}/" for name in names]
    server.sites.update({"localhost": {"/": prose_page("Hub", *links)}})
    server.sites.update({name: {"/": prose_page(name)} for name in names})
    server.start()
    rows = await crawl(
        tmp_path,
        allow(*names),
        start=server.url("localhost"),
        follow_subdomains="true",
        discovery="links",
    )
    kept = {f"{name}:{server.port}" for name in names[:MAX_SUBDOMAIN_WEBSITES]}
    assert websites(rows, "site") == {f"localhost:{server.port}", *kept}
    assert websites(rows, "page") == {f"localhost:{server.port}", *kept}
    assert {host for host, _ in server.requests} == {"localhost", *names[:MAX_SUBDOMAIN_WEBSITES]}
    assert summary_of(tmp_path)["rejected_counts"]["subdomain_limit"] == 5


@deferred_f_from_coro_f
async def test_links_to_a_subdomain_whose_robots_txt_fails_are_counted_not_fetched(
    loopback_names: None, hosts: list[VirtualHosts], tmp_path: Path
) -> None:
    server = VirtualHosts({})
    hosts.append(server)
    docs = [server.url("docs.localhost", f"/p{i}.html") for i in range(3)]
    server.sites.update(
        {
            "localhost": {"/": prose_page("Home", *docs)},
            "docs.localhost": {
                "/robots.txt": (503, "down"),
                **{f"/p{i}.html": prose_page(f"P{i}") for i in range(3)},
            },
        }
    )
    server.start()
    rows = await crawl(
        tmp_path,
        allow("docs.localhost"),
        start=server.url("localhost"),
        follow_subdomains="true",
        discovery="links",
    )
    website = f"docs.localhost:{server.port}"
    # RFC 9309: an unavailable robots.txt disallows everything (retried, then asked
    # once more later): no page of the website is asked
    assert set(server.asked("docs.localhost")) == {"/robots.txt"}
    (blocked,) = [r for r in by_type(rows, "diagnostic") if r["website"] == website]
    assert blocked["error_type"] == "blocked"
    (site,) = [r for r in by_type(rows, "site") if r["website"] == website]
    assert site["stop_reason"] == "robots_unavailable"
    assert summary_of(tmp_path)["not_fetched_counts"]["robots_unavailable"] == 3


@deferred_f_from_coro_f
async def test_a_resumed_jobdir_crawls_the_pending_pages_of_a_subdomain(
    loopback_names: None, hosts: list[VirtualHosts], tmp_path: Path
) -> None:
    """The pages an earlier (killed) run queued on a subdomain are fetched, though no
    page of this run links to it (the home page was done before)."""
    server = VirtualHosts({})
    hosts.append(server)
    home, guide = server.url("localhost"), server.url("docs.localhost", "/guide.html")
    server.sites.update(
        {
            "localhost": {"/": prose_page("Home", guide)},
            "docs.localhost": {"/guide.html": prose_page("Guide")},
        }
    )
    server.start()
    jobdir = tmp_path / "job"
    jobdir.mkdir()
    journal = [
        ["O"],
        ["Q", home, home, 0, "input", f"localhost:{server.port}"],
        ["D", home, "page"],
        ["Q", guide, guide, 1, "link", f"docs.localhost:{server.port}"],
    ]  # no ["C"]: that run was killed
    (jobdir / "webmd-journal.jsonl").write_text("".join(json.dumps(e) + "\n" for e in journal))
    rows = await crawl(
        tmp_path,
        {**allow("docs.localhost"), "JOBDIR": str(jobdir)},
        start=home,
        follow_subdomains="true",
        discovery="links",
    )
    assert server.asked("localhost") == ["/robots.txt"]  # the home page was done
    assert server.asked("docs.localhost") == ["/robots.txt", "/guide.html"]
    (page,) = by_type(rows, "page")
    assert (page["url"], page["depth"], page["website"]) == (
        guide,
        1,
        f"docs.localhost:{server.port}",
    )


@deferred_f_from_coro_f
async def test_a_distributed_crawl_refuses_the_option(tmp_path: Path) -> None:
    """Another worker could not take the pages of a website only its finder knows: the
    crawl does not start (before Redis is contacted: nothing listens on port 1)."""
    with pytest.raises(OptionsError, match="follow_subdomains cannot be used"):
        await crawl(
            tmp_path,
            start="http://localhost:1/",
            follow_subdomains="true",
            redis_url="redis://127.0.0.1:1/0",
        )
