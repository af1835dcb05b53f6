"""The work of ``webmd mcp``'s tools, without the MCP SDK: input checks, the crawls
behind the tools (:mod:`webmd_spider.api`, no second crawler) and results bounded in
size. :mod:`webmd_spider.service.mcp_server` puts the MCP layer and the command on top.

* ``fetch_page``: a one-page crawl (``max_pages=1``, no links followed, no sitemap
  read), so robots.txt, the SSRF guard and every other rule of a crawl apply. A
  diagnostic row instead of a page is a :class:`ToolRefusal` with its message.
* ``crawl_site``: every row goes to a new rows file (JSON lines, under the server's
  rows folder) as it comes; the result holds the pages' Markdown up to the budget, in
  feed order, and a note naming what was cut and the file that has it.
* ``convert_html``: :func:`webmd_spider.api.convert`, no network.
* ``search_docs`` (a server started with ``--index FILE``):
  :func:`webmd_spider.index.searching.search` on the operator's index, each hit with the
  URL to cite and its text, within the same result budget (no hit's text over
  :data:`SEARCH_HIT_CHARS`).

Every crawl is given ``respect_robots``, ``allow_local`` and ``ssrf_allowlist``
explicitly (a job value beats any ``WEBMD_*`` setting), so only the operator's
``--allow-local`` lets loopback and private addresses through.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from webmd_spider import api
from webmd_spider.index.searching import EmbedderChoice, SearchError, check_query, search
from webmd_spider.items import Row
from webmd_spider.options import OptionsError
from webmd_spider.urls import PatternError, compile_pattern

logger = logging.getLogger(__name__)

#: the most pages one crawl_site call may ask for
MAX_PAGES_LIMIT = 200
#: crawl_site's default page budget
DEFAULT_CRAWL_PAGES = 20
#: characters of Markdown one tool result holds by default (the rest goes to a file)
RESULT_CHARS = 200_000
#: the smallest --result-chars: below it a result holds little more than its note
MIN_RESULT_CHARS = 1_000
#: the largest HTML convert_html accepts, in UTF-8 bytes
MAX_HTML_BYTES = 5 * 1024 * 1024
#: the longest URL a tool accepts (longer ones are abuse, not pages)
MAX_URL_CHARS = 2_048
#: include/exclude: at most this many patterns of at most this many characters each
MAX_PATTERNS = 50
MAX_PATTERN_CHARS = 500
#: time budgets of the crawls behind the tools: an agent waits for the answer
FETCH_RUN_SECS = 60.0
CRAWL_RUN_SECS = 180.0
#: crawls running at once; more calls wait (each crawl is a process and its workers)
MAX_CRAWLS = 2
#: failures and left-out pages named in a crawl summary (the rows file has them all)
MAX_LISTED = 20
#: a page is cut to the rest of the budget only when at least this much is left
MIN_CUT_CHARS = 200
#: where crawl_site writes its rows files, relative to the server's directory
ROWS_DIR = Path("output") / "mcp"
#: search_docs' default number of hits
DEFAULT_SEARCH_K = 5
#: the most characters of one hit's text a search result shows (a chunk may hold 10,000)
SEARCH_HIT_CHARS = 4_000


class ToolRefusal(Exception):
    """A tool call that cannot be answered: bad input, a refused or failed fetch. The
    message is written for the caller (an agent) to read and act on."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """What the operator decided when starting the server (no tool can change it)."""

    #: let loopback and private addresses through the SSRF guard (--allow-local)
    allow_local: bool = False
    #: the folder of crawl_site's rows files (absolute once the server starts)
    rows_dir: Path = ROWS_DIR
    #: characters of Markdown one result holds
    result_chars: int = RESULT_CHARS
    #: crawls running at once
    max_crawls: int = MAX_CRAWLS
    #: the index search_docs searches (--index); None: no search_docs tool
    index: Path | None = None
    #: how search_docs embeds queries (--embedder, --embed-url): the index's own by default
    embedder: EmbedderChoice = field(default_factory=EmbedderChoice)
    #: set when the server stops: every running crawl's child is stopped then (a crawl
    #: process runs in a session of its own, so nothing else would end it early)
    stopping: threading.Event = field(default_factory=threading.Event)


# The result classes are plain dataclasses (no slots): the SDK derives the tools' output
# schemas from them with pydantic, which reads a slot's descriptor as a default value.


@dataclass
class PageResult:
    """One page: what fetch_page and convert_html return (structured content)."""

    url: str
    title: str | None
    markdown: str
    #: the Markdown was cut to the result budget
    truncated: bool
    #: characters of the whole Markdown
    chars: int


@dataclass
class CrawledPage:
    """A page of a crawl_site result: shown whole, cut, or left out (file only)."""

    url: str
    title: str | None
    chars: int
    #: "full", "cut" or "omitted"
    shown: str
    markdown: str


@dataclass
class CrawlFailure:
    """A diagnostic row of a crawl: the URL that gave no page, and why."""

    url: str | None
    error_type: str | None
    error: str | None


@dataclass
class CrawlResult:
    """What crawl_site returns (structured content)."""

    url: str
    page_count: int
    failure_count: int
    #: why each website's crawl stopped (page_budget, finished, time_budget...)
    stop_reasons: list[str]
    #: some Markdown is not in this result (it is in rows_file)
    truncated: bool
    note: str
    #: every row of the crawl in full, one JSON object a line
    rows_file: str
    pages: list[CrawledPage] = field(default_factory=list)
    failures: list[CrawlFailure] = field(default_factory=list)


@dataclass
class SearchHit:
    """One hit of a search_docs result: where it is, the URL to cite, and its text."""

    rank: int
    title: str
    #: the headings above the chunk, the page's title first
    heading_path: list[str]
    #: the page's URL
    url: str
    #: the URL to cite: the page's URL with the section's anchor (or a text fragment)
    fragment: str
    #: higher is better (a fused rank score in hybrid mode)
    score: float
    #: a short window of the text around the query's words
    snippet: str
    #: the chunk's text as shown: whole, cut, or empty when no budget was left
    text: str
    #: "full", "cut" or "snippet" (the text left out: the snippet stands for it)
    shown: str
    #: characters of the chunk's whole text
    chars: int


@dataclass
class SearchResult:
    """What search_docs returns (structured content)."""

    query: str
    mode: str
    hit_count: int
    #: some hit's text is not whole in this result
    truncated: bool
    note: str
    hits: list[SearchHit] = field(default_factory=list)


# -- input checks ----------------------------------------------------------------------


def check_url(url: str) -> str:
    """The URL, stripped, when it is an absolute http(s) URL a tool may use; raises
    ToolRefusal naming the problem otherwise."""
    url = url.strip()
    if len(url) > MAX_URL_CHARS:
        raise ToolRefusal(f"url is longer than {MAX_URL_CHARS} characters")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError as exc:
        raise ToolRefusal(f"url {url!r} cannot be parsed: {exc}") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise ToolRefusal(f"url must be an http:// or https:// URL, got {url!r}")
    if not parts.hostname:
        raise ToolRefusal(f"url {url!r} has no host")
    return url


def check_patterns(name: str, patterns: Sequence[str]) -> list[str]:
    """Include or exclude patterns (globs or /regex/), each compiled here so a bad one
    is a tool error naming it rather than a row of the crawl; raises ToolRefusal."""
    if len(patterns) > MAX_PATTERNS:
        raise ToolRefusal(f"{name}: at most {MAX_PATTERNS} patterns, got {len(patterns)}")
    kept = []
    for pattern in patterns:
        if len(pattern) > MAX_PATTERN_CHARS:
            raise ToolRefusal(f"{name}: a pattern is longer than {MAX_PATTERN_CHARS} characters")
        try:
            compile_pattern(pattern)
        except PatternError as exc:
            raise ToolRefusal(f"{name}: {exc}") from None
        kept.append(pattern.strip())
    return kept


def check_html(html: str) -> None:
    """Refuse HTML over :data:`MAX_HTML_BYTES` (UTF-8) with a ToolRefusal."""
    size = len(html.encode("utf-8", "surrogatepass"))
    if size > MAX_HTML_BYTES:
        raise ToolRefusal(
            f"html is {size:,} bytes; convert_html takes at most {MAX_HTML_BYTES:,} bytes"
        )


# -- bounding results --------------------------------------------------------------------


def cut_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at a line end when one is in the
    second half (a cut inside a line leaves half a sentence or half a table row)."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    line_end = head.rfind("\n")
    return head[:line_end].rstrip() if line_end > limit // 2 else head


def page_result(row: Row, url: str, budget: int) -> PageResult:
    """A page row as a tool's page result, its Markdown cut to ``budget``."""
    markdown = row.markdown or ""
    shown = cut_text(markdown, budget)
    return PageResult(
        url=row.final_url or row.url or url,
        title=row.title,
        markdown=shown,
        truncated=len(shown) < len(markdown),
        chars=len(markdown),
    )


def render_page(page: PageResult) -> str:
    """A page result as the text an agent reads: title, URL, Markdown, and the note
    when it was cut."""
    lines = [f"Title: {page.title or '(none)'}", f"URL: {page.url}", "", page.markdown]
    if page.truncated:
        lines += ["", f"[Truncated: {len(page.markdown):,} of {page.chars:,} characters shown.]"]
    return "\n".join(lines)


def crawl_pages(rows: Sequence[Row], budget: int) -> list[CrawledPage]:
    """The page rows in feed order, shown whole while they fit in ``budget``; the
    first that does not fit is cut (when enough budget is left), the rest left out."""
    pages: list[CrawledPage] = []
    left = budget
    for row in rows:
        markdown = row.markdown or ""
        if len(markdown) <= left:
            shown, how = markdown, "full"
        elif left >= MIN_CUT_CHARS:
            shown, how = cut_text(markdown, left), "cut"
        else:
            shown, how = "", "omitted"
        left = left - len(shown) if how == "full" else 0
        url = row.final_url or row.url or ""
        pages.append(CrawledPage(url, row.title, len(markdown), how, shown))
    return pages


def truncation_note(pages: Sequence[CrawledPage], budget: int, rows_file: str) -> str:
    """What a crawl result left out and where it is; empty when nothing was."""
    cut = [p for p in pages if p.shown == "cut"]
    omitted = [p for p in pages if p.shown == "omitted"]
    if not cut and not omitted:
        return ""
    parts = [f"the result budget is {budget:,} characters of Markdown"]
    parts += [f"the page {p.url} is cut ({len(p.markdown):,} of {p.chars:,})" for p in cut]
    if omitted:
        named = ", ".join(p.url for p in omitted[:MAX_LISTED])
        more = f" and {len(omitted) - MAX_LISTED} more" if len(omitted) > MAX_LISTED else ""
        parts.append(f"{_count(len(omitted), 'page')} left out: {named}{more}")
    return (
        f"[Truncated: {'; '.join(parts)}. Every page's full Markdown is in the rows file "
        f"{rows_file} (JSON lines, the 'markdown' column).]"
    )


def _count(number: int, noun: str) -> str:
    """``1 page``, ``2 pages``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def render_crawl(result: CrawlResult) -> str:
    """A crawl result as the text an agent reads: the summary, then each page shown."""
    stops = ", ".join(result.stop_reasons) or "unknown"
    pages, failures = _count(result.page_count, "page"), _count(result.failure_count, "failure")
    lines = [
        f"Crawl of {result.url}: {pages}, {failures} (stopped: {stops}).",
        f"Rows file (every row in full, JSON lines): {result.rows_file}",
    ]
    if result.note:
        lines.append(result.note)
    if result.failures:
        lines.append("Failures:")
        lines += [f"- {f.url}: {f.error_type}: {f.error}" for f in result.failures]
        if result.failure_count > len(result.failures):
            lines.append(f"- and {result.failure_count - len(result.failures)} more")
    shown = [p for p in result.pages if p.shown != "omitted"]
    for number, page in enumerate(shown, 1):
        lines += ["", "---", f"Page {number} of {result.page_count}: {page.title or '(no title)'}"]
        lines += [f"URL: {page.url}", "", page.markdown]
        if page.shown == "cut":
            lines += ["", f"[Cut: {len(page.markdown):,} of {page.chars:,} characters shown.]"]
    return "\n".join(lines)


def search_hits(hits: Sequence[dict[str, Any]], budget: int) -> list[SearchHit]:
    """Search hits (:func:`~webmd_spider.index.searching.search`'s dicts), best first,
    as result hits: each text whole while it fits in :data:`SEARCH_HIT_CHARS` and what
    is left of ``budget``, else cut there (when enough is left), else left out (its
    snippet, URL and headings stay)."""
    shown: list[SearchHit] = []
    left = budget
    for rank, hit in enumerate(hits, 1):
        text = hit["text"] or ""
        room = min(SEARCH_HIT_CHARS, left)
        if len(text) <= room:
            kept, how = text, "full"
        elif room >= MIN_CUT_CHARS:
            kept, how = cut_text(text, room), "cut"
        else:
            kept, how = "", "snippet"
        left -= len(kept)
        shown.append(
            SearchHit(
                rank=rank,
                title=hit["title"] or "",
                heading_path=list(hit["heading_path"]),
                url=hit["url"],
                fragment=hit["fragment"] or hit["url"],
                score=hit["score"],
                snippet=hit["snippet"] or "",
                text=kept,
                shown=how,
                chars=len(text),
            )
        )
    return shown


def search_note(hits: Sequence[SearchHit], budget: int) -> str:
    """What a search result left out of the hits' texts; empty when nothing was."""
    cut = [h for h in hits if h.shown == "cut"]
    left_out = [h for h in hits if h.shown == "snippet"]
    if not cut and not left_out:
        return ""
    parts = [
        f"a hit shows at most {SEARCH_HIT_CHARS:,} characters of text, a result {budget:,} in all"
    ]
    if cut:
        parts.append(f"{_count(len(cut), 'hit')} cut ({', '.join(str(h.rank) for h in cut)})")
    if left_out:
        ranks = ", ".join(str(h.rank) for h in left_out)
        parts.append(f"{_count(len(left_out), 'hit')} shown by snippet only ({ranks})")
    return f"[Truncated: {'; '.join(parts)}. Fetch a hit's URL (fetch_page) for its whole section.]"


def render_search(result: SearchResult) -> str:
    """A search result as the text an agent reads: a summary, then each hit with its
    title, headings, the URL to cite and its text (or snippet)."""
    if not result.hits:
        return f"No hits for {json.dumps(result.query, ensure_ascii=False)} ({result.mode})."
    lines = [
        f"{_count(result.hit_count, 'hit')} for {json.dumps(result.query, ensure_ascii=False)} "
        f"({result.mode}), best first. Cite a hit by its URL."
    ]
    if result.note:
        lines.append(result.note)
    for hit in result.hits:
        lines += ["", "---", f"Hit {hit.rank}: {hit.title or '(no title)'}"]
        if hit.heading_path:
            lines.append(f"Section: {' > '.join(hit.heading_path)}")
        lines += [f"URL: {hit.fragment}", ""]
        if hit.shown == "snippet":
            lines.append(f"Snippet: {hit.snippet}")
        else:
            lines.append(hit.text)
        if hit.shown == "cut":
            lines += ["", f"[Cut: {len(hit.text):,} of {hit.chars:,} characters shown.]"]
    return "\n".join(lines)


# -- the tools' work (over webmd_spider.api) ------------------------------------------------


class Tools:
    """The tools' work for one server configuration, without the MCP layer (which
    :func:`build_server` adds). Each method returns a result or raises ToolRefusal."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        # crawls beyond the limit wait for a slot rather than start more processes
        self._slots = threading.BoundedSemaphore(config.max_crawls)

    def _crawl_options(self) -> dict[str, Any]:
        """Options every crawl of this server gets, given explicitly so that no WEBMD_*
        setting can loosen them: robots.txt obeyed, and loopback and private addresses
        refused by the SSRF guard unless the operator started the server with
        --allow-local."""
        return {
            "respect_robots": True,
            "allow_local": self.config.allow_local,
            "ssrf_allowlist": "",
        }

    @contextmanager
    def _crawling(self, start: str, **options: Any) -> Iterator[Iterator[Row]]:
        """The rows of a crawl of ``start``, in a crawl slot. The generator is closed on
        leaving, which stops the child crawl; option and crawl errors become
        ToolRefusal."""
        with self._slots:
            try:
                rows = api.crawl(
                    start, stop_event=self.config.stopping, **self._crawl_options(), **options
                )
            except OptionsError as exc:
                raise ToolRefusal(f"cannot crawl {start}: {exc}") from None
            try:
                yield rows
            except (OptionsError, api.CrawlError) as exc:
                raise ToolRefusal(f"the crawl of {start} failed: {exc}") from None
            finally:
                rows.close()

    def fetch_page(self, url: str, main_content_only: bool = True) -> PageResult:
        """Fetch one page by a one-page crawl (robots.txt and the SSRF guard apply)."""
        url = check_url(url)
        logger.info("fetch_page %s", url)
        options = {
            "max_pages": 1,
            "crawl_links": False,
            "discovery": "links",  # the start page only: no sitemap is read
            "main_content_only": main_content_only,
            "max_run_secs": FETCH_RUN_SECS,
        }
        with self._crawling(url, **options) as stream:
            rows = list(stream)
        page = next((r for r in rows if r.row_type == "page"), None)
        if page is not None:
            return page_result(page, url, self.config.result_chars)
        raise ToolRefusal(no_page_reason(url, rows))

    def crawl_site(
        self, url: str, max_pages: int, include: Sequence[str], exclude: Sequence[str]
    ) -> CrawlResult:
        """Crawl a website; every row goes to a new rows file as it comes."""
        url = check_url(url)
        if not 1 <= max_pages <= MAX_PAGES_LIMIT:
            raise ToolRefusal(f"max_pages must be 1..{MAX_PAGES_LIMIT}, got {max_pages}")
        options = {
            "max_pages": max_pages,
            "include_patterns": check_patterns("include", include),
            "exclude_patterns": check_patterns("exclude", exclude),
            "max_run_secs": CRAWL_RUN_SECS,
        }
        rows_file = self._rows_file(url)
        logger.info("crawl_site %s (max_pages %d) -> %s", url, max_pages, rows_file)
        rows: list[Row] = []
        try:
            with (
                self._crawling(url, **options) as stream,
                open(rows_file, "w", encoding="utf-8") as out,
            ):
                for row in stream:
                    rows.append(row)
                    out.write(json.dumps(row.to_dict(), ensure_ascii=False) + "\n")
        finally:
            if not rows:  # a crawl that never started: no empty file to name
                rows_file.unlink(missing_ok=True)
        pages = [r for r in rows if r.row_type == "page"]
        if not pages:
            raise ToolRefusal(f"{no_page_reason(url, rows)} (rows file: {rows_file})")
        return crawl_result(url, rows, self.config.result_chars, str(rows_file))

    def convert_html(self, html: str, url: str) -> PageResult:
        """Convert HTML the caller already has (no network)."""
        url = check_url(url)
        check_html(html)
        row = api.convert(html, url)
        if row.row_type != "page":
            raise ToolRefusal(f"{row.error_type}: {row.error}")
        return page_result(row, url, self.config.result_chars)

    def search_docs(self, query: str, k: int = DEFAULT_SEARCH_K) -> SearchResult:
        """Search the server's index (hybrid mode) for ``query``: the ``k`` best hits."""
        index = self.config.index
        if index is None:
            raise ToolRefusal("this server has no index: start it with webmd mcp --index FILE")
        try:
            text = check_query(query, k, "hybrid")
        except ValueError as exc:
            raise ToolRefusal(str(exc)) from None
        logger.info("search_docs %r (k %d)", text[:80], k)
        try:
            hits = search(index, text, k, mode="hybrid", embedder=self.config.embedder)
        except SearchError as exc:
            raise ToolRefusal(f"the index cannot be searched: {exc}") from None
        shown = search_hits(hits, self.config.result_chars)
        note = search_note(shown, self.config.result_chars)
        return SearchResult(
            query=text,
            mode="hybrid",
            hit_count=len(shown),
            truncated=bool(note),
            note=note,
            hits=shown,
        )

    def _rows_file(self, url: str) -> Path:
        """A new rows file for a crawl of ``url``: the time, the host and a random
        part, so two crawls never share one."""
        self.config.rows_dir.mkdir(parents=True, exist_ok=True)
        host = re.sub(r"[^A-Za-z0-9.-]+", "_", urlsplit(url).netloc)
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        return self.config.rows_dir / f"crawl-{stamp}-{host}-{secrets.token_hex(3)}.jsonl"


def no_page_reason(url: str, rows: Sequence[Row]) -> str:
    """Why a crawl of ``url`` gave no page: the start URL's diagnostic (else the first
    one), else the site row's stop reason."""
    diagnostics = [r for r in rows if r.row_type == "diagnostic"]
    own = next((r for r in diagnostics if url in (r.url, r.input)), None)
    first = own or (diagnostics[0] if diagnostics else None)
    if first is not None:
        return f"no page from {url}: {first.error_type}: {first.error}"
    stops = [r.stop_reason for r in rows if r.row_type == "site" and r.stop_reason]
    return f"no page from {url} (the crawl stopped: {', '.join(stops) or 'no rows'})"


def crawl_result(url: str, rows: Sequence[Row], budget: int, rows_file: str) -> CrawlResult:
    """The crawl_site result of these rows: pages within ``budget``, the failures, the
    stop reasons and the truncation note."""
    pages = crawl_pages([r for r in rows if r.row_type == "page"], budget)
    diagnostics = [r for r in rows if r.row_type == "diagnostic"]
    note = truncation_note(pages, budget, rows_file)
    return CrawlResult(
        url=url,
        page_count=len(pages),
        failure_count=len(diagnostics),
        stop_reasons=[r.stop_reason for r in rows if r.row_type == "site" and r.stop_reason],
        truncated=bool(note),
        note=note,
        rows_file=rows_file,
        pages=pages,
        failures=[CrawlFailure(r.url, r.error_type, r.error) for r in diagnostics[:MAX_LISTED]],
    )
