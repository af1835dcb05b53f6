"""The run summary's rejections on a real crawl of a local site: every counted
rejection is listed by URL, up to MAX_LISTED per reason, and the summary says how many
of each reason are counted without being listed (issue 31: "nofollow 54" listed 1)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.rows.ledger import MAX_LISTED

from ..crawling import crawl, prose_page, summary_of, write_site

#: links of the page behind ``<meta name="robots" content="nofollow">``
QUIET_LINKS = 60
#: links excluded by a pattern: past the list's limit for that reason
EXCLUDED_LINKS = MAX_LISTED + 100


#: links marked rel="nofollow" on the home page (the case of issue 31: counted, not listed)
MARKED_LINKS = 54
MARKED = "".join(f'<a rel="nofollow" href="/n/{i}.html">{i}</a>' for i in range(MARKED_LINKS))


def reason_key(entry: dict[str, str]) -> str:
    return entry["reason"].split(":", 1)[0]


@deferred_f_from_coro_f
async def test_every_counted_rejection_is_listed_up_to_the_limit_per_reason(
    serve_site: Any, tmp_path: Path
) -> None:
    quiet = prose_page("Quiet", *(f"/q/{i}.html" for i in range(QUIET_LINKS))).replace(
        "<head>", '<head><meta name="robots" content="nofollow">'
    )
    site = write_site(
        tmp_path / "site",
        {
            "index.html": prose_page("Home", "/quiet.html", "/flood.html").replace(
                "</ul>", f"</ul>{MARKED}"
            ),
            "quiet.html": quiet,
            # the flood comes second: its reason fills its own list, not the others'
            "flood.html": prose_page("Flood", *(f"/x/{i}.html" for i in range(EXCLUDED_LINKS))),
        },
    )
    server = serve_site(site)
    await crawl(
        tmp_path / "run",
        start=server.base_url + "/",
        exclude_patterns="*/x/*",
        max_concurrency="1",
    )
    summary = summary_of(tmp_path / "run")
    counts, unlisted = summary["rejected_counts"], summary["rejected_unlisted"]
    listed = Counter(reason_key(entry) for entry in summary["rejected"])

    # behind meta nofollow: every one counted and listed by URL
    quiet_listed = {
        e["url"].removeprefix(server.base_url)
        for e in summary["rejected"]
        if e["reason"] == "nofollow"
    }
    assert quiet_listed == {f"/q/{i}.html" for i in range(QUIET_LINKS)} | {
        f"/n/{i}.html" for i in range(MARKED_LINKS)
    }
    assert counts["nofollow"] == QUIET_LINKS + MARKED_LINKS

    # the excluded flood: counted in full, listed up to the limit, the rest said
    (excluded,) = [key for key in counts if key.startswith("excluded by pattern")]
    assert counts[excluded] == EXCLUDED_LINKS
    assert listed[excluded] == MAX_LISTED
    assert unlisted == {excluded: EXCLUDED_LINKS - MAX_LISTED}

    # the invariant, for every reason: listed + unlisted == counted
    for key, count in counts.items():
        assert listed[key] + unlisted.get(key, 0) == count, key
