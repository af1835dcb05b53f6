"""Real crawls written as single files (``-a llms_txt=DIR``, ``-a combined=FILE``): the
files parse, hold every page row once, and an incremental rerun updates them in place;
an unusable path stops the run with one line; the pipeline's routing of rows."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer
from webmd_spider.items import Row, diagnostic_row, page_row, site_row
from webmd_spider.options import JobOptions, OptionsError
from webmd_spider.pipelines.single_files import SingleFilesPipeline
from webmd_spider.rows.single_files import SIDECAR_NAME
from webmd_spider.run_context import RunContext, attach

from ..crawling import by_type, crawl_with_stats, scrapy_crawl, write_site
from ..rows.test_single_files import FullPage, parse_combined, parse_full, parse_llms

QUIET = [
    *("-s", "LOG_LEVEL=INFO", "-s", "WEBMD_HOST_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False"),
    *("-s", "WEBMD_SSRF_ALLOWLIST=127.0.0.0/8", "-s", "WEBMD_ROBOTS_RETRY_SECS=0.5"),
]


def article(title: str, text: str, *links: str, head: str = "", extra: str = "") -> str:
    anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
    prose = " ".join(f"{text} sentence {i} about {title.lower()}." for i in range(12))
    return (
        f"<html><head><title>{title}</title>"
        f'<meta name="description" content="What {title} is about.">{head}</head><body>'
        f"<nav><ul>{anchors}</ul></nav><main><h1>{title}</h1><p>{prose}</p>{extra}</main>"
        "</body></html>"
    )


def handbook(root: Path) -> None:
    """Home, two pages under /docs/, a page with a thematic break and a YAML code block
    (Markdown lines ``---``), one page at the top."""
    pages = ["/docs/a.html", "/docs/b.html", "/docs/rules.html", "/c.html"]
    rules = "<hr><p>" + "After the break. " * 20 + "</p><pre><code>---\nkey: 1\n</code></pre>"
    write_site(
        root,
        {
            "index.html": article(
                "Home", "Welcome", *pages, head='<meta property="og:site_name" content="Handbook">'
            ),
            "docs/a.html": article("Alpha", "First text of alpha", "/"),
            "docs/b.html": article("Beta", "Text of beta", "/"),
            "docs/rules.html": article("Rules", "Text of rules", "/", extra=rules),
            "c.html": article("Gamma", "Text of gamma", "/"),
        },
    )


def read(path: Path) -> str:
    return path.read_text("utf-8")


def no_temporaries(*folders: Path) -> bool:
    return not [p for f in folders for p in f.iterdir() if ".tmp-" in p.name or "probe" in p.name]


def check_files(llms: Path, combined: Path, pages: list[dict[str, Any]]) -> list[FullPage]:
    """The three files hold exactly these page rows (their final URLs), once each and in
    this order; returns llms-full.txt's pages."""
    urls = [row["final_url"] for row in pages]
    index = parse_llms(read(llms / "llms.txt"))
    assert sorted(index.urls()) == sorted(urls)
    title, summary, full = parse_full(read(llms / "llms-full.txt"))
    assert (title, summary) == (index.title, index.summary)
    assert [page.url for page in full] == urls
    blocks = parse_combined(read(combined))
    assert [header["url"] for header, _ in blocks] == urls
    return full


@deferred_f_from_coro_f
async def test_a_crawl_and_an_incremental_rerun_as_single_files(
    serve_site: Any, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    handbook(site)
    server: SiteServer = serve_site(site)
    llms, combined = tmp_path / "out" / "llms", tmp_path / "out" / "not" / "yet" / "all.md"
    settings = {
        "WEBMD_INCREMENTAL": True,
        "WEBMD_STATE_DIR": str(tmp_path / "state"),
        "WEBMD_STATE": "handbook",
    }
    args = {"start": server.url("/"), "llms_txt": str(llms), "combined": str(combined)}

    rows, _ = await crawl_with_stats(tmp_path, settings, **args)
    first = by_type(rows, "page")
    assert len(first) == 5 and {r["change"] for r in first} == {"new"}
    full = check_files(llms, combined, first)
    home = first[0]
    assert home["final_url"] == server.url("/")
    index = parse_llms(read(llms / "llms.txt"))
    assert index.title == "Handbook" == home["site_name"]
    assert index.summary == "What Home is about." == home["description"]
    crawled = [r["final_url"] for r in first]  # in crawl order within each section
    assert {name: [u for _, u, _ in links] for name, links in index.sections.items()} == {
        "Pages": [u for u in crawled if "/docs/" not in u],
        "docs": [u for u in crawled if "/docs/" in u],
    }
    assert {u.removeprefix(server.base_url) for u in crawled} == {
        "/",
        "/c.html",
        *("/docs/a.html", "/docs/b.html", "/docs/rules.html"),
    }
    by_url = {r["final_url"]: r for r in first}
    for title, url, description in (link for links in index.sections.values() for link in links):
        assert (title, description) == (by_url[url]["title"], by_url[url]["description"])
    for page, row in zip(full, first, strict=True):
        heading, _, body = row["markdown"].partition("\n")
        assert (page.title, page.body) == (heading.removeprefix("# "), body.strip())
    blocks = parse_combined(read(combined))
    for (header, body), row in zip(blocks, first, strict=True):
        assert header == {
            "url": row["final_url"],
            "title": row["title"],
            "description": row["description"],
            "scraped_at": row["scraped_at"],
            "content_hash": row["content_hash"],
        }
        lines = row["markdown"].strip("\n").split("\n")
        assert body.split("\n") == ["--- " if line == "---" else line for line in lines]
    rules = by_url[server.url("/docs/rules.html")]["markdown"]
    assert rules.count("\n---\n") == 2, "the page's Markdown has lines '---'"

    # the second run: one page changed, one deleted (still linked: a 404 tombstone)
    write_site(site, {"docs/a.html": article("Alpha", "Rewritten text of alpha", "/")})
    (site / "c.html").unlink()
    rows, _ = await crawl_with_stats(tmp_path, settings, **args)
    changes = {r["url"]: r["change"] for r in rows if r["row_type"] != "site"}
    assert changes == {
        server.url("/"): "unchanged",
        server.url("/docs/a.html"): "changed",
        server.url("/docs/b.html"): "unchanged",
        server.url("/docs/rules.html"): "unchanged",
        server.url("/c.html"): "removed",
    }
    second = by_type(rows, "page")
    assert all(r["markdown"] is None for r in second if r["change"] == "unchanged")
    full = check_files(llms, combined, second)
    gone = server.url("/c.html")
    for path in (llms / "llms.txt", llms / "llms-full.txt", combined):
        text = read(path)
        assert gone not in text and "Text of gamma" not in text
        assert "Rewritten text of alpha" in text or path.name == "llms.txt"
        assert "First text of alpha" not in text
    kept = {p.url: p.body for p in full}
    headers = {header["url"]: header for header, _ in parse_combined(read(combined))}
    for row in second:
        url = row["final_url"]
        if row["change"] == "unchanged":  # its previous entry, text and time
            assert kept[url] == by_url[url]["markdown"].partition("\n")[2].strip()
            assert headers[url]["scraped_at"] == by_url[url]["scraped_at"]
        else:
            assert headers[url]["scraped_at"] == row["scraped_at"]
            assert kept[url] == row["markdown"].partition("\n")[2].strip()
    assert sorted(p.name for p in llms.iterdir()) == [SIDECAR_NAME, "llms-full.txt", "llms.txt"]
    assert no_temporaries(llms, combined.parent)


def test_an_unusable_llms_txt_folder_stops_the_run_with_one_line(
    links_site: SiteServer, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    feed = tmp_path / "rows.jsonl"
    before = len(links_site.requests)
    done = scrapy_crawl(
        *("-a", f"start={links_site.base_url}/", "-a", f"llms_txt={blocker}"),
        *("-a", f"combined={tmp_path / 'all.md'}", "-O", str(feed), *QUIET),
    )
    assert done.returncode != 0
    errors = [line for line in done.stderr.splitlines() if "llms_txt" in line]
    assert len(errors) == 1, done.stderr[-3000:]
    assert errors[0].endswith(f"Cannot start the crawl: llms_txt: {blocker} is not a folder")
    assert "Traceback" not in done.stderr
    assert len(links_site.requests) == before, "nothing was fetched"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"], "nothing was written"


# -- the pipeline's routing, without a crawl ----------------------------------------------


class _Crawler:
    stats = None


def pipeline(
    llms: Path | None, combined: Path | None, *, incremental: bool = False
) -> SingleFilesPipeline:
    options = JobOptions(
        llms_txt=str(llms or ""), combined=str(combined or ""), incremental=incremental
    )
    crawler: Any = _Crawler()
    attach(crawler, RunContext(options=options))
    return SingleFilesPipeline.from_crawler(crawler)


def page(path: str, markdown: str | None, change: str | None, **extra: Any) -> Row:
    url = f"https://example.com{path}"
    return page_row(
        url=extra.pop("url", url),
        final_url=url,
        title=f"Page {path}",
        markdown=markdown,
        content_hash=f"sha256:{markdown}",
        change=change,
        **extra,
    )


def urls_of(combined: Path) -> list[str]:
    return [header["url"] for header, _ in parse_combined(read(combined))]


def test_without_the_options_the_pipeline_is_not_configured(tmp_path: Path) -> None:
    # not configured: Scrapy leaves it out of the row path (nothing runs per row)
    with pytest.raises(NotConfigured):
        pipeline(None, None)
    assert list(tmp_path.iterdir()) == []


def test_pipeline_routes_new_unchanged_removed_and_other_rows(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    llms, combined = tmp_path / "llms", tmp_path / "all.md"
    pipe = pipeline(llms, combined)
    rows: list[Any] = [
        page("/a", "# A\n\nText a.", "new"),
        page("/b", "# B\n\nText b.", "new", url="https://example.com/b-old"),
        page("/c", "# C\n\nText c.", None),
        site_row(website="example.com"),
        diagnostic_row("timeout", "slow", url="https://example.com/slow"),
        {"not": "a row"},
    ]
    for row in rows:
        assert pipe.process_item(row) is row
    pipe.close_spider()
    first = ["https://example.com/a", "https://example.com/b", "https://example.com/c"]
    assert urls_of(combined) == first
    assert [p.url for p in parse_full(read(llms / "llms-full.txt"))[2]] == first

    pipe = pipeline(llms, combined, incremental=True)
    with caplog.at_level(logging.WARNING, logger="webmd_spider.pipelines.single_files"):
        for row in (
            page("/c", None, "unchanged"),
            page("/new", "# New\n\nText new.", "new"),
            page("/unknown", None, "unchanged"),
            diagnostic_row("http-error", "gone", url="https://example.com/a", change="removed"),
            page("/odd", None, None),
        ):
            pipe.process_item(row)
        pipe.close_spider()
    now = ["https://example.com/c", "https://example.com/new", "https://example.com/b"]
    assert urls_of(combined) == now
    full = parse_full(read(llms / "llms-full.txt"))[2]
    assert [(p.url, p.body) for p in full] == [
        (now[0], "Text c."),
        (now[1], "Text new."),
        (now[2], "Text b."),
    ]

    # /b now redirects to /b-old: the page found through /b replaces the entry of /b
    pipe = pipeline(llms, combined, incremental=True)
    pipe.process_item(page("/b-old", "# B again\n\nText b-old.", "new", url=now[2]))
    pipe.close_spider()
    assert urls_of(combined) == ["https://example.com/b-old", *now[:2]]
    warnings = [r.getMessage() for r in caplog.records]
    assert any("page row without Markdown for https://example.com/odd" in w for w in warnings)
    assert any("1 unchanged pages are not in the files" in w for w in warnings)


@pytest.mark.parametrize(
    ("llms", "combined", "message"),
    [
        ("file", None, r"^llms_txt: .*file is not a folder$"),
        (None, "file/all.md", r"^combined: .*file is not a folder$"),
        (None, "folder", r"^combined: .*folder is a folder, not a file$"),
        ("llms", "folder", r"^combined: .*folder is a folder, not a file$"),
    ],
)
def test_an_unusable_path_is_an_options_error(
    tmp_path: Path, llms: str | None, combined: str | None, message: str
) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "folder").mkdir()
    with pytest.raises(OptionsError, match=message):
        pipeline(
            tmp_path / llms if llms else None,
            tmp_path / combined if combined else None,
        )
    if llms == "llms":  # the output set up before the error left nothing behind
        assert list((tmp_path / "llms").iterdir()) == []


def test_a_full_run_starts_the_files_afresh(tmp_path: Path) -> None:
    llms, combined = tmp_path / "llms", tmp_path / "all.md"
    pipe = pipeline(llms, combined)
    pipe.process_item(page("/a", "# A\n\nText a.", None))
    pipe.close_spider()
    # another run into the same files, not incremental: what it did not write is gone
    other = pipeline(llms, combined)
    other.process_item(page("/b", "# B\n\nText b.", None))
    other.close_spider()
    assert urls_of(combined) == ["https://example.com/b"]
    assert [p.url for p in parse_full(read(llms / "llms-full.txt"))[2]] == ["https://example.com/b"]
