"""``webmd mcp``: the MCP server for agents, over stdio or streamable HTTP.

Three tools (four with an index), thin layers over the Python API (the work is in
:mod:`webmd_spider.service.mcp_tools`):

* ``fetch_page(url, main_content_only=True)``: one page as Markdown with its title and
  URL, robots-checked; a page that cannot be fetched is an error result saying why.
* ``crawl_site(url, max_pages=20, include=[], exclude=[])``: the pages' Markdown up to
  a size budget, after a summary: pages, failures, what was truncated, and the rows
  file (every row in full, JSON lines) where the rest went.
* ``convert_html(html, url)``: HTML the caller has, to Markdown; nothing is fetched.
* ``search_docs(query, k=5)``, only when the server was started with ``--index FILE``
  (an index built by ``webmd crawl URL --index FILE``): the best chunks, each with its
  title, headings, the URL to cite and its text; an unusable index is an error result
  saying why.

Each result is the text an agent reads plus the same data as structured content (its
schema is the tool's output schema). Inputs are validated twice: by the schema (the
SDK's pydantic model: types, ranges, lengths) and by ``mcp_tools`` (URL schemes,
patterns that compile, the HTML's size in bytes).

Safety: loopback and private addresses are refused by the crawl's SSRF guard unless the
server was started with ``--allow-local`` (no tool argument can ask for it). Over HTTP
the server binds 127.0.0.1 by default; any other address needs a bearer token
(``--token`` or ``$WEBMD_MCP_TOKEN``), since whoever reaches the port can make this
machine fetch URLs.

Stdout is the MCP channel over stdio: everything logs to stderr. The SDK's stdio
transport also points fd 1 at stderr while it serves, so a crawl child's stray output
cannot corrupt the channel.

No ``from __future__ import annotations`` here: the SDK reads the tool functions'
annotations (their JSON schemas) with ``eval_str`` in the module's globals, and the
tools are defined inside :func:`build_server`, after the SDK's lazy import (the extra
may be missing: then ``main`` says which one to install).
"""

import argparse
import dataclasses
import hmac
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from webmd_spider.extras import install_hint
from webmd_spider.index.searching import MAX_K, MAX_QUERY_CHARS, EmbedderChoice
from webmd_spider.service.binding import is_loopback
from webmd_spider.service.mcp_tools import (
    DEFAULT_CRAWL_PAGES,
    DEFAULT_SEARCH_K,
    MAX_HTML_BYTES,
    MAX_PAGES_LIMIT,
    MAX_PATTERN_CHARS,
    MAX_PATTERNS,
    MAX_URL_CHARS,
    MIN_RESULT_CHARS,
    RESULT_CHARS,
    ROWS_DIR,
    CrawlResult,
    PageResult,
    SearchResult,
    ServerConfig,
    ToolRefusal,
    Tools,
    render_crawl,
    render_page,
    render_search,
)

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from starlette.types import ASGIApp, Receive, Scope, Send

logger = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
#: the environment variable that holds the HTTP transport's bearer token
TOKEN_ENV = "WEBMD_MCP_TOKEN"
MISSING_SDK = f"webmd mcp needs the MCP Python SDK: {install_hint('mcp')}"

INSTRUCTIONS = (
    "Web pages as clean Markdown. fetch_page reads one page, crawl_site a website "
    "(its full rows go to a file the summary names), convert_html converts HTML you "
    "already have. robots.txt is obeyed; loopback and private addresses are refused "
    "unless the server was started with --allow-local."
)
SEARCH_INSTRUCTIONS = (
    " search_docs searches this server's index of crawled documentation: cite each hit "
    "you use by its URL."
)


def build_server(config: ServerConfig) -> "MCPServer[Any]":
    """The MCP server with the three tools for ``config``, and search_docs when it
    names an index. Imports the SDK (the ``mcp`` extra); raises ImportError without it."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import CallToolResult, TextContent, ToolAnnotations
    from pydantic import Field

    tools = Tools(config)
    instructions = INSTRUCTIONS + (SEARCH_INSTRUCTIONS if config.index is not None else "")
    server: MCPServer[Any] = MCPServer(
        "webmd", instructions=instructions, version=_version(), log_level="INFO"
    )
    # the tools read the web and change nothing there
    web = ToolAnnotations(read_only_hint=True, open_world_hint=True, destructive_hint=False)

    def answer(text: str, data: Any) -> CallToolResult:
        """The text an agent reads, and the same result as structured content."""
        structured = dataclasses.asdict(data)
        return CallToolResult(
            content=[TextContent(type="text", text=text)], structured_content=structured
        )

    @contextmanager
    def refusals() -> Iterator[None]:
        """A ToolRefusal becomes the SDK's ToolError: an is_error result with the
        message, logged without a traceback."""
        try:
            yield
        except ToolRefusal as exc:
            raise ToolError(str(exc)) from None

    Url = Annotated[str, Field(description="an http:// or https:// URL", max_length=MAX_URL_CHARS)]
    Patterns = Annotated[
        list[Annotated[str, Field(max_length=MAX_PATTERN_CHARS)]],
        Field(
            description="globs on the whole URL (*/docs/*) or /regex/; exclude wins",
            max_length=MAX_PATTERNS,
        ),
    ]

    @server.tool(annotations=web)
    def fetch_page(
        url: Url,
        main_content_only: Annotated[
            bool, Field(description="true: the main content only; false: the whole page")
        ] = True,
    ) -> Annotated[CallToolResult, PageResult]:
        """Fetch one web page and return it as Markdown, with its title and URL.

        robots.txt is obeyed. A page that cannot be fetched (blocked, an HTTP error,
        not HTML, refused by the SSRF guard) is an error result saying why."""
        with refusals():
            page = tools.fetch_page(url, main_content_only)
        return answer(render_page(page), page)

    @server.tool(annotations=web)
    def crawl_site(
        url: Url,
        max_pages: Annotated[
            int, Field(description="pages to crawl", ge=1, le=MAX_PAGES_LIMIT)
        ] = DEFAULT_CRAWL_PAGES,
        include: Annotated[Patterns, Field(description="only URLs matching one of these")] = [],  # noqa: B006 - the SDK validates a fresh copy per call
        exclude: Annotated[Patterns, Field(description="never URLs matching these")] = [],  # noqa: B006
    ) -> Annotated[CallToolResult, CrawlResult]:
        """Crawl a website from a start URL (its sitemaps and links, robots.txt obeyed)
        and return the pages' Markdown up to a size budget, after a summary: pages,
        failures, and the rows file that holds every page in full (JSON lines)."""
        with refusals():
            result = tools.crawl_site(url, max_pages, include, exclude)
        return answer(render_crawl(result), result)

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    def convert_html(
        html: Annotated[
            str, Field(description="the page's HTML (at most 5 MB)", max_length=MAX_HTML_BYTES)
        ],
        url: Annotated[Url, Field(description="the page's URL (resolves its links)")],
    ) -> Annotated[CallToolResult, PageResult]:
        """Convert HTML you already have to Markdown (the main content), with its title.
        Nothing is fetched."""
        with refusals():
            page = tools.convert_html(html, url)
        return answer(render_page(page), page)

    if config.index is not None:
        # reads a local file; an HTTP embedder (--embed-url) is the operator's own
        @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
        def search_docs(
            query: Annotated[
                str,
                Field(
                    description="what to look for, in words",
                    min_length=1,
                    max_length=MAX_QUERY_CHARS,
                ),
            ],
            k: Annotated[
                int, Field(description="how many hits to return, best first", ge=1, le=MAX_K)
            ] = DEFAULT_SEARCH_K,
        ) -> Annotated[CallToolResult, SearchResult]:
            """Search the crawled documentation this server indexes (keywords and meaning
            together) and return the best sections: each hit's title, headings, the URL
            to cite, and its text. Cite the URL of every hit you use."""
            with refusals():
                result = tools.search_docs(query, k)
            return answer(render_search(result), result)

    return server


def _version() -> str:
    """The installed webmd-spider version (the server's version in its handshake)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("webmd-spider")
    except PackageNotFoundError:
        return "0"


def bearer_guard(app: "ASGIApp", token: str) -> "ASGIApp":
    """``app`` behind a bearer token: an HTTP request without ``Authorization: Bearer
    TOKEN`` gets 401 and never reaches the MCP layer (lifespan events pass)."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: "Scope", receive: "Receive", send: "Send") -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, expected):
                headers = [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]
                await send({"type": "http.response.start", "status": 401, "headers": headers})
                await send({"type": "http.response.body", "body": b'{"error": "unauthorized"}'})
                return
        await app(scope, receive, send)

    return guarded


def serve_http(server: "MCPServer[Any]", host: str, port: int, token: str) -> None:
    """Serve streamable HTTP at ``http://HOST:PORT/mcp`` until interrupted."""
    import anyio
    import uvicorn

    # JSON-escaped HTML of the largest convert_html input must fit in one request
    app: ASGIApp = server.streamable_http_app(host=host, max_request_body_size=3 * MAX_HTML_BYTES)
    if token:
        app = bearer_guard(app, token)
    config = uvicorn.Config(app, host=host, port=port, log_level="info")
    logger.info("MCP over streamable HTTP at http://%s:%d/mcp", host, port)
    anyio.run(uvicorn.Server(config).serve)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line of ``webmd mcp``."""
    parser = argparse.ArgumentParser(
        prog="webmd mcp",
        description="Serve webmd's tools (fetch_page, crawl_site, convert_html, and "
        "search_docs with --index) to MCP clients: over stdio by default, over streamable "
        "HTTP with --http.",
    )
    parser.add_argument(
        "--allow-local",
        action="store_true",
        help="let loopback and private addresses through the SSRF guard (your own sites)",
    )
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP, not stdio")
    parser.add_argument(
        "--host", default=DEFAULT_HOST, help=f"with --http (default {DEFAULT_HOST})"
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"with --http (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--token",
        default=os.environ.get(TOKEN_ENV, ""),
        help=f"with --http: the bearer token clients must send (default ${TOKEN_ENV}); "
        "required when --host is not a loopback address",
    )
    parser.add_argument(
        "--rows-dir",
        type=Path,
        default=ROWS_DIR,
        help=f"where crawl_site writes its rows files (default {ROWS_DIR})",
    )
    parser.add_argument(
        "--result-chars",
        type=int,
        default=RESULT_CHARS,
        help=f"characters of Markdown one result holds (default {RESULT_CHARS:,})",
    )
    parser.add_argument(
        "--index",
        type=Path,
        default=None,
        help="offer search_docs over this index (built by webmd crawl URL --index FILE)",
    )
    parser.add_argument(
        "--embedder",
        default=None,
        help="with --index: the index's embedder when it is not wordllama "
        "(sentence-transformers:DIR, fastembed:DIR)",
    )
    parser.add_argument(
        "--embed-url", default="", help="with --index: the index's HTTP embedding endpoint"
    )
    parser.add_argument("--embed-model", default="", help="with --embed-url: the model name")
    parser.add_argument(
        "--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"]
    )
    args = parser.parse_args(argv)
    if args.result_chars < MIN_RESULT_CHARS:
        parser.error(f"--result-chars must be at least {MIN_RESULT_CHARS}")
    if not 0 < args.port < 65536:
        parser.error("--port must be 1..65535")
    if args.index is None and (args.embedder or args.embed_url or args.embed_model):
        parser.error("--embedder, --embed-url and --embed-model go with --index")
    if args.http and not args.token and not is_loopback(args.host):
        # anyone who reaches the port could make this machine fetch URLs
        parser.error(
            f"--host {args.host} is reachable from other machines: give --token (or ${TOKEN_ENV})"
        )
    return args


def embedder_choice(args: argparse.Namespace) -> EmbedderChoice:
    """How queries are embedded: the index's own embedder unless the flags name one
    (an --embed-url alone means the ``http`` embedder, as in ``webmd search``)."""
    return EmbedderChoice(
        spec="http" if args.embed_url and not args.embedder else args.embedder,
        embed_url=args.embed_url,
        embed_model=args.embed_model,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``webmd mcp`` with ``argv`` (the arguments after ``mcp``); returns the exit
    code: 0 after a clean stop, 2 without the MCP SDK or for a bad argument."""
    args = parse_args(argv)
    # stderr only: over stdio, stdout carries the protocol
    logging.basicConfig(
        stream=sys.stderr,
        level=args.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    config = ServerConfig(
        allow_local=args.allow_local,
        rows_dir=args.rows_dir.resolve(),
        result_chars=args.result_chars,
        index=args.index.resolve() if args.index is not None else None,
        embedder=embedder_choice(args),
    )
    try:
        server = build_server(config)
    except ImportError:
        sys.stderr.write(MISSING_SDK + "\n")
        return 2
    if config.allow_local:
        logger.warning("--allow-local: loopback and private addresses will be fetched")
    if config.index is not None and not config.index.is_file():
        # not fatal: a crawl may build it later; until then search_docs says so
        logger.warning("--index %s: no such file yet; search_docs will say so", config.index)
    try:
        if args.http:
            serve_http(server, args.host, args.port, args.token)
        else:
            server.run("stdio")
    except KeyboardInterrupt:
        pass  # Ctrl-C is how a server is stopped
    finally:
        config.stopping.set()  # the crawls still running stop with the server
    return 0


if __name__ == "__main__":
    sys.exit(main())
