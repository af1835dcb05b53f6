"""``remove_repeated_blocks`` (issue 30 item 5): a short paragraph that a website repeats
goes from the page after its third appearance; code and tables keep their copies; the
page's content_hash does not depend on it; the loss audit counts it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer

from ..crawling import by_type, crawl, write_site

BANNER = "You are reading the documentation of an old release of this library."


def _page(title: str, links: list[str]) -> str:
    prose = " ".join(f"{title} explains its own topic in sentence {i}." for i in range(10))
    anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
    return (
        f"<html><head><title>{title}</title></head><body><main><h1>{title}</h1>"
        f"<p>{BANNER}</p><p>{prose}</p>"
        f"<pre>{BANNER}</pre>"
        f"<table><tr><th>Note</th><th>Where</th></tr><tr><td>{BANNER}</td><td>{title}</td></tr>"
        f"</table><ul>{anchors}</ul></main></body></html>"
    )


def _site(root: Path) -> Path:
    """Six pages in a chain (each links only the next): a page is found only once the
    one before it was read, so the crawl meets them in order, extraction processes or
    not."""
    names = ["index.html", *(f"p{i}.html" for i in range(1, 6))]
    files = {name: _page(f"Page {n}", names[n + 1 : n + 2]) for n, name in enumerate(names)}
    return write_site(root, files)


def _banner_paragraphs(row: dict[str, Any]) -> int:
    """Top-level paragraphs of the Markdown that are the banner (not code, not table)."""
    return sum(1 for block in row["markdown"].split("\n\n") if block.strip() == BANNER)


async def _crawl(site: SiteServer, out: Path, **args: str) -> list[dict[str, Any]]:
    rows = await crawl(
        out,
        start=site.base_url + "/index.html",
        discovery="links",
        max_depth="6",
        **args,
    )
    return by_type(rows, "page")


@deferred_f_from_coro_f
async def test_a_repeated_banner_goes_from_the_fourth_page_on(tmp_path: Path) -> None:
    with SiteServer(_site(tmp_path / "site")) as site:
        plain = await _crawl(site, tmp_path / "off", extract_processes="0")
        pages = await _crawl(
            site, tmp_path / "on", extract_processes="0", remove_repeated_blocks="1"
        )
    assert len(pages) == len(plain) == 6
    assert all(_banner_paragraphs(p) == 1 for p in plain)  # off by default
    kept = [p for p in pages if _banner_paragraphs(p) == 1]
    dropped = [p for p in pages if _banner_paragraphs(p) == 0]
    # rows are written in the order the pages were read: the first three keep it
    assert pages[:3] == kept and pages[3:] == dropped and len(dropped) == 3
    hashes = {p["url"]: p["content_hash"] for p in plain}
    for page in pages:
        # code and table copies stay; the hash is of the page, whatever the crawl order
        assert f"```\n{BANNER}\n```" in page["markdown"]
        assert f"| {BANNER} |" in page["markdown"]
        assert page["content_hash"] == hashes[page["url"]]
        rule = page["removed"]["by_rule"].get("repeated-block")
        if page in dropped:
            assert rule == {"blocks": 1, "chars": len(BANNER), "paragraph": 1}
            assert page["text"].count(BANNER) == 2  # the code block's and the cell's
        else:
            assert rule is None and page["text"].count(BANNER) == 3


@deferred_f_from_coro_f
async def test_extraction_processes_get_the_websites_repeated_paragraphs(
    tmp_path: Path,
) -> None:
    with SiteServer(_site(tmp_path / "site")) as site:
        pages = await _crawl(
            site, tmp_path / "pool", extract_processes="1", remove_repeated_blocks="1"
        )
    assert [_banner_paragraphs(p) for p in pages] == [1, 1, 1, 0, 0, 0]
    for page in pages[3:]:
        assert page["removed"]["by_rule"]["repeated-block"]["paragraph"] == 1
