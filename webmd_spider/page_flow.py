"""What becomes of one page answer: pure decisions on plain facts.

Pure module (no Scrapy, no Twisted). The site spider gathers the facts of an answer (its
status, headers and meta) and its own view of the website (stopped, already written,
past the time budget's grace), then asks :func:`decide_answer` what to do before any
extraction. After extraction it asks :func:`content_refusal` and
:func:`canonical_duplicate` about the document. The spider carries out each outcome:
the ledger, the row, the links. Every branch can be tested on plain data
(``tests/test_page_flow.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from webmd_spider.rows.page_rows import AI_OPT_OUT, classify_response, interstitial
from webmd_spider.state.changes import is_gone
from webmd_spider.urls import canonicalize, site_key

#: The outcome kinds of :func:`decide_answer`.
SKIP = "skip"  # the website or the run stopped: no page row; the spider writes an aborted row
DIAGNOSTIC = "diagnostic"  # a diagnostic row, and one fetch that gave no page row
NOT_MODIFIED = "not-modified"  # a 304 to our conditional request: an unchanged row
DUPLICATE = "duplicate"  # the same page as one written: no row
EXTRACT = "extract"  # a page to convert

#: Challenge pages are short; a long page that mentions "just a moment..." is content.
INTERSTITIAL_MAX_WORDS = 200


@dataclass(frozen=True, slots=True)
class Answer:
    """The facts of one page answer that decide its fate."""

    #: the answer's URL (after redirects)
    url: str
    status: int
    content_type: str | None
    body: bytes
    #: a 3xx answer's Location header
    location: str | None = None
    #: why the politeness middleware gave the URL up (the server refused it), if it did
    refused: str | None = None
    #: sent with the validators of the page's stored state (If-None-Match ...)
    conditional: bool = False
    redirected: bool = False
    #: "redirect loop: A -> B -> A" when this answer is the last hop of a loop
    redirect_loop: str | None = None


@dataclass(frozen=True, slots=True)
class WebsiteView:
    """What the spider knows of the answer's website and run when the answer comes."""

    #: why the website or the run writes nothing more (a hard stop, or past the grace
    #: of the time budget), None while it writes
    stopped: str | None = None
    past_grace: bool = False
    #: the run's stop reason, if it stopped
    run_stop_reason: str | None = None
    #: the answer's final URL (canonical) already gave a row in this run
    written: bool = False
    #: the extraction processes were shut down before they answered for this page
    pool_closed: bool = False
    #: the extraction process gave this page up after this many seconds (None: it did not)
    timeout_secs: float | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What to do with an answer: `kind` is one of the kinds above."""

    kind: str
    error_type: str | None = None
    #: the diagnostic row's message, the skip's reason or the duplicate's reason
    message: str | None = None
    #: the page is gone (404/410): its row is a tombstone when the state knows it
    gone: bool = False
    #: the final URL counts as written from now on (another URL of it is not converted)
    mark_written: bool = False
    #: the answer passed as an HTML page (whatever became of it then)
    html: bool = False


def decide_answer(answer: Answer, view: WebsiteView) -> Outcome:
    """The fate of one page answer before extraction (the first outcome that applies):

    1. the website or the run stopped: SKIP (no page row past a stop: the spider
       writes an ``aborted`` diagnostic naming the stop, spiders/page_answers.py).
       An answer the server refused (429/503) still gets its ``blocked`` row when the
       website stopped as ``blocked`` (even by this refusal), unless the run is past
       its grace. Extraction processes shut down before they answered: the run is
       ending;
    2. refused by the server: a ``blocked`` DIAGNOSTIC;
    3. a 304 to our conditional request that was not redirected: NOT_MODIFIED;
    4. an answer that is no page (``page_rows.classify_response``: an HTTP error, a
       redirect that was not followed, not HTML, too large...): its DIAGNOSTIC, with the
       loop spelled out for the last hop of a redirect loop;
    5. the final URL already gave a row: DUPLICATE;
    6. the extraction process gave the page up: an ``extraction-timeout`` DIAGNOSTIC;
    7. else EXTRACT.
    """
    stopped = view.stopped
    if answer.refused and stopped == "blocked" and not view.past_grace:
        stopped = None
    elif stopped is None and view.pool_closed:
        stopped = view.run_stop_reason or "shutdown"
    if stopped is not None:
        return Outcome(SKIP, message=stopped)
    if answer.refused:
        return Outcome(DIAGNOSTIC, "blocked", answer.refused)
    if answer.status == 304 and answer.conditional and not answer.redirected:
        return Outcome(NOT_MODIFIED)
    problem = classify_response(answer.status, answer.content_type, answer.body, answer.location)
    if problem is not None:
        error_type, message = problem
        if answer.redirect_loop and 300 <= answer.status < 400:
            message = answer.redirect_loop
        return Outcome(DIAGNOSTIC, error_type, message, gone=is_gone(answer.status))
    if view.written:
        return Outcome(DUPLICATE, message=f"same page as {answer.url}", html=True)
    if view.timeout_secs is not None:
        # not converted here either: it would hold the event loop as long
        message = f"converting the page took longer than {view.timeout_secs:g} s; it was given up"
        return Outcome(DIAGNOSTIC, "extraction-timeout", message, mark_written=True, html=True)
    return Outcome(EXTRACT, html=True)


def content_refusal(
    directives: set[str], word_count: int, title: str | None, body: bytes
) -> tuple[str, str] | None:
    """(error_type, message) when a fetched HTML page must not become a page row: it
    opts out of AI use (``noai``, ``noimageai`` in its robots directives), or it is an
    anti-bot challenge page served instead of the page. None for a page."""
    if directives & AI_OPT_OUT:
        found = ", ".join(sorted(directives & AI_OPT_OUT))
        return "opted-out", f"the page opts out of AI use ({found})"
    if word_count < INTERSTITIAL_MAX_WORDS and interstitial(title, body):
        return "blocked", "an anti-bot challenge page was served instead of the page"
    return None


def canonical_duplicate(
    canonical: str | None,
    website: str,
    final: str,
    written: set[str],
    declared: set[str],
) -> bool:
    """A page whose rel=canonical (same website) was already written as a page, or was
    declared as their canonical URL by a page written. `final` is the page's own
    canonical URL; `written` the final URLs written, `declared` their canonical URLs."""
    if not canonical or site_key(canonical) != website:
        return False
    target = canonicalize(canonical)
    return target != final and (target in written or target in declared)
