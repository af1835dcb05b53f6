"""Tests for webmd_spider.rows.ledger (the run ledger) and webmd_spider.items (the row schema)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webmd_spider.items import (
    COLUMNS,
    ERROR_TYPES,
    ROW_TYPES,
    SKIPPED,
    Row,
    diagnostic_row,
    page_row,
    site_row,
    utc_now_iso,
)
from webmd_spider.rows.ledger import MAX_LISTED, RunLedger, SiteState


def make_site(website: str = "example.com", **kwargs: Any) -> SiteState:
    return SiteState(website=website, input=f"https://{website}/", mode="site", **kwargs)


def page(website: str = "example.com", words: int = 100, tokens: int = 150, bp: float = 0.2) -> Row:
    return page_row(
        website=website,
        url=f"https://{website}/p",
        word_count=words,
        token_estimate=tokens,
        boilerplate_ratio=bp,
    )


# --------------------------------------------------------------------------- #
# items: constructors and schema
# --------------------------------------------------------------------------- #


def test_page_row_sets_type_and_ok() -> None:
    row = page_row(url="https://example.com/")
    assert (row.row_type, row.ok) == ("page", True)
    assert row.error_type is None


def test_site_row_sets_type_and_ok() -> None:
    row = site_row(website="example.com", pages_extracted=3)
    assert (row.row_type, row.ok) == ("site", True)
    assert row.pages_extracted == 3


@pytest.mark.parametrize("error_type", list(ERROR_TYPES))
def test_diagnostic_row_sets_type_ok_and_error(error_type: str) -> None:
    row = diagnostic_row(error_type, "something went wrong", url="https://example.com/x")
    assert (row.row_type, row.ok) == ("diagnostic", False)
    assert row.error_type == error_type
    assert row.error == "something went wrong"
    assert row.url == "https://example.com/x"


def test_diagnostic_row_rejects_unknown_error_type() -> None:
    with pytest.raises(ValueError) as info:
        diagnostic_row("exploded", "boom")
    message = str(info.value)
    assert "exploded" in message
    assert "http-error" in message


def test_constructors_refuse_unknown_columns() -> None:
    with pytest.raises(TypeError):
        page_row(not_a_column=1)
    with pytest.raises(TypeError):
        site_row(not_a_column=1)
    with pytest.raises(TypeError):
        diagnostic_row("empty", "x", not_a_column=1)


def test_every_row_kind_has_every_column() -> None:
    rows = [page_row(), site_row(), diagnostic_row("timeout", "slow")]
    assert {r.row_type for r in rows} == set(ROW_TYPES)
    for row in rows:
        data = row.to_dict()
        assert tuple(data) == COLUMNS
        json.dumps(data)


def test_columns_start_with_row_type_and_end_with_scraped_at() -> None:
    assert COLUMNS[:2] == ("row_type", "ok")
    assert COLUMNS[-1] == "scraped_at"
    assert len(set(COLUMNS)) == len(COLUMNS)


def test_scraped_at_is_utc_iso_seconds() -> None:
    pattern = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z"
    assert re.fullmatch(pattern, utc_now_iso())
    assert re.fullmatch(pattern, page_row().scraped_at)


def test_scraped_at_follows_a_stubbed_clock_across_second_boundaries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import webmd_spider.items as items

    # 2026-12-06T21:00:00Z, then 1 ns before and at the next second, then back a day
    base = 1_796_590_800 * 10**9
    stamps = iter([base, base + 999_999_999, base + 10**9, base - 86_400 * 10**9])
    monkeypatch.setattr(items.time, "time_ns", lambda: next(stamps))
    assert [utc_now_iso() for _ in range(4)] == [
        "2026-12-06T21:00:00Z",
        "2026-12-06T21:00:00Z",  # the same second: the text kept
        "2026-12-06T21:00:01Z",
        "2026-12-05T21:00:00Z",  # a clock set back is followed too
    ]


# --------------------------------------------------------------------------- #
# record_row
# --------------------------------------------------------------------------- #


def test_record_page_rows_fold_into_site_totals() -> None:
    ledger = RunLedger()
    site = ledger.add_site(make_site())
    ledger.record_row(page(words=100, tokens=150, bp=0.2))
    ledger.record_row(page(words=50, tokens=70, bp=0.5))
    assert ledger.row_counts == {"page": 2}
    assert site.pages == 2
    assert site.total_words == 150
    assert site.total_tokens == 220
    assert site.boilerplate_sum == pytest.approx(0.7)
    assert site.failures == 0
    assert dict(ledger.error_counts) == {}


def test_record_diagnostic_rows_count_errors_and_failures() -> None:
    ledger = RunLedger()
    site = ledger.add_site(make_site())
    ledger.record_row(diagnostic_row("http-error", "404", website="example.com"))
    ledger.record_row(diagnostic_row("http-error", "500", website="example.com"))
    ledger.record_row(diagnostic_row("timeout", "slow", website="example.com"))
    assert ledger.row_counts == {"diagnostic": 3}
    assert ledger.error_counts == {"http-error": 2, "timeout": 1}
    assert site.failures == 3
    assert site.pages == 0


def test_record_row_for_unknown_site_still_counts() -> None:
    ledger = RunLedger()
    ledger.record_row(page(website="elsewhere.org"))
    ledger.record_row(diagnostic_row("invalid-input", "bad start URL"))  # no website at all
    assert ledger.row_counts == {"page": 1, "diagnostic": 1}
    assert ledger.error_counts == {"invalid-input": 1}
    assert ledger.sites == {}


def test_record_site_row_counts_only() -> None:
    ledger = RunLedger()
    site = ledger.add_site(make_site())
    ledger.record_row(site.to_row(None))
    assert ledger.row_counts == {"site": 1}
    assert (site.pages, site.failures) == (0, 0)


def test_record_page_with_missing_figures() -> None:
    ledger = RunLedger()
    site = ledger.add_site(make_site())
    ledger.record_row(page_row(website="example.com"))
    assert site.pages == 1
    assert (site.total_words, site.total_tokens, site.boilerplate_sum) == (0, 0, 0.0)


def test_sites_are_kept_apart() -> None:
    ledger = RunLedger()
    a = ledger.add_site(make_site("a.example"))
    b = ledger.add_site(make_site("b.example"))
    ledger.record_row(page(website="a.example", words=10))
    ledger.record_row(page(website="b.example", words=20))
    ledger.record_row(page(website="b.example", words=30))
    assert (a.pages, a.total_words) == (1, 10)
    assert (b.pages, b.total_words) == (2, 50)


def test_add_site_returns_existing_state() -> None:
    ledger = RunLedger()
    first = ledger.add_site(make_site())
    second = ledger.add_site(make_site(discovery="sitemap"))
    assert second is first
    assert second.discovery == "links"
    assert list(ledger.sites) == ["example.com"]


@given(
    st.lists(
        st.one_of(
            st.tuples(st.just("page"), st.integers(0, 5000), st.floats(0, 1)),
            st.tuples(st.sampled_from(list(ERROR_TYPES)), st.just(0), st.just(0.0)),
        ),
        max_size=40,
    )
)
def test_counts_add_up(events: list[tuple[str, int, float]]) -> None:
    ledger = RunLedger()
    site = ledger.add_site(make_site())
    for kind, words, bp in events:
        if kind == "page":
            ledger.record_row(page(words=words, tokens=words * 2, bp=bp))
        else:
            ledger.record_row(diagnostic_row(kind, "x", website="example.com"))
    pages = [e for e in events if e[0] == "page"]
    skipped = [e for e in events if e[0] == SKIPPED]
    assert site.pages == len(pages) == ledger.row_counts["page"]
    assert len(events) - len(pages) == sum(ledger.error_counts.values())
    # a page skipped for its type (skip_page_types) is no failure
    assert site.failures == len(events) - len(pages) - len(skipped)
    assert site.total_words == sum(w for _, w, _ in pages)
    assert site.total_tokens == 2 * site.total_words
    row = site.to_row(None)
    assert row.avg_boilerplate_ratio is not None
    assert 0.0 <= row.avg_boilerplate_ratio <= 1.0


# --------------------------------------------------------------------------- #
# SiteState.to_row and stop reasons
# --------------------------------------------------------------------------- #


def test_site_row_from_state() -> None:
    ledger = RunLedger()
    site = ledger.add_site(
        make_site(root="https://example.com/", discovery="sitemap", sitemap_url_count=40)
    )
    site.robots_blocked = 2
    ledger.record_row(page(words=100, tokens=150, bp=0.2))
    ledger.record_row(page(words=50, tokens=70, bp=0.25))
    ledger.record_row(page(words=10, tokens=20, bp=0.3))
    ledger.record_row(diagnostic_row("http-error", "404", website="example.com"))
    row = site.to_row(None)
    assert (row.row_type, row.ok) == ("site", True)
    assert row.input == "https://example.com/"
    assert row.website == "example.com"
    assert row.url == "https://example.com/"
    assert row.pages_extracted == 3
    assert row.discovery == "sitemap"
    assert row.sitemap_url_count == 40
    assert row.robots_blocked == 2
    assert row.total_words == 160
    assert row.total_tokens == 240
    assert row.avg_boilerplate_ratio == 0.25
    assert row.failures == 1
    assert row.stop_reason == "finished"
    assert tuple(row.to_dict()) == COLUMNS


def test_avg_boilerplate_ratio_rounds_to_three_decimals() -> None:
    site = make_site()
    site.pages = 3
    site.boilerplate_sum = 1.0
    assert site.to_row(None).avg_boilerplate_ratio == 0.333


def test_avg_boilerplate_ratio_without_pages_is_zero() -> None:
    assert make_site().to_row(None).avg_boilerplate_ratio == 0.0


@pytest.mark.parametrize(
    ("site_reason", "run_reason", "expected"),
    [
        ("page_budget", "time_budget", "page_budget"),
        ("unreachable", None, "unreachable"),
        (None, "time_budget", "time_budget"),
        (None, "shutdown", "shutdown"),
        (None, None, "finished"),
    ],
)
def test_site_stop_reason_precedence(
    site_reason: str | None, run_reason: str | None, expected: str
) -> None:
    site = make_site(stop_reason=site_reason)
    assert site.to_row(run_reason).stop_reason == expected
    ledger = RunLedger(stop_reason=run_reason)
    ledger.add_site(site)
    assert ledger.summary()["websites"]["example.com"]["stop_reason"] == expected


def test_overall_stop_reason() -> None:
    ledger = RunLedger()
    assert ledger.overall_stop_reason() == "finished"
    a = ledger.add_site(make_site("a.example"))
    ledger.add_site(make_site("b.example"))
    a.stop_reason = "unreachable"
    assert ledger.overall_stop_reason() == "finished"
    a.stop_reason = "page_budget"
    assert ledger.overall_stop_reason() == "page_budget"
    ledger.stop_reason = "time_budget"
    assert ledger.overall_stop_reason() == "time_budget"


# --------------------------------------------------------------------------- #
# reject / skip / warn and MAX_LISTED
# --------------------------------------------------------------------------- #


def test_reject_counts_by_reason_prefix_and_lists() -> None:
    ledger = RunLedger()
    ledger.reject("https://example.com/a", "robots", "example.com")
    ledger.reject("https://example.com/b", "pattern: /b matched exclude", "example.com")
    ledger.reject("https://example.com/c", "pattern: /c matched exclude")
    assert ledger.rejected_counts == {"robots": 1, "pattern": 2}
    assert ledger.rejected[0] == {
        "url": "https://example.com/a",
        "reason": "robots",
        "website": "example.com",
    }
    assert ledger.rejected[1]["reason"] == "pattern: /b matched exclude"
    assert ledger.rejected[2]["website"] == ""


def test_skip_counts_and_lists() -> None:
    ledger = RunLedger()
    ledger.skip("https://example.com/a", "page_budget", "example.com")
    ledger.skip("https://example.com/b", "page_budget")
    ledger.skip("https://example.com/c", "time_budget")
    assert ledger.not_fetched_counts == {"page_budget": 2, "time_budget": 1}
    assert [e["url"] for e in ledger.not_fetched] == [
        "https://example.com/a",
        "https://example.com/b",
        "https://example.com/c",
    ]
    assert ledger.not_fetched[1]["website"] == ""


def test_lists_stop_at_max_listed_per_reason_but_counts_keep_counting() -> None:
    ledger = RunLedger()
    extra = 25
    for i in range(MAX_LISTED + extra):
        ledger.reject(f"https://example.com/r{i}", "duplicate:content of x", "example.com")
        ledger.skip(f"https://example.com/s{i}", "page_budget", "example.com")
        ledger.warn(f"warning {i}")
    # a flood of one reason does not hide another: these are listed after it
    ledger.reject("https://example.com/robots", "robots", "example.com")
    ledger.skip("https://example.com/late", "time_budget", "example.com")
    assert len(ledger.rejected) == MAX_LISTED + 1
    assert len(ledger.not_fetched) == MAX_LISTED + 1
    assert len(ledger.warnings) == MAX_LISTED
    assert ledger.rejected_counts["duplicate"] == MAX_LISTED + extra
    assert ledger.not_fetched_counts["page_budget"] == MAX_LISTED + extra
    # The first ones are kept, the late ones only counted.
    assert ledger.rejected[MAX_LISTED - 1]["url"] == f"https://example.com/r{MAX_LISTED - 1}"
    assert ledger.rejected[-1]["url"] == "https://example.com/robots"
    assert ledger.not_fetched[-1]["url"] == "https://example.com/late"
    assert ledger.warnings[0] == "warning 0"
    summary = ledger.summary()
    assert summary["rejected_counts"] == {"duplicate": MAX_LISTED + extra, "robots": 1}
    assert summary["rejected_unlisted"] == {"duplicate": extra}
    assert summary["not_fetched_unlisted"] == {"page_budget": extra}
    assert len(summary["rejected"]) == MAX_LISTED + 1


def test_every_counted_url_is_listed_or_counted_as_unlisted() -> None:
    ledger = RunLedger()
    ledger.reject_all([f"https://example.com/n{i}" for i in range(54)], "nofollow", "example.com")
    # a count with no URL to name (a sitemap file's unread entries)
    ledger.not_fetched_counts["max_sitemap_urls"] += 7
    ledger.skip("https://example.com/a", "max_sitemap_urls")
    summary = ledger.summary()
    listed = [e for e in summary["rejected"] if e["reason"] == "nofollow"]
    assert len(listed) == summary["rejected_counts"]["nofollow"] == 54
    assert summary["rejected_unlisted"] == {}
    assert summary["not_fetched_unlisted"] == {"max_sitemap_urls": 7}


def test_unskip_frees_its_listed_place() -> None:
    ledger = RunLedger()
    for i in range(MAX_LISTED):
        ledger.skip(f"https://example.com/s{i}", "page_budget")
    ledger.unskip("https://example.com/s3", "page_budget")
    ledger.skip("https://example.com/late", "page_budget")
    assert ledger.not_fetched[-1]["url"] == "https://example.com/late"
    assert ledger.summary()["not_fetched_unlisted"] == {}


# --------------------------------------------------------------------------- #
# summary
# --------------------------------------------------------------------------- #


def test_summary_is_json_serialisable_and_complete() -> None:
    ledger = RunLedger()
    site = ledger.add_site(make_site(discovery="sitemap"))
    site.robots_blocked = 1
    site.seen.add("https://example.com/p")
    site.lastmod["https://example.com/p"] = "2024-01-01"
    ledger.record_row(page())
    ledger.record_row(diagnostic_row("not-html", "a PDF", website="example.com"))
    ledger.reject("https://example.com/x", "robots", "example.com")
    ledger.skip("https://example.com/y", "page_budget", "example.com")
    ledger.warn("sitemap https://example.com/sitemap.xml is not XML")

    summary = ledger.summary()
    round_trip = json.loads(json.dumps(summary))
    assert round_trip == summary
    assert set(summary) == {
        "stop_reason",
        "elapsed_secs",
        "rows",
        "errors",
        "websites",
        "rejected_counts",
        "rejected",
        "rejected_unlisted",
        "not_fetched_counts",
        "not_fetched",
        "not_fetched_unlisted",
        "warnings",
    }
    assert summary["stop_reason"] == "finished"
    assert summary["elapsed_secs"] >= 0
    assert summary["rows"] == {"page": 1, "diagnostic": 1}
    assert summary["errors"] == {"not-html": 1}
    assert summary["websites"] == {
        "example.com": {
            "pages": 1,
            "failures": 1,
            "discovery": "sitemap",
            "robots_blocked": 1,
            "stop_reason": "finished",
            "removed": None,
        }
    }
    assert summary["rejected_counts"] == {"robots": 1}
    assert summary["not_fetched_counts"] == {"page_budget": 1}
    assert summary["warnings"] == ["sitemap https://example.com/sitemap.xml is not XML"]


def test_empty_summary_is_json_serialisable() -> None:
    summary = RunLedger().summary()
    assert json.loads(json.dumps(summary)) == summary
    assert summary["rows"] == {} and summary["websites"] == {}


def test_elapsed_grows() -> None:
    ledger = RunLedger(started=0.0)
    assert ledger.elapsed() > 0


def test_removed_is_summed_per_website_and_names_the_worst_pages() -> None:
    ledger = RunLedger()
    site = ledger.add_site(SiteState(website="example.com", input="x", mode="site"))
    audits = {
        "https://example.com/a": {"code": 2, "table": 0, "signature": 1, "chars": 40},
        "https://example.com/b": {"code": 0, "table": 4, "signature": 0, "chars": 90},
        "https://example.com/c": {"code": 0, "table": 0, "signature": 0, "chars": 7},
    }
    for url, counts in audits.items():
        removed = {**counts, "by_rule": {"hidden": {"blocks": 1, "chars": counts["chars"]}}}
        ledger.record_row(page_row(website="example.com", url=url, removed=removed))
    column = site.to_row(None).removed
    assert column is not None
    assert (column["code"], column["table"], column["signature"], column["chars"]) == (
        2,
        4,
        1,
        137,
    )
    assert column["by_rule"] == {"hidden": {"blocks": 3, "chars": 137}}
    # the page without lost code, tables or signatures is not named
    assert [p["url"] for p in column["pages"]] == ["https://example.com/b", "https://example.com/a"]
    assert ledger.summary()["websites"]["example.com"]["removed"] == column
