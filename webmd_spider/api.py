"""The Python API: ``crawl``, ``convert`` and ``CrawlOptions``.

::

    from webmd_spider import crawl, CrawlOptions

    for row in crawl("https://docs.example.org/", max_pages=20, chunk_tokens=400):
        if row.row_type == "page":
            print(row.url, row.title, len(row.chunks or []))

* :func:`crawl` runs ``scrapy crawl site`` in a child process (Twisted's reactor cannot
  be started twice in one process, and a notebook runs many crawls) and yields each
  row as the child writes it to its feed: :class:`~webmd_spider.items.Row` objects,
  the same rows as ``webmd crawl --out rows.jsonl`` writes. Breaking out of the loop,
  closing the generator or Ctrl-C stops the child (SIGINT first, as a terminal's
  Ctrl-C would: it finishes its open pages; then SIGKILL after a grace period).
* :func:`convert` converts one HTML page without crawling and returns its page row:
  the same schema, built by the same functions as a crawled page's row
  (``offload.page_work.extract_page`` then ``rows.page_rows.build_page_row``), with
  the crawl-only columns (status code, depth, timings...) left ``None``.
* :data:`CrawlOptions` *is* the spider's option object (``options.JobOptions``): one
  field per ``-a`` option, the same names, defaults and validation. There is one
  definition of the options, not two.

Errors are exceptions with the command line's messages: :class:`OptionsError` for an
option or start the crawl cannot use (raised before any process starts, or with the
child's one-line "Cannot start the crawl" reason), :class:`CrawlError` when the child
fails otherwise.
"""

from __future__ import annotations

import contextlib
import json
import logging
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Generator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from webmd_spider.crawl_process import CrawlChild, job_values, start_crawl
from webmd_spider.documents import MARKDOWN
from webmd_spider.index.searching import EmbedderChoice
from webmd_spider.index.searching import search as search_index
from webmd_spider.items import COLUMNS, Row
from webmd_spider.offload.page_work import HTML, extract_page
from webmd_spider.options import JobOptions, OptionsError, build_options
from webmd_spider.policy.netguard import LOCAL_ALLOWLIST, AddressPolicy
from webmd_spider.rows.hints import hints
from webmd_spider.rows.page_rows import build_page_row
from webmd_spider.urls import parse_start_inputs

#: The options of a crawl: the spider's own option object (see the module docstring).
CrawlOptions = JobOptions

#: how often the feed is read while the child runs, seconds
POLL_SECS = 0.05
#: how long a stopped child may take to finish its open pages before it is killed
STOP_GRACE_SECS = 20.0
#: what marks the child's start-up refusal in its log (spiders/site.py logs it)
START_REFUSAL = "Cannot start the crawl: "

logger = logging.getLogger(__name__)

__all__ = [
    "CrawlError",
    "CrawlOptions",
    "OptionsError",
    "changes",
    "convert",
    "crawl",
    "crawl_values",
    "search",
]


class CrawlError(RuntimeError):
    """The crawl process failed (not an option problem: those are OptionsError)."""


def crawl_values(
    start: str | Sequence[str] | None,
    options: JobOptions | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The option values a crawl is started with: ``options`` (only what differs from
    the defaults), then ``overrides`` by option name, then ``start``. Validated here
    with the spider's messages; raises OptionsError."""
    values: dict[str, Any] = job_values(options) if options is not None else {}
    values.update(overrides or {})
    if start is not None:
        values["start"] = [start] if isinstance(start, str) else list(start)
    if not values.get("start") and not values.get("start_file"):
        raise OptionsError("nothing to crawl: give a start URL (or start_file)")
    build_options({}, values)  # the spider's validation, before a process starts
    return values


def crawl(
    start: str | Sequence[str] | None = None,
    options: JobOptions | None = None,
    /,
    *,
    settings: Mapping[str, Any] | None = None,
    stop_event: threading.Event | None = None,
    **overrides: Any,
) -> Generator[Row, None, dict[str, Any]]:
    """Crawl ``start`` (a URL or several) and yield every row as it is written.

    ``options`` is a :data:`CrawlOptions`; keyword arguments override its fields by
    name (``max_pages=20``, ``allow_local=True``...). ``settings`` are Scrapy settings
    for the child (``{"LOG_LEVEL": "DEBUG"}``). Raises OptionsError for an unusable
    option before anything starts, and for a loopback or private start URL (127.0.0.1,
    ``localhost``, 10.x, 192.168.x, fc00::/7...) that the SSRF guard would refuse:
    pass ``allow_local=True`` to crawl your own machine or network (or
    ``ssrf_allowlist``). Passing ``allow_local=False`` explicitly keeps the guard's
    answer instead: the start's ``blocked`` row (what a service crawling for others
    wants). Rows come in the order the feed has them: page and
    diagnostic rows as pages finish, each website's site row after its pages. The
    options are checked at the call; the child starts at the first ``next()``.

    ``stop_event`` lets another thread end the crawl: once it is set, the child is
    stopped as Ctrl-C would stop it, and the rows it still writes are yielded (its site
    rows among them). The generator's return value (``StopIteration.value``, or what
    ``yield from`` gives) is the run summary (``<feed>.summary.json``: rows and errors
    by type, rejected and not-fetched counts by reason...), ``{}`` when none was written.
    When no page was written it also holds ``hints``: what to try, naming the cause
    ("no such host: NAME", "nothing listening on HOST:PORT", "plain HTTP on this port:
    use http://..."), each also logged as a warning.
    """
    values = crawl_values(start, options, overrides)  # raises here, at the call
    if "allow_local" not in overrides:
        refuse_local_starts(values, settings or {})
    pairs = [(str(k), _setting_value(v)) for k, v in (settings or {}).items()]
    return _rows(values, pairs, stop_event)


def changes(
    start: str | Sequence[str] | None = None,
    options: JobOptions | None = None,
    /,
    *,
    settings: Mapping[str, Any] | None = None,
    **overrides: Any,
) -> Iterator[dict[str, Any]]:
    """Crawl ``start`` incrementally and yield the chunk-level change feed the run
    implies: ``{"op": "upsert", ...}`` and ``{"op": "delete", ...}`` records
    (``docs/design/search-index.md``, README "Change feed"), one page's together.

    The same arguments as :func:`crawl`. Without ``changes=FILE`` the feed goes to a
    temporary file that is read once the crawl ends; name ``state=`` (and
    ``state_dir=``) to keep the memory of what the previous run emitted, as a nightly
    job does, or ``index=FILE`` to compute it against a search index. Options are
    checked at the call; the crawl runs at the first ``next()``."""
    given = overrides.get("changes") or (options.changes if options is not None else "")
    values_check = {**overrides, "changes": given or "changes.jsonl"}
    crawl_values(start, options, values_check)  # raises here, at the call
    return _changes(start, options, settings, overrides, given)


def _changes(
    start: str | Sequence[str] | None,
    options: JobOptions | None,
    settings: Mapping[str, Any] | None,
    overrides: dict[str, Any],
    given: str,
) -> Iterator[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="webmd-changes-") as folder:
        path = Path(given) if given else Path(folder) / "changes.jsonl"
        rows = crawl(start, options, settings=settings, **{**overrides, "changes": str(path)})
        for _ in rows:
            pass
        if not path.exists():
            return
        with path.open("rb") as handle:
            for line in handle:
                if line.strip():
                    yield json.loads(line)


def search(
    index: str | Path,
    query: str,
    k: int = 10,
    *,
    mode: str = "hybrid",
    embedder: str | None = None,
    embed_url: str = "",
    embed_model: str = "",
) -> list[dict[str, Any]]:
    """The `k` best chunks of a search index (``webmd crawl URL --index FILE``) for
    `query`, best first: dicts with ``chunk_id``, ``url``, ``fragment`` (the URL to
    cite: the page with its heading's anchor or text fragment), ``title``,
    ``heading_path``, ``score``, ``snippet`` and ``text``. ``mode`` is ``hybrid``
    (default), ``keyword`` or ``vector``. ValueError for an empty or too long query
    (``index.searching.MAX_QUERY_CHARS``) or a bad `k`/mode; ``SearchError`` for an
    index that cannot be searched."""
    if embed_url and not embedder:
        embedder = "http"
    choice = EmbedderChoice(spec=embedder, embed_url=embed_url, embed_model=embed_model)
    return search_index(index, query, k, mode=mode, embedder=choice)


def refuse_local_starts(values: Mapping[str, Any], settings: Mapping[str, Any]) -> None:
    """Raise OptionsError, naming ``allow_local=True``, when a start URL of ``values``
    (validated option values) is a loopback or private address that the crawl's SSRF
    guard would refuse but ``allow_local`` would let through: a crawl that could only
    write one ``blocked`` row. Nothing is resolved (no DNS): only a host that is an IP
    address, or ``localhost`` / ``*.localhost``, can be local here. ``ssrf_allowlist``
    (the option, or ``WEBMD_SSRF_ALLOWLIST`` in ``settings``) and ``allow_local`` set
    anywhere (options, settings, a job file) are respected: they let the start
    through, and nothing is raised."""
    opts = build_options(settings, values)
    if opts.allow_local:
        return
    try:
        guard = AddressPolicy.from_allowlist(opts.ssrf_allowlist or None)
    except ValueError:
        return  # the child reports a bad allowlist, with the spider's message
    local = AddressPolicy.from_allowlist(" ".join((opts.ssrf_allowlist, *LOCAL_ALLOWLIST)))
    for start in parse_start_inputs(" ".join(opts.start)):
        if start.kind == "invalid" or not start.url:
            continue  # the child writes its invalid-input row
        refusal = guard.refusal_for_url(start.url)
        if refusal is not None and local.refusal_for_url(start.url) is None:
            raise OptionsError(
                f"{start.url} is refused by the SSRF guard: {refusal}. To crawl a site on "
                "your own machine or network, pass allow_local=True (or let this one "
                "host through with ssrf_allowlist='HOST:PORT')"
            )


def _rows(
    values: dict[str, Any], settings: list[tuple[str, str]], stop_event: threading.Event | None
) -> Generator[Row, None, dict[str, Any]]:
    """The rows of a crawl started with these (validated) values, then its summary; the
    child is stopped when the generator is closed or left, or ``stop_event`` is set."""
    with tempfile.TemporaryDirectory(prefix="webmd-crawl-") as folder:
        feed = Path(folder) / "rows.jsonl"
        log = Path(folder) / "crawl.log"
        child = start_crawl(
            values,
            feed=feed,
            settings=settings,
            log_file=log,
            display="none",
            new_session=True,  # our stop signal, not the terminal's, reaches it
            stderr=subprocess.DEVNULL,
        )
        errors: list[str] = []  # the diagnostic rows' sentences, for the hints
        try:
            yield from _follow(child, stop_event, errors)
            code = child.process.wait()
            if code != 0 and not (stop_event is not None and stop_event.is_set()):
                raise _failure(log, code)
            return _with_hints(read_summary(child.summary_file), errors)
        finally:
            stop(child)
            child.cleanup()


def _with_hints(summary: dict[str, Any], errors: list[str]) -> dict[str, Any]:
    """``summary`` with ``hints`` (what ``webmd crawl`` prints when no page was
    written: "no such host: NAME", "nothing listening on HOST:PORT"...), each also
    logged as a warning, so that a crawl that gave nothing says why (issue 31)."""
    if not summary:
        return summary
    found = hints(summary, errors)
    if found:
        summary["hints"] = found
        for hint in found:
            logger.warning("the crawl wrote no page: %s", hint)
    return summary


def convert(
    html: str | bytes,
    url: str = "",
    options: JobOptions | None = None,
    /,
    *,
    encoding: str | None = None,
    markdown: bool = False,
    **overrides: Any,
) -> Row:
    """Convert one HTML page (text, always read as HTML; or bytes whose charset is
    sniffed), or the bytes of a PDF or DOCX document (recognised by their first bytes),
    to its page row; or to a
    diagnostic row: ``empty`` when it holds no text, ``unsupported`` for a document that
    cannot be read (encrypted, damaged, image-only PDF).

    ``url`` is the page's address: links resolve against it, and it is the row's
    ``url``. Without one (``""``) relative links stay in the Markdown as written, the
    row's ``links`` and ``images`` list relative targets as written (a relative link
    is ``internal``) and its ``url`` is None. With ``markdown=True`` the input is
    Markdown (or plain text): it is passed through as the row's ``markdown``, its title
    is its first heading and ``extraction_method`` is ``"markdown"``
    (``documents.markdown_input``).

    The content options of ``options`` apply (``keep_links``, ``keep_images``,
    ``keep_captions``, ``keep_frames``, ``include_html``, ``max_chars``), and the chunk
    options: with ``chunk_tokens`` (or ``chunk_size``) the row carries its chunks.
    Keyword arguments override fields by name. ``encoding`` is the charset of bytes
    when known (else sniffed; text is taken as it is). Never raises for any page;
    raises OptionsError for an unusable option.
    """
    # validated like a crawl's options (a hand-built CrawlOptions too)
    opts = build_options({}, {**job_values(options or JobOptions()), **overrides})
    body = html.encode("utf-8") if isinstance(html, str) else html
    if isinstance(html, str):
        encoding = "utf-8"
    elif markdown and encoding:
        # the Markdown reader takes UTF-8: re-encode bytes of another declared charset
        body = html.decode(encoding, "replace").encode("utf-8")
    size, overlap = opts.chunk_budget
    # text is HTML; bytes may be a PDF or DOCX document (recognised by their first bytes)
    kind = MARKDOWN if markdown else HTML if isinstance(html, str) else None
    work = extract_page(body, url, encoding, opts.extract_options, size, overlap, kind)
    context = {"url": url or None, "final_url": url or None}
    row = build_page_row(work.document, work.columns, **context)
    if work.chunks is not None and row.row_type == "page":
        row.chunks, row.chunk_count = work.chunks, len(work.chunks)
    return row


def row_from_dict(data: Mapping[str, Any]) -> Row:
    """A :class:`Row` from a feed line's object (columns it does not know are left
    out, so a newer feed still reads)."""
    return Row(**{k: v for k, v in data.items() if k in _COLUMN_SET})


_COLUMN_SET = frozenset(COLUMNS)


def stop(child: CrawlChild, grace: float = STOP_GRACE_SECS) -> None:
    """Stop a running child as Ctrl-C would (SIGINT: Scrapy closes the spider and
    writes what it has), then kill it if it has not exited after ``grace`` seconds.
    Reaps it either way: no orphan or zombie is left."""
    process = child.process
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        process.wait()


def read_summary(path: Path) -> dict[str, Any]:
    """The run summary a crawl wrote (``<feed>.summary.json``), or ``{}`` when it is
    missing or unreadable."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _follow(
    child: CrawlChild, stop_event: threading.Event | None = None, errors: list[str] | None = None
) -> Iterator[Row]:
    """Yield the rows of the child's feed as whole lines reach it, until the child has
    exited and the last line is read. When ``stop_event`` is set, the child is sent
    SIGINT once (it finishes its open pages and writes its site rows), and reading
    goes on until it exits. The diagnostic rows' sentences are added to ``errors``."""
    pending = b""
    handle = None
    signalled_at: float | None = None
    try:
        while True:
            if stop_event is not None and stop_event.is_set() and signalled_at is None:
                signalled_at = time.monotonic()
                with contextlib.suppress(ProcessLookupError):
                    child.process.send_signal(signal.SIGINT)
            elif signalled_at is not None and time.monotonic() - signalled_at > STOP_GRACE_SECS:
                # a child that does not finish its open pages in the grace period
                with contextlib.suppress(ProcessLookupError):
                    child.process.kill()
            running = child.process.poll() is None
            if handle is None and child.feed.exists():
                handle = open(child.feed, "rb")  # noqa: SIM115 - closed in finally
            if handle is not None:
                pending += handle.read()
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    if line.strip():
                        row = row_from_dict(json.loads(line))
                        if errors is not None and row.row_type == "diagnostic" and row.error:
                            errors.append(row.error)
                        yield row
            if not running:
                return
            time.sleep(POLL_SECS)
    finally:
        if handle is not None:
            handle.close()


def start_refusal(log: Path) -> str | None:
    """The child's one-line start-up refusal ("Cannot start the crawl: <reason>") from
    its log, or None."""
    with contextlib.suppress(OSError):
        for line in log.read_text("utf-8", "replace").splitlines():
            if START_REFUSAL in line:
                return line.split(START_REFUSAL, 1)[1].strip()
    return None


def _failure(log: Path, code: int) -> Exception:
    """The exception for a child that exited with ``code``: its start-up refusal as an
    OptionsError (the CLI's one-line message), else a CrawlError with its last error."""
    refusal = start_refusal(log)
    if refusal is not None:
        return OptionsError(refusal)
    last_error = ""
    with contextlib.suppress(OSError):
        for line in log.read_text("utf-8", "replace").splitlines():
            if "ERROR" in line or "CRITICAL" in line:
                last_error = line.strip()
    reason = last_error or "no error logged"
    return CrawlError(f"the crawl process exited with code {code}: {reason}")


def _setting_value(value: Any) -> str:
    """A Scrapy setting's value as ``-s NAME=VALUE`` text (dicts and lists as JSON)."""
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)
