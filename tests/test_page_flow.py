"""The fate of a page answer on plain data (webmd_spider/page_flow.py)."""

from __future__ import annotations

import pytest

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

PAGE = b"<!doctype html><html><body><p>Hello</p></body></html>"


def answer(status: int = 200, **facts: object) -> Answer:
    values: dict[str, object] = {
        "url": "https://example.com/a",
        "status": status,
        "content_type": "text/html; charset=utf-8",
        "body": PAGE,
    }
    values.update(facts)
    return Answer(**values)  # type: ignore[arg-type]


def test_an_html_page_of_a_running_website_is_converted() -> None:
    assert decide_answer(answer(), WebsiteView()) == Outcome(EXTRACT, html=True)


@pytest.mark.parametrize("reason", ["page_budget", "failure_budget", "time_budget"])
def test_a_stopped_website_or_run_writes_nothing_and_says_why(reason: str) -> None:
    assert decide_answer(answer(), WebsiteView(stopped=reason)) == Outcome(SKIP, message=reason)


def test_a_refusal_keeps_its_blocked_row_after_the_website_stopped_blocked() -> None:
    refused = answer(429, refused="the server refused 3 times (HTTP 429)")
    outcome = decide_answer(refused, WebsiteView(stopped="blocked"))
    assert outcome == Outcome(DIAGNOSTIC, "blocked", "the server refused 3 times (HTTP 429)")
    # past the time budget's grace nothing is written any more, refusals included
    late = decide_answer(refused, WebsiteView(stopped="blocked", past_grace=True))
    assert late == Outcome(SKIP, message="blocked")
    # another stop reason is no refusal's business
    assert decide_answer(refused, WebsiteView(stopped="page_budget")).kind == SKIP


def test_extraction_processes_shut_down_mean_the_run_is_ending() -> None:
    assert decide_answer(answer(), WebsiteView(pool_closed=True)) == Outcome(
        SKIP, message="shutdown"
    )
    view = WebsiteView(pool_closed=True, run_stop_reason="time_budget")
    assert decide_answer(answer(), view) == Outcome(SKIP, message="time_budget")


def test_a_304_is_unchanged_only_for_our_own_conditional_request_not_redirected() -> None:
    assert decide_answer(answer(304, conditional=True), WebsiteView()).kind == NOT_MODIFIED
    unasked = decide_answer(answer(304), WebsiteView())
    assert unasked == Outcome(DIAGNOSTIC, "http-error", "the server answered HTTP 304")
    redirected = decide_answer(answer(304, conditional=True, redirected=True), WebsiteView())
    assert redirected.kind == DIAGNOSTIC


def test_a_gone_page_is_marked_for_its_tombstone_and_a_server_error_is_not() -> None:
    gone = decide_answer(answer(404), WebsiteView())
    assert (gone.kind, gone.error_type, gone.gone) == (DIAGNOSTIC, "http-error", True)
    assert decide_answer(answer(410), WebsiteView()).gone
    assert not decide_answer(answer(503), WebsiteView()).gone


def test_the_last_hop_of_a_redirect_loop_names_the_loop() -> None:
    loop = "redirect loop: https://example.com/a -> https://example.com/b -> https://example.com/a"
    outcome = decide_answer(answer(301, redirect_loop=loop), WebsiteView())
    assert outcome == Outcome(DIAGNOSTIC, "http-error", loop)
    # a meta-refresh loop that ends on a 200 page is decided after extraction
    assert decide_answer(answer(200, redirect_loop=loop), WebsiteView()).kind == EXTRACT


def test_what_is_not_a_page_gets_its_diagnostic() -> None:
    pdf = decide_answer(answer(content_type="application/pdf", body=b"%PDF-1.7"), WebsiteView())
    assert (pdf.kind, pdf.error_type) == (DIAGNOSTIC, "not-html")
    untyped = answer(content_type="application/octet-stream")
    assert decide_answer(untyped, WebsiteView()).kind == EXTRACT  # HTML served untyped


def test_a_final_url_written_before_is_a_duplicate_before_any_conversion() -> None:
    outcome = decide_answer(answer(), WebsiteView(written=True, timeout_secs=30.0))
    assert outcome == Outcome(DUPLICATE, message="same page as https://example.com/a", html=True)


def test_a_page_given_up_by_its_extraction_process_is_a_timeout_row_written_once() -> None:
    outcome = decide_answer(answer(), WebsiteView(timeout_secs=2.5))
    assert outcome == Outcome(
        DIAGNOSTIC,
        "extraction-timeout",
        "converting the page took longer than 2.5 s; it was given up",
        mark_written=True,
        html=True,
    )


def test_content_refusal_opt_outs_and_challenge_pages() -> None:
    assert content_refusal({"noai", "noindex"}, 500, "Post", PAGE) == (
        "opted-out",
        "the page opts out of AI use (noai)",
    )
    challenge = content_refusal(set(), 12, "Just a moment...", PAGE)
    assert challenge == ("blocked", "an anti-bot challenge page was served instead of the page")
    # a long page that merely has such a title is content
    assert content_refusal(set(), 5_000, "Just a moment...", PAGE) is None
    assert content_refusal({"noindex"}, 12, "Post", PAGE) is None


def test_canonical_duplicate_needs_a_same_website_canonical_written_or_declared() -> None:
    final = "https://example.com/a?page=2"
    written = {"https://example.com/a"}
    assert canonical_duplicate("https://example.com/a", "example.com", final, written, set())
    assert canonical_duplicate("https://example.com/b", "example.com", final, set(), {
        "https://example.com/b"
    })  # fmt: skip
    # its own URL, another website's, none, or one not written yet: not a duplicate
    assert not canonical_duplicate(final, "example.com", final, {final}, set())
    assert not canonical_duplicate("https://other.org/a", "example.com", final, written, set())
    assert not canonical_duplicate(None, "example.com", final, written, set())
    assert not canonical_duplicate("https://example.com/c", "example.com", final, written, set())
