"""What each page answer becomes: a ``page`` row, a ``diagnostic`` row, a duplicate or
nothing (skipped), plus the links to follow.

The decisions that need only the answer's facts and the website's state are pure
(``page_flow``); this is where they meet the run: the extraction (here or done by an
extraction process), the duplicate checks on written pages (same final URL,
rel=canonical already written, same ``content_hash``), the budgets, the incremental
state and the resume journal. A PDF or DOCX answer (``parse_documents``) takes the same
path as an HTML page, converted by ``documents`` instead of the HTML extractor: the
same budgets, robots directives, duplicate checks, incremental state and file tree; one
that cannot be converted is an ``unsupported`` row. Within one website and run a page
is written once: a discovered page (not a URL the user typed) whose ``content_hash``
equals a written page's, or in an incremental run a still-known page's of an earlier
run, is rejected as ``duplicate:content of URL`` (its links are still followed).

Why one file of over 500 lines: an answer, a failure and a document are three doors to
one row-making path (duplicates, budgets, incremental state, the recorder), kept
together so that no door skips a step.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.http import Response
from twisted.python.failure import Failure

from webmd_spider.crew import Crew
from webmd_spider.documents import declared_kind, document_kind, sniff
from webmd_spider.extract import Document, ExtractOptions
from webmd_spider.items import SKIPPED, Row, diagnostic_row, page_row
from webmd_spider.offload.page_work import PageWork, extract_page
from webmd_spider.offload.pool import ExtractionTimeout, PoolClosed
from webmd_spider.options import JobOptions
from webmd_spider.page_flow import (
    DIAGNOSTIC,
    DUPLICATE,
    EXTRACT,
    NOT_MODIFIED,
    SKIP,
    Answer,
    Outcome,
    WebsiteView,
    canonical_duplicate,
    content_refusal,
    decide_answer,
)
from webmd_spider.policy.politeness import MAX_REFUSALS_PER_SITE
from webmd_spider.rows.ledger import RunLedger, SiteState
from webmd_spider.rows.page_rows import (
    UNTYPED,
    build_page_row,
    classify_response,
    robots_directives,
)
from webmd_spider.spiders.budgets import SiteBudgets
from webmd_spider.spiders.clock import STOP_REASONS, RunClock, aborted_message
from webmd_spider.spiders.failures import classify_fetch_failure
from webmd_spider.spiders.frontier import Frontier
from webmd_spider.spiders.incremental_state import IncrementalState, validators_of
from webmd_spider.spiders.offloading import Extracted
from webmd_spider.spiders.recorder import RowRecorder
from webmd_spider.spiders.responses import (
    charset_of,
    content_key,
    content_type_of,
    location_of,
    loop_message,
    remember_content,
    response_ms,
    text_key,
    thin_loop_row,
)
from webmd_spider.spiders.sitemap_judge import SitemapJudge
from webmd_spider.state.changes import (
    CHANGED,
    CONTENT_HASH,
    NEW,
    NOT_MODIFIED_EVIDENCE,
    REMOVED,
    UNCHANGED,
)
from webmd_spider.state.journal import CrawlJournal
from webmd_spider.urls import canonicalize, site_key


class PageAnswers:
    """Turns page answers and failures into rows and links to follow."""

    def __init__(
        self,
        options: JobOptions,
        extract_options: ExtractOptions,
        ledger: RunLedger,
        recorder: RowRecorder,
        judge: SitemapJudge,
        budgets: SiteBudgets,
        incremental: IncrementalState,
        journal: CrawlJournal | None,
        crew: Crew,
        clock: RunClock,
        frontier: Frontier,
        crawler: Crawler | None,
    ) -> None:
        self.options = options
        self.extract_options = extract_options
        self.ledger = ledger
        self.recorder = recorder
        self.judge = judge
        self.budgets = budgets
        self.incremental = incremental
        self.journal = journal
        self.crew = crew
        self.clock = clock
        self.frontier = frontier
        self.crawler = crawler
        #: websites whose octet-stream HTML pages were told about (_note_untyped)
        self._untyped_noted: set[str] = set()

    def _inc_stat(self, key: str, count: int = 1) -> None:
        if self.crawler is not None and self.crawler.stats is not None:
            self.crawler.stats.inc_value(key, count)

    # -- an answer ---------------------------------------------------------------------
    def needs_extraction(self, response: Response) -> bool:
        """The cheap checks of ``rows`` that come before extraction, so that no page is
        sent to an extraction process for nothing. ``rows`` takes them again after the
        await, where they decide: meanwhile the page budget may have been reached, or
        another URL of the same page written."""
        meta = response.meta
        if meta.get("webmd_refused") or response.status == 304:
            return False
        site = self.ledger.sites.get(meta.get("webmd_site", ""))
        if site is None or self.clock.stopped(site) is not None:
            return False
        kind = self.document_of(response)
        if kind is not None and sniff(response.body) != kind:
            # only declared a document: converted here, where the declared kind is
            # known (an extraction process judges by the bytes alone)
            return False
        problem = classify_response(
            response.status, content_type_of(response), response.body, location_of(response),
            documents=kind is not None,
        )  # fmt: skip
        return problem is None and canonicalize(response.url) not in site.emitted

    def _options_for(self, site: SiteState) -> ExtractOptions:
        """The extractor's options for a page of `site`: with ``remove_repeated_blocks``,
        its website's repeated paragraphs so far."""
        if not self.options.remove_repeated_blocks:
            return self.extract_options
        return replace(self.extract_options, repeated_paragraphs=site.repeated.repeated())

    def document_of(self, response: Response) -> str | None:
        """The document kind (``"pdf"``, ``"docx"``) a 2xx answer is converted as, by
        its bytes or its ``Content-Type``; None for anything else, and for every answer
        when ``parse_documents`` is off (then a PDF is ``not-html``, as before)."""
        if not self.options.parse_documents or not 200 <= response.status < 300:
            return None
        return document_kind(content_type_of(response), response.body)

    def rows(self, response: Response, work: Extracted = None) -> Iterator[Any]:
        """The rows of one page answer and the requests of its links (``work``: what an
        extraction process made of it, if one did)."""
        meta = response.meta
        site = self.ledger.sites[meta["webmd_site"]]
        content_type = content_type_of(response)
        final = canonicalize(response.url)
        loop = loop_message(meta, response.url) if meta.get("webmd_redirect_loop") else None
        answer = Answer(
            url=response.url,
            status=response.status,
            content_type=content_type,
            body=response.body,
            location=location_of(response),
            refused=meta.get("webmd_refused"),
            conditional=bool(meta.get("webmd_conditional")),
            redirected=bool(meta.get("redirect_urls")),
            redirect_loop=loop,
        )
        view = WebsiteView(
            stopped=self.clock.stopped(site),
            past_grace=self.clock.past_grace(),
            run_stop_reason=self.ledger.stop_reason,
            written=final in site.emitted,
            pool_closed=isinstance(work, PoolClosed),
            timeout_secs=work.seconds if isinstance(work, ExtractionTimeout) else None,
        )
        outcome = decide_answer(answer, view)
        kind = self.document_of(response)
        if kind is not None and outcome.kind == DIAGNOSTIC and outcome.error_type == "not-html":
            # `decide_answer` judges HTML: a document passed every check before that one
            # (stopped, refused, 304), and the checks after it apply as they are
            outcome = _document_outcome(answer, view)
        if outcome.kind == SKIP:
            # The request was sent: its URL ends as a row naming the stop (issue 31:
            # nothing sent goes without a row), never as a not-fetched entry. Not its
            # page row: the stop (a budget, the grace) allows no more of them.
            detail = f"its answer (HTTP {response.status}) came after the stop"
            reason = outcome.message or self.ledger.stop_reason or "shutdown"
            yield self._aborted(site, meta, reason, detail, status_code=response.status)
            return
        common = self.row_context(site, meta)
        key = canonicalize(meta["webmd_url"])
        if outcome.kind == NOT_MODIFIED:
            yield from self._not_modified(site, response, common, key)
            return
        served = (content_type or "").split(";")[0].strip().lower()
        untyped = outcome.html and served in UNTYPED
        if untyped:
            self._note_untyped(site, response.url, served)
        if outcome.kind == DUPLICATE:
            self._duplicate(site, meta, key, outcome.message or "")
            return
        if outcome.kind == DIAGNOSTIC:
            if outcome.mark_written:
                site.emitted.add(final)  # another URL of this page is not converted again
            row = diagnostic_row(
                outcome.error_type or "", outcome.message or "", **common,
                status_code=response.status,
            )  # fmt: skip
            retry: list[tuple[str, int, str]] = []
            if outcome.gone and key in self.incremental.known(site.website):
                row.change = REMOVED  # a tombstone: the page is gone and leaves the state
                self.incremental.forget(key, site.website)
                # a page its sitemap still dated as unchanged is gone: the dates lie
                self.frontier.lastmod.outcome(site, key, True, response.url)
                retry = site.copies_of_known.pop(key, [])
            self.recorder.record(row)
            self.budgets.missed(site)
            yield row
            for url, depth, via in retry:
                # a page refused as a copy of this one (a renamed page found before its
                # old URL's 404): the copy is the page now, fetched again and written
                request = self.frontier.page_request(site, url, canonicalize(url), depth, via)
                yield request.replace(dont_filter=True)
            return
        if isinstance(work, PageWork):
            self._inc_stat("webmd/extractions_in_workers")
        else:  # the same work as an extraction process's (offload.page_work), done here
            work = extract_page(
                response.body, response.url, charset_of(response), self._options_for(site),
                *self.options.chunk_budget, document=kind,
            )  # fmt: skip
        served_as = served if untyped else None
        if kind is not None and declared_kind(served) != kind:
            served_as = served or "no content type"
        yield from self._page(response, site, work, common, key, final, content_type, served_as)

    def _page(
        self,
        response: Response,
        site: SiteState,
        work: PageWork,
        common: dict[str, Any],
        key: str,
        final: str,
        content_type: str | None,
        served_as: str | None,
    ) -> Iterator[Any]:
        """A page, extracted (or a document, converted): its row (or why it has none)
        and its links (``content_type``: the header as served; ``served_as``: the type
        an HTML body or a document was served as when it says otherwise, else None)."""
        meta = response.meta
        doc, columns, chunks = work.document, work.columns, work.chunks
        kind = work.kind
        self._inc_stat("webmd/extractions")
        headers = response.headers.getlist(b"X-Robots-Tag")
        x_robots = "\n".join(h.decode("latin-1") for h in headers) or None
        token = self.options.robots_token
        directives = robots_directives(doc.meta_robots, x_robots, token=token)
        follow = self.frontier.follow_links
        if canonical_duplicate(doc.canonical, site.website, final, site.emitted, site.declared):
            # Not written again, but its links are still followed: paginated lists and
            # sites that point every page's canonical at the home page hide the rest.
            self._duplicate(site, meta, key, f"canonical is {doc.canonical}")
            yield from follow(site, doc, directives, meta["webmd_depth"], response)
            return
        # a challenge page is HTML: a document's bytes say nothing of one
        body = b"" if kind is not None else response.body
        refusal = content_refusal(directives, doc.word_count, doc.title, body)
        if refusal is not None:
            site.emitted.add(final)
            row = self.recorder.record(
                diagnostic_row(*refusal, **common, status_code=response.status)
            )
            self.budgets.missed(site)
            yield row
            return
        row = build_page_row(
            doc,
            columns,
            **common,
            final_url=response.url,
            status_code=response.status,
            content_type=content_type,
            response_time_ms=response_ms(meta),
            sitemap_lastmod=site.lastmod.get(key),
        )
        if served_as is not None and row.row_type == "page":
            read_as = "an HTML document, read as HTML"
            if kind is not None:
                read_as = f"a {kind.upper()} document, read as {kind.upper()}"
            row.notes = [f"served as {served_as}; the body is {read_as}", *(row.notes or [])]
        if meta.get("webmd_redirect_loop") and row.row_type == "page" and row.thin:
            # a page refreshing (meta refresh) in a loop with next to no text of its own
            # ("moved"): a redirect stub, not a page (and no content to deduplicate)
            row = thin_loop_row(row)
        if row.row_type == "page" and row.page_type in self.options.skip_page_types:
            yield from self._skipped(site, row, doc, directives, response, common, key, final)
            return
        if row.row_type == "page":
            # same content as a page written (a soft 404, /a/ and /a/index.html): not
            # written again; its links are followed like a canonical duplicate's (the
            # failure budget bounds a soft-404 maze that links ever new URLs)
            earlier = self._content_duplicate(site, row.content_hash, meta, final)
            if earlier is None and meta["webmd_via"] != "input":
                # the same text with other link targets (dir/ and dir/index.html)
                earlier = site.content.get(text_key(row.markdown) or b"")
            if earlier is not None and earlier not in site.emitted:
                # a copy of a page an earlier run wrote and this one has not re-checked
                # yet: if that page turns out gone, this copy is fetched again
                site.copies_of_known.setdefault(earlier, []).append(
                    (meta["webmd_url"], meta["webmd_depth"], meta["webmd_via"])
                )
            if earlier is not None:
                self._duplicate(site, meta, key, f"content of {earlier}")
                yield from follow(site, doc, directives, meta["webmd_depth"], response, row)
                return
            if not self.budgets.claim_page(site, response.url):
                return
        if chunks is not None and row.row_type == "page":
            row.chunks, row.chunk_count = chunks, len(chunks)
        site.emitted.add(final)
        if row.row_type == "page" and self.options.remove_repeated_blocks:
            site.repeated.add_page(doc.paragraph_keys)  # what the next pages may leave out
        if row.row_type == "page" and self.incremental.enabled:
            nofollow = doc.nofollow or bool(directives & {"nofollow", "none"})
            self._compare_with_state(site, row, doc, response, key, nofollow)
            if row.change in (UNCHANGED, CHANGED):
                row.change_evidence = CONTENT_HASH
            self.frontier.lastmod.outcome(site, key, row.change != UNCHANGED, response.url)
        elif row.row_type == "page" and self.incremental.requested:
            row.change = NEW  # the state is unusable: every page is new (see the warning)
        if row.row_type == "page":
            row.noindex = bool(directives & {"noindex", "none"})
            remember_content(site, row.content_hash, final, row.markdown)
            if doc.canonical and site_key(doc.canonical) == site.website:
                # A later page declaring the same canonical URL is a duplicate. The URL
                # itself is not marked as seen or written: nothing was fetched there, and
                # a page may name any other page (when it was a true copy of this one,
                # its content hash says so once it is fetched).
                canonical = canonicalize(doc.canonical)
                if canonical != final:
                    site.declared.add(canonical)
        if row.row_type != "page" and meta.get("webmd_redirect_loop"):
            # a page refreshing (meta refresh) in a loop, too thin to be a page
            row.error = f"{loop_message(meta, response.url)}; {row.error}"
        self.recorder.record(row)  # counted before it is handed on: the budgets act at once
        if row.row_type != "page":
            self.budgets.missed(site)
            yield row
            if row.error_type == "empty":
                # a script's shell or a redirect page still links its site (Javadoc's
                # index.html: a script redirect, and a link to module-summary.html):
                # its links are followed as a page's are
                yield from follow(site, doc, directives, meta["webmd_depth"], response, row)
            return
        if row.chunks is not None and row.markdown:
            # the chunks the row carries (an unchanged page's were dropped with its text)
            self._inc_stat("webmd/chunks", len(row.chunks))
        self.budgets.check_page_budget(site)
        yield row
        yield from follow(site, doc, directives, meta["webmd_depth"], response, row)

    def _skipped(
        self,
        site: SiteState,
        page: Row,
        doc: Document,
        directives: set[str],
        response: Response,
        common: dict[str, Any],
        key: str,
        final: str,
    ) -> Iterator[Any]:
        """A page of a type in ``skip_page_types``: a ``skipped`` row naming its type
        (with its ``page_type`` and ``page_type_evidence``), then its links, followed
        as a written page's are (a listing leads to the content a user keeps; an
        index-like one's queue one step behind). It spends neither budget
        (``SiteBudgets.skipped``)."""
        meta = response.meta
        site.emitted.add(final)  # another URL of the same page is not converted again
        if key in self.incremental.known(site.website):
            # known from a run that wrote it: it leaves the state, which holds the
            # pages written (else its 304 would come back as an unchanged page row)
            self.incremental.forget(key, site.website)
        row = diagnostic_row(
            SKIPPED,
            f"skipped: page type {page.page_type} (skip_page_types)",
            **common,
            status_code=response.status,
            page_type=page.page_type,
            page_type_evidence=page.page_type_evidence,
        )
        self.recorder.record(row)
        self._inc_stat(f"webmd/skipped/{page.page_type}")
        self.budgets.skipped(site)
        yield row
        yield from self.frontier.follow_links(
            site, doc, directives, meta["webmd_depth"], response, row
        )

    def _not_modified(
        self, site: SiteState, response: Response, common: dict[str, Any], key: str
    ) -> Iterator[Row]:
        """A 304 to our conditional request: an ``unchanged`` row, no extraction. The
        page's links were already followed from the state when it was scheduled. Its
        stored hash came with the request (read when it was scheduled)."""
        content_hash = response.meta.get("webmd_stored_hash")
        if content_hash is None:
            # a request queued without it (an earlier version's JOBDIR queue)
            stored = self.incremental.lookup(key)
            content_hash = stored.content_hash if stored is not None else None
        final = canonicalize(response.url)
        if final in site.emitted:
            # written already this run (an alias redirected to it, answered first, and
            # stored its newer hash): one row per page
            self._duplicate(site, response.meta, key, f"content of {final}")
            return
        earlier = self._content_duplicate(site, content_hash, response.meta, final)
        if earlier is not None:
            self._duplicate(site, response.meta, key, f"content of {earlier}")
            return
        if not self.budgets.claim_page(site, response.url):
            return
        self.incremental.seen_unchanged(key, site.website, validators_of(response.headers))
        site.emitted.add(final)
        remember_content(site, content_hash, final)
        row = page_row(
            **common,
            final_url=response.url,
            status_code=response.status,
            response_time_ms=response_ms(response.meta),
            content_hash=content_hash,
            change=UNCHANGED,
            change_evidence=NOT_MODIFIED_EVIDENCE,
        )
        self.frontier.lastmod.outcome(site, key, False, response.url)
        self.recorder.record(row)
        self.budgets.check_page_budget(site)
        yield row

    def _duplicate(self, site: SiteState, meta: dict[str, Any], key: str, what: str) -> None:
        """A fetched page is not written: it duplicates a page written (``what``)."""
        self.ledger.reject(meta["webmd_url"], f"duplicate:{what}", site.website)
        self.finished_without_row(key)
        self.budgets.missed(site)
        if meta.get("webmd_via") == "sitemap":
            self.judge.outcome(site, good=False)

    def _content_duplicate(
        self, site: SiteState, content_hash: str | None, meta: dict[str, Any], final: str
    ) -> str | None:
        """The URL of the page written with this content hash, or None. A URL the user
        typed always gets its row (as patterns never apply to it): only discovered pages
        are checked. An incremental run also checks the pages earlier runs wrote (still
        known), so the same one of two copies is kept run after run: a new copy found
        before the known one is re-checked (known pages queue last) is not written."""
        digest = content_key(content_hash)
        if digest is None or meta["webmd_via"] == "input":
            return None
        earlier = site.content.get(digest)
        if earlier is None and self.incremental.enabled:
            stored = self.incremental.stored_content(site).get(digest)
            if (
                stored is not None
                and stored != final
                and stored in self.incremental.known(site.website)
                and stored != canonicalize(meta["webmd_url"])
            ):
                earlier = stored
        return earlier

    def _compare_with_state(
        self,
        site: SiteState,
        row: Row,
        doc: Document,
        response: Response,
        key: str,
        nofollow: bool,
    ) -> None:
        """The row's ``change`` against the stored page, and the page stored as it is now
        (``IncrementalState.compare``)."""
        site_of = self.frontier.site_of
        links = [] if nofollow else [u for u in doc.page_links if site_of(u) == site.website]
        final_key = canonicalize(response.url)
        validators = validators_of(response.headers)
        self.incremental.compare(site.website, row, key, final_key, links, validators)

    def _note_untyped(self, site: SiteState, url: str, content_type: str) -> None:
        """An HTML page served as application/octet-stream is read as HTML: its row
        keeps the served content_type, the run summary says so once per website."""
        self._inc_stat("webmd/untyped_html")
        if site.website in self._untyped_noted:
            return
        self._untyped_noted.add(site.website)
        self.ledger.warn(
            f"{site.website}: {url} is served as {content_type}, but its body is an HTML "
            "document: read as HTML (so is any other such page of this website)"
        )

    # -- a failure -------------------------------------------------------------------
    def failed(self, failure: Failure) -> Iterator[Row]:
        """A page request failed: one diagnostic row (``aborted`` when it failed after
        its website or the run stopped), unless it was refused before it was sent."""
        request = failure.request  # type: ignore[attr-defined]
        meta = request.meta
        self.budgets.release(meta)
        site = self.ledger.sites[meta["webmd_site"]]
        if self._refused_before(site, meta):
            yield from self._refused_retry(site, request)
            return
        stats = self.crawler.stats if self.crawler is not None else None
        stopped = None if meta.get("webmd_rejected") else self.clock.stopped(site)
        if stopped is not None:
            # sent, then failed after its website (or the run) stopped: a row naming
            # the stop and the failure (issue 31), not a not-fetched entry
            _, message = classify_fetch_failure(failure, stats)
            self.crew.finished(canonicalize(meta["webmd_url"]))
            yield self._aborted(site, meta, stopped, message)
            return
        if meta.get("webmd_rejected"):
            if meta["webmd_rejected"] in STOP_REASONS and sent_before(meta):
                # its URL was fetched (a redirect, a failure to retry), and the next
                # request refused for the stop: a row, and not a not-fetched entry too
                self.crew.finished(canonicalize(meta["webmd_url"]))
                yield self.aborted_request(request, meta["webmd_rejected"])
                return
            if meta.get("redirect_times") and self.clock.stopped(site) is None:
                # refused after a redirect (off-site, robots): that page was fetched
                self.budgets.missed(site)
            self.crew.finished(canonicalize(meta["webmd_url"]))
            return
        error_type, message = classify_fetch_failure(failure, stats)
        row = self.recorder.record(
            diagnostic_row(error_type, message, **self.row_context(site, meta))
        )
        self.budgets.missed(site)
        yield row

    def _refused_before(self, site: SiteState, meta: dict[str, Any]) -> bool:
        """A retry of a URL the server refused (429/503), dropped because the website
        then stopped for refusals (``blocked``): that URL was fetched, and refused."""
        return (
            meta.get("webmd_rejected") == "blocked"
            and bool(meta.get("webmd_refusals"))
            and site.stop_reason == "blocked"
            and not self.clock.past_grace()
        )

    def _refused_retry(self, site: SiteState, request: Request) -> Iterator[Row]:
        """The ``blocked`` row of a refused URL whose retry was dropped when its website
        stopped (see ``_refused_before``); whoever dropped it counted it as not fetched,
        which is taken back."""
        meta = request.meta
        self.ledger.unskip(request.url, "blocked")
        self._inc_stat("webmd/not_fetched/blocked", -1)
        status = meta.get("webmd_refused_status")
        message = (
            f"the server refused this URL (HTTP {status or 'refusal'}) and the website "
            f"then refused more than {MAX_REFUSALS_PER_SITE} requests in a row: not "
            "asked again"
        )
        row = self.recorder.record(
            diagnostic_row("blocked", message, **self.row_context(site, meta), status_code=status)
        )
        self.budgets.missed(site)
        yield row

    def dropped(self, request: Request) -> None:
        """``request_dropped``: the dupefilter dropped a redirect onto a page already
        queued."""
        meta = request.meta
        if meta.get("webmd_kind") == "page":
            self.budgets.release(meta)
            website = meta.get("webmd_site")
            original = meta.get("webmd_url", request.url)
            self.ledger.reject(original, f"duplicate:redirects to {request.url}", website)
            self.finished_without_row(canonicalize(original))
            site = self.ledger.sites.get(website or "")
            if site is not None and meta.get("redirect_urls") and self.clock.stopped(site) is None:
                self.budgets.missed(site)  # its URL was fetched (and redirected)

    def aborted_request(self, request: Request, reason: str) -> Row:
        """The ``aborted`` row of a request sent before (``sent_before``: a redirect
        or a retry) whose next request was refused, or taken out of the queue, for the
        stop ``reason``. A retry's URL was counted as not fetched by whoever refused
        it; that is taken back (the URL has this row instead)."""
        meta = request.meta
        site = self.ledger.sites[meta["webmd_site"]]
        if meta.get("retry_times"):
            self.ledger.unskip(request.url, reason)
            self._inc_stat(f"webmd/not_fetched/{reason}", -1)
        if meta.get("redirect_urls") and request.url != meta["webmd_url"]:
            detail = f"redirected to {request.url}, which was not fetched"
        else:
            detail = "it failed and its retry was not sent"
        return self._aborted(site, meta, reason, detail)

    def _aborted(
        self, site: SiteState, meta: dict[str, Any], reason: str, detail: str, **values: Any
    ) -> Row:
        """The ``aborted`` row of a page request that was sent and then overtaken by
        the stop ``reason`` (``clock.aborted_message``), counted (recorder) and in the
        stats (``webmd/aborted/<reason>``). It spends no failure budget: the website
        or the run has stopped already. A resumable or distributed crawl does not mark
        its page done (``SiteSpider._page_done``): a resumed run fetches it again."""
        self._inc_stat(f"webmd/aborted/{reason}")
        row = diagnostic_row(
            "aborted", aborted_message(reason, detail), **self.row_context(site, meta), **values
        )
        return self.recorder.record(row)

    # -- shared ------------------------------------------------------------------------
    def row_context(self, site: SiteState, meta: dict[str, Any]) -> dict[str, Any]:
        """The columns every row of a page request has."""
        return {
            "input": site.input,
            "website": site.website,
            "url": meta["webmd_url"],
            "depth": meta["webmd_depth"],
            "discovered_via": meta["webmd_via"],
        }

    def finished_without_row(self, key: str) -> None:
        """A page request ended in a rejection: a resumed run must not fetch it again."""
        if self.journal is not None:
            self.journal.finish(key, "none")


def sent_before(meta: dict[str, Any]) -> bool:
    """A request made by a downloader middleware from one that was sent: a redirect's
    next hop, or a retry (their URL was fetched once already)."""
    return bool(meta.get("redirect_times") or meta.get("retry_times"))


def _document_outcome(answer: Answer, view: WebsiteView) -> Outcome:
    """What a PDF or DOCX answer becomes once ``decide_answer`` called it ``not-html``:
    the steps of ``decide_answer`` after its content check, for a document (a duplicate
    of a page written, an ``extraction-timeout``, else converted)."""
    if view.written:
        return Outcome(DUPLICATE, message=f"same page as {answer.url}")
    if view.timeout_secs is not None:
        message = f"converting the document took longer than {view.timeout_secs:g} s"
        message += "; it was given up"
        return Outcome(DIAGNOSTIC, "extraction-timeout", message, mark_written=True)
    return Outcome(EXTRACT)
