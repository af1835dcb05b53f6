"""``webmd mcp`` through the MCP SDK's own client.

The server runs as a subprocess (``python -m webmd_spider.service.mcp_server``) over
stdio, as an agent's host starts it, and its tools crawl a real site on 127.0.0.1. One
test speaks streamable HTTP to it. The client's event loop runs in an anyio portal
thread: pytest-twisted runs the asyncio reactor's loop in the test thread, and asyncio
allows one running loop per thread.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types import CallToolResult, TextContent, Tool

from webmd_spider.demo.server import SiteServer
from webmd_spider.service.mcp_server import MISSING_SDK
from webmd_spider.service.mcp_tools import CrawledPage, crawl_pages, cut_text

from ..crawling import urlset, write_site

SERVER = [sys.executable, "-m", "webmd_spider.service.mcp_server"]
#: a safety net against a hung server, not a measure of anything
READ_TIMEOUT_SECS = 180.0

_WORDS = (
    "The harbor queue keeps every job in order and retries the ones that fail, so a "
    "worker that stops halfway never loses the message it was given."
)


def _page(title: str, paragraphs: int, *links: str, extra: str = "") -> str:
    """A page with a nav and a footer around its main content."""
    prose = "".join(f"<p>{_WORDS} {title} paragraph {i}.</p>" for i in range(paragraphs))
    anchors = "".join(f"<li><a href='{link}'>{link}</a></li>" for link in links)
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title></head><body>"
        "<nav><a href='/'>Home</a> <a href='/blog/news.html'>Blog</a></nav>"
        f"<main><h1>{title}</h1>{prose}{extra}<ul>{anchors}</ul></main>"
        "<footer><p>Copyright the harbor team.</p></footer></body></html>"
    )


SITE = {
    "robots.txt": "User-agent: *\nDisallow: /private/\nSitemap: {{origin}}/sitemap.xml\n",
    "sitemap.xml": urlset("{{origin}}/", "{{origin}}/docs/guide.html", "{{origin}}/blog/news.html"),
    "index.html": _page(
        "Harbor Queue",
        2,
        "/docs/guide.html",
        "/docs/install.html",
        "/blog/news.html",
        "/missing.html",
        "/private/secret.html",
    ),
    "docs/guide.html": _page("Guide", 8),
    "docs/install.html": _page("Install", 2, extra="<pre><code>pip install harbor</code></pre>"),
    "blog/news.html": _page("News", 2),
    "private/secret.html": _page("Secret", 2),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SiteServer]:
    """The test site on 127.0.0.1 for this module."""
    with SiteServer(write_site(tmp_path_factory.mktemp("mcp-site"), SITE)) as server:
        yield server


class Session:
    """An MCP ClientSession driven from a synchronous test through a portal."""

    def __init__(self, portal: BlockingPortal, session: ClientSession, stderr: Path) -> None:
        self._portal = portal
        self._session = session
        self._stderr = stderr

    def tools(self) -> dict[str, Tool]:
        """The server's tools by name."""
        listed = self._portal.call(self._session.list_tools)
        return {tool.name: tool for tool in listed.tools}

    def call(self, name: str, **arguments: Any) -> CallToolResult:
        """Call a tool and return its result (a tool error is a result too)."""
        return self._portal.call(self._session.call_tool, name, arguments)

    def log(self) -> str:
        """What the server wrote to stderr so far (for failure messages)."""
        return self._stderr.read_text("utf-8", "replace")


@contextmanager
def _client(transport: AbstractAsyncContextManager[Any], stderr: Path) -> Iterator[Session]:
    """An initialized ClientSession over ``transport``, in a portal thread."""
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(transport) as (read, write),
    ):
        session = ClientSession(read, write, read_timeout_seconds=READ_TIMEOUT_SECS)
        with portal.wrap_async_context_manager(session):
            portal.call(session.initialize)
            yield Session(portal, session, stderr)


@contextmanager
def mcp_server(*args: str, cwd: Path) -> Iterator[Session]:
    """``webmd mcp ARGS`` started over stdio by the SDK's stdio_client, in ``cwd``."""
    stderr = cwd / "server.log"
    params = StdioServerParameters(command=SERVER[0], args=[*SERVER[1:], *args], cwd=cwd)
    with open(stderr, "w") as errlog, _client(stdio_client(params, errlog=errlog), stderr) as s:
        yield s


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    """A server started with --allow-local (it may fetch the site on 127.0.0.1)."""
    with mcp_server("--allow-local", cwd=tmp_path_factory.mktemp("mcp-local")) as session:
        yield session


def _text(result: CallToolResult) -> str:
    """The text of a result's one text block."""
    assert len(result.content) == 1 and isinstance(result.content[0], TextContent)
    return result.content[0].text


def _read_rows(path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text("utf-8").splitlines()]


# -- the tools and their schemas ------------------------------------------------------


def test_the_three_tools_are_listed_with_their_schemas(local: Session) -> None:
    tools = local.tools()
    assert set(tools) == {"fetch_page", "crawl_site", "convert_html"}
    fetch = tools["fetch_page"].input_schema
    assert fetch["required"] == ["url"]
    assert fetch["properties"]["main_content_only"] == {
        "default": True,
        "description": "true: the main content only; false: the whole page",
        "title": "Main Content Only",
        "type": "boolean",
    }
    crawl = tools["crawl_site"].input_schema
    assert crawl["required"] == ["url"]
    pages = crawl["properties"]["max_pages"]
    assert (pages["type"], pages["minimum"], pages["maximum"], pages["default"]) == (
        "integer",
        1,
        200,
        20,
    )
    for name in ("include", "exclude"):
        assert crawl["properties"][name]["type"] == "array"
        assert crawl["properties"][name]["items"]["type"] == "string"
        assert crawl["properties"][name]["default"] == []
    assert sorted(tools["convert_html"].input_schema["required"]) == ["html", "url"]
    # results are structured too: the schema an MCP client checks them against
    for name in ("fetch_page", "convert_html"):
        assert {"url", "title", "markdown", "truncated"} <= set(
            tools[name].output_schema["properties"]  # type: ignore[index]
        )
    assert {"pages", "failures", "rows_file", "truncated", "note"} <= set(
        tools["crawl_site"].output_schema["properties"]  # type: ignore[index]
    )


# -- fetch_page -----------------------------------------------------------------------


def test_fetch_page_returns_the_page_as_markdown_with_title_and_url(
    local: Session, site: SiteServer
) -> None:
    url = site.url("/docs/install.html")
    before = {path: site.hits(path) for path in ("/docs/install.html", "/", "/sitemap.xml")}
    result = local.call("fetch_page", url=url)
    assert not result.is_error, _text(result)
    text = _text(result)
    assert text.startswith(f"Title: Install\nURL: {url}\n\n# Install\n")
    assert "pip install harbor" in text and "Install paragraph 1." in text
    assert "Copyright the harbor team" not in text  # the main content only
    data = result.structured_content
    assert data is not None
    assert (data["url"], data["title"], data["truncated"]) == (url, "Install", False)
    assert data["markdown"].startswith("# Install") and data["chars"] == len(data["markdown"])
    # one page: no link followed, no sitemap read
    after = {path: site.hits(path) for path in before}
    assert after == {**before, "/docs/install.html": before["/docs/install.html"] + 1}


def test_fetch_page_can_return_the_whole_page(local: Session, site: SiteServer) -> None:
    paths = ("/", "/sitemap.xml", "/docs/guide.html", "/blog/news.html")
    before = {path: site.hits(path) for path in paths}
    result = local.call("fetch_page", url=site.url("/"), main_content_only=False)
    assert not result.is_error, _text(result)
    assert _text(result).startswith(f"Title: Harbor Queue\nURL: {site.url('/')}\n")
    assert "Harbor Queue paragraph 1." in _text(result)
    assert "Copyright the harbor team" in _text(result)  # the footer is kept
    # the home page only: its sitemap (robots.txt names it) and links are left alone
    after = {path: site.hits(path) for path in paths}
    assert after == {**before, "/": before["/"] + 1}


def test_a_page_robots_txt_disallows_is_an_error_and_not_fetched(
    local: Session, site: SiteServer
) -> None:
    result = local.call("fetch_page", url=site.url("/private/secret.html"))
    assert result.is_error
    assert "blocked" in _text(result) and "robots.txt" in _text(result), _text(result)
    assert site.hits("/private/secret.html") == 0


# -- convert_html ---------------------------------------------------------------------


def test_convert_html_returns_markdown_with_title(local: Session) -> None:
    link = "<p>The levee is described on <a href='/river.html'>the river page</a> too.</p>"
    html = _page("Valley Notes", 3, extra=link)
    result = local.call("convert_html", html=html, url="https://valley.example/notes/")
    assert not result.is_error, _text(result)
    text = _text(result)
    assert text.startswith("Title: Valley Notes\nURL: https://valley.example/notes/\n\n")
    assert "# Valley Notes" in text and "Valley Notes paragraph 2." in text
    # links are resolved against the URL
    assert "[the river page](https://valley.example/river.html)" in text
    empty = local.call("convert_html", html="<html><body></body></html>", url="https://a.example/")
    assert empty.is_error and "empty" in _text(empty)


# -- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("fetch_page", {"url": "ftp://example.com/file"}, "must be an http:// or https:// URL"),
        ("fetch_page", {"url": "example.com/page"}, "must be an http:// or https:// URL"),
        ("fetch_page", {"url": "http://"}, "has no host"),
        ("crawl_site", {"url": "SITE", "max_pages": 0}, "greater than or equal to 1"),
        ("crawl_site", {"url": "SITE", "max_pages": 201}, "less than or equal to 200"),
        ("crawl_site", {"url": "SITE", "include": [3]}, "valid string"),
        ("crawl_site", {"url": "SITE", "include": "*/docs/*"}, "valid list"),
        ("crawl_site", {"url": "SITE", "exclude": ["/([/"]}, "invalid regular expression"),
        ("crawl_site", {"url": "gopher://SITE"}, "must be an http:// or https:// URL"),
        ("convert_html", {"html": "<p>x</p>", "url": "file:///etc/passwd"}, "http:// or https://"),
        # 3 million characters (under the schema's length) but 6 MB of UTF-8
        ("convert_html", {"html": "é" * 3_000_000, "url": "https://a.example/"}, "5,242,880 bytes"),
    ],
)  # fmt: skip
def test_bad_input_is_a_tool_error_and_fetches_nothing(
    local: Session, site: SiteServer, tool: str, arguments: dict[str, Any], message: str
) -> None:
    arguments = {
        key: value.replace("SITE", site.url("/")) if isinstance(value, str) else value
        for key, value in arguments.items()
    }
    fetched = len(site.requests)
    result = local.call(tool, **arguments)
    assert result.is_error
    assert message in _text(result), _text(result)
    assert len(site.requests) == fetched


# -- crawl_site -----------------------------------------------------------------------


def test_crawl_site_returns_pages_a_summary_and_the_rows_file(
    local: Session, site: SiteServer
) -> None:
    start = site.url("/")
    result = local.call(
        "crawl_site",
        url=start,
        max_pages=10,
        include=[start, "*/docs/*", "*/missing.html"],
        exclude=["*/install.html"],
    )
    assert not result.is_error, _text(result)
    data = result.structured_content
    assert data is not None
    # the include and exclude patterns decided the pages: no news, no install
    assert {p["url"] for p in data["pages"]} == {start, site.url("/docs/guide.html")}
    assert data["page_count"] == 2 and not data["truncated"] and data["note"] == ""
    assert all(p["shown"] == "full" for p in data["pages"])
    assert [(f["url"], f["error_type"]) for f in data["failures"]] == [
        (site.url("/missing.html"), "http-error")
    ]
    text = _text(result)
    assert data["stop_reasons"] == ["finished"]
    assert text.startswith(f"Crawl of {start}: 2 pages, 1 failure (stopped: finished).\n")
    assert f"Rows file (every row in full, JSON lines): {data['rows_file']}" in text
    assert f"- {site.url('/missing.html')}: http-error:" in text
    assert "# Guide" in text and "Guide paragraph 7." in text and "# Harbor Queue" in text
    # the rows file holds every row of the crawl, the site row included
    rows = _read_rows(data["rows_file"])
    assert Path(data["rows_file"]).parent.name == "mcp"
    assert sorted(r["url"] for r in rows if r["row_type"] == "page") == sorted(
        p["url"] for p in data["pages"]
    )
    assert [r["row_type"] for r in rows].count("site") == 1
    page_rows = {r["url"]: r["markdown"] for r in rows if r["row_type"] == "page"}
    assert all(page_rows[p["url"]] == p["markdown"] for p in data["pages"])


def test_an_oversized_crawl_is_truncated_with_a_note(site: SiteServer, tmp_path: Path) -> None:
    budget = 1_000
    with mcp_server("--allow-local", "--result-chars", str(budget), cwd=tmp_path) as small:
        result = small.call("crawl_site", url=site.url("/"), max_pages=10)
    assert not result.is_error, _text(result)
    data = result.structured_content
    assert data is not None and data["truncated"]
    rows = {r["url"]: r for r in _read_rows(data["rows_file"]) if r["row_type"] == "page"}
    # every page of the site is in the file, whole; the result shows what fits
    assert set(rows) == {
        site.url(p) for p in ("/", "/docs/guide.html", "/docs/install.html", "/blog/news.html")
    }
    assert {p["url"] for p in data["pages"]} == set(rows)
    assert sum(len(p["markdown"]) for p in data["pages"]) <= budget
    left_out = [p for p in data["pages"] if p["shown"] != "full"]
    assert left_out
    for page in data["pages"]:
        full = rows[page["url"]]["markdown"]
        assert full.startswith(page["markdown"]) and page["chars"] == len(full)
        assert (page["markdown"] == full) == (page["shown"] == "full")
    text = _text(result)
    assert data["note"] in text and data["note"].startswith("[Truncated: ")
    assert f"full Markdown is in the rows file {data['rows_file']}" in data["note"]
    for page in left_out:
        assert page["url"] in data["note"]
    assert Path(data["rows_file"]).is_relative_to(tmp_path / "output" / "mcp")


# -- the SSRF guard -------------------------------------------------------------------


def test_without_allow_local_a_loopback_target_is_refused_unfetched(
    site: SiteServer, tmp_path: Path
) -> None:
    fetched = len(site.requests)
    with mcp_server(cwd=tmp_path) as guarded:
        page = guarded.call("fetch_page", url=site.url("/docs/guide.html"))
        crawl = guarded.call("crawl_site", url=site.url("/"), max_pages=5)
    for result in (page, crawl):
        assert result.is_error
        assert "refused by the SSRF guard: loopback address 127.0.0.1" in _text(result)
    assert len(site.requests) == fetched  # not even robots.txt was asked for


# -- the command ----------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    """Return once the server accepts connections; fail if it exits first."""
    while process.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=0.1)  # a pause that also notices an exit
    pytest.fail(f"the server exited with {process.returncode}: {log.read_text()}")


def _post(url: str, headers: dict[str, str]) -> int:
    """The status of a JSON-RPC ping POSTed to ``url``."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    request = urllib.request.Request(
        url,
        data=body,
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            **headers,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_streamable_http_with_a_bearer_token(tmp_path: Path) -> None:
    port = _free_port()
    log = tmp_path / "server.log"
    env = {k: v for k, v in os.environ.items() if k != "WEBMD_MCP_TOKEN"}
    with open(log, "wb") as errlog:
        process = subprocess.Popen(
            [*SERVER, "--http", "--port", str(port), "--token", "s3cret"],
            cwd=tmp_path,
            env=env,
            stdout=errlog,
            stderr=errlog,
        )
    try:
        _wait_for_port(port, process, log)
        url = f"http://127.0.0.1:{port}/mcp"
        assert _post(url, {}) == 401
        assert _post(url, {"authorization": "Bearer wrong"}) == 401
        client = create_mcp_http_client(headers={"authorization": "Bearer s3cret"})
        with _client(streamable_http_client(url, http_client=client), log) as session:
            assert set(session.tools()) == {"fetch_page", "crawl_site", "convert_html"}
            result = session.call("convert_html", html=_page("Tide", 2), url="https://t.example/")
        assert not result.is_error and _text(result).startswith("Title: Tide\n")
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_http_on_a_non_loopback_address_needs_a_token(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "WEBMD_MCP_TOKEN"}
    done = subprocess.run(
        [*SERVER, "--http", "--host", "0.0.0.0"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "--host 0.0.0.0 is reachable from other machines: give --token" in done.stderr


def test_without_the_sdk_the_command_names_the_extra(tmp_path: Path) -> None:
    # None in sys.modules makes every import of the package fail, as if not installed
    code = (
        "import sys; sys.modules['mcp'] = None\n"
        "from webmd_spider.service.mcp_server import main\n"
        "sys.exit(main([]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == MISSING_SDK
    assert "[mcp]'" in MISSING_SDK and "webmd-spider[" not in MISSING_SDK and done.stdout == ""


# -- the budget, without a server -----------------------------------------------------


def test_the_budget_shows_whole_pages_then_cuts_one_at_a_line_end() -> None:
    from webmd_spider.items import page_row

    lines = "\n".join(f"line {i} " + "x" * 40 for i in range(20))  # 20 lines of ~48
    rows = [page_row(url=f"https://a.example/{i}", markdown=lines) for i in range(3)]
    pages = crawl_pages(rows, len(lines) + 500)
    assert [p.shown for p in pages] == ["full", "cut", "omitted"]
    assert pages[1].markdown == cut_text(lines, 500) and pages[1].markdown.endswith("x")
    assert len(pages[1].markdown) <= 500 and lines.startswith(pages[1].markdown)
    assert pages[2].markdown == "" and pages[2].chars == len(lines)
    assert isinstance(pages[0], CrawledPage)
    # too little left to be worth a cut: the next page is left out whole
    assert [p.shown for p in crawl_pages(rows, len(lines) + 100)] == ["full", "omitted", "omitted"]
