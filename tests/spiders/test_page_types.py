"""Page types in the crawl (issue 32): every page row carries ``page_type`` and
``page_type_evidence``; ``skip_page_types`` writes such pages as ``skipped`` rows whose
links are still followed, spending neither budget; an unknown type stops the run.

The site's pages declare their types in JSON-LD, the one kind of evidence the type step
reads outright whatever else it weighs: the test is about the crawl's plumbing, not the
classifier's judgement."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer
from webmd_spider.extract import ExtractOptions
from webmd_spider.items import COLUMNS
from webmd_spider.offload.page_work import extract_page
from webmd_spider.offload.pool import ExtractPool
from webmd_spider.options import OptionsError, build_options
from webmd_spider.rows.row_schema import SCHEMA_PATH
from webmd_spider.spiders.incremental_state import state_name

from ..crawling import REPO, by_type, crawl_with_stats, write_site

Serve = Callable[[Path], SiteServer]

PROSE = " ".join(
    f"Sentence {n} tells how a kettle is filled, warmed and poured." for n in range(12)
)


def ld_page(title: str, ld: dict[str, Any], body: str) -> str:
    """An HTML page declaring its schema.org type in JSON-LD."""
    script = json.dumps({"@context": "https://schema.org", **ld})
    return (
        f'<html><head><title>{title}</title><script type="application/ld+json">{script}'
        f"</script></head><body><main><h1>{title}</h1>{body}</main></body></html>"
    )


def article(title: str, *links: str) -> str:
    anchors = "".join(f'<p>See also <a href="{link}">{link}</a>.</p>' for link in links)
    ld = {"@type": "Article", "headline": title, "author": {"@type": "Person", "name": "Ann"}}
    return ld_page(title, ld, f"<p>{PROSE}</p>{anchors}")


def product(name: str, price: str) -> str:
    ld = {
        "@type": "Product",
        "name": name,
        "description": f"The {name} boils a litre in three minutes.",
        "offers": {"@type": "Offer", "price": price, "priceCurrency": "EUR"},
    }
    body = f"<p>The {name} boils a litre in three minutes. {PROSE}</p><p>Price: {price} EUR</p>"
    return ld_page(name, ld, body)


#: the listing's cards: (path, title, price); only the listing links the last two
CARDS = [
    ("/kettle.html", "Steel kettle", "39"),
    ("/teapot.html", "Clay teapot", "24"),
    ("/brewing.html", "Brewing notes", ""),
]


def listing() -> str:
    items = [
        {"@type": "ListItem", "position": n + 1, "url": path, "name": title}
        for n, (path, title, _) in enumerate(CARDS)
    ]
    ld = {"@type": "ItemList", "name": "Everything for tea", "itemListElement": items}
    cards = "".join(
        f'<li class="card"><a href="{path}"><h2>{title}</h2></a>'
        f"<p>{title}: a short blurb of the item.</p><span>{price} EUR</span></li>"
        for path, title, price in CARDS
    )
    return ld_page("Everything for tea", ld, f'<ul class="cards">{cards}</ul>')


def tea_site(root: Path) -> Path:
    return write_site(
        root,
        {
            "index.html": article("Welcome to the tea shop", "/all.html", "/kettle.html"),
            "all.html": listing(),
            "kettle.html": product("Steel kettle", "39"),
            "teapot.html": product("Clay teapot", "24"),
            "brewing.html": article("Brewing notes"),
        },
    )


CONTENT = ["/", "/kettle.html", "/teapot.html", "/brewing.html"]


def by_path(server: SiteServer, rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["url"].removeprefix(server.base_url): r for r in rows if r["row_type"] != "site"}


def schema_errors(rows: list[dict[str, Any]]) -> list[str]:
    validator = Draft202012Validator(json.loads((REPO / SCHEMA_PATH).read_text("utf-8")))
    return [f"{r['url']}: {e.message}" for r in rows for e in validator.iter_errors(r)]


@deferred_f_from_coro_f
async def test_rows_carry_the_page_type_and_its_evidence(serve_site: Serve, tmp_path: Path) -> None:
    server = serve_site(tea_site(tmp_path / "site"))
    rows, _ = await crawl_with_stats(tmp_path, start=server.base_url + "/")
    found = by_path(server, rows)
    assert sorted(found) == sorted([*CONTENT, "/all.html"])
    assert all(r["row_type"] == "page" for r in found.values())
    expected = {
        "/kettle.html": ("product", "json-ld:Product"),
        "/teapot.html": ("product", "json-ld:Product"),
        # a page of item cards: listing or collection, as the model weighs it
        "/all.html": ("listing|collection", "json-ld:ItemList"),
        # Article is no decisive type (the model weighs the page): no evidence required
        "/brewing.html": ("article", ""),
        "/": ("article", ""),
    }
    for path, (kind, evidence) in expected.items():
        assert found[path]["page_type"] in kind.split("|"), (
            path,
            found[path]["page_type_evidence"],
        )
        assert not evidence or evidence in found[path]["page_type_evidence"], path
    (site,) = by_type(rows, "site")
    assert site["page_type"] is None and site["page_type_evidence"] is None
    assert site["failures"] == 0
    assert schema_errors(rows) == []
    assert {tuple(r) for r in rows} == {COLUMNS}


@deferred_f_from_coro_f
async def test_skipped_page_types_are_rows_whose_links_are_followed(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = serve_site(tea_site(tmp_path / "site"))
    # a page budget of exactly the content pages: the listing must not spend it (the
    # teapot and the brewing notes are linked from the listing only, and reached last)
    rows, stats = await crawl_with_stats(
        tmp_path, start=server.base_url + "/", skip_page_types="listing,collection",
        max_pages=str(len(CONTENT)), max_concurrency="1",
    )  # fmt: skip
    found = by_path(server, rows)
    skipped = found.pop("/all.html")
    assert skipped["row_type"] == "diagnostic" and skipped["ok"] is False
    assert skipped["error_type"] == "skipped"
    kind = skipped["page_type"]
    assert kind in ("listing", "collection")
    assert skipped["error"] == f"skipped: page type {kind} (skip_page_types)"
    assert "json-ld:ItemList" in skipped["page_type_evidence"]
    assert skipped["status_code"] == 200 and skipped["markdown"] is None
    # the pages only the listing links are crawled, and every content page is a page row
    assert sorted(found) == sorted(CONTENT)
    assert all(r["row_type"] == "page" for r in found.values())
    assert server.hits("/all.html") == 1
    (site,) = by_type(rows, "site")
    assert site["pages_extracted"] == len(CONTENT)
    assert site["failures"] == 0  # a skipped page is no failure
    assert stats.get(f"webmd/skipped/{kind}") == 1
    assert schema_errors(rows) == []


@deferred_f_from_coro_f
async def test_an_unknown_page_type_to_skip_stops_the_run(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = serve_site(tea_site(tmp_path / "site"))
    with pytest.raises(OptionsError, match=r"unknown page type 'listings'.*allowed types: "):
        await crawl_with_stats(tmp_path, start=server.base_url + "/", skip_page_types="listings")
    assert server.hits("/") == 0


#: polls of a starting extraction pool before the test gives up on it (a hang's bound)
READY_POLLS = 3000


@deferred_f_from_coro_f
async def test_the_page_type_crosses_from_an_extraction_process() -> None:
    pool = ExtractPool(1, ExtractOptions(), (800, 0))
    pool.start()
    try:
        # a bound on a hang counted in polls of the pool, not read off the clock
        for _ in range(READY_POLLS):
            if pool.ready:
                break
            await asyncio.sleep(0.02)
        else:
            pytest.fail(f"the extraction process was not ready after {READY_POLLS} polls")
        body = product("Steel kettle", "39").encode()
        future = pool.submit(body, "http://example.com/kettle.html", "utf-8")
        assert future is not None
        work = await future
    finally:
        pool.close()
    here = extract_page(body, "http://example.com/kettle.html", "utf-8", ExtractOptions(), 800)
    assert work.columns is not None and here.columns is not None
    assert work.columns["page_type"] == here.columns["page_type"] == "product"
    assert work.columns["page_type_evidence"] == here.columns["page_type_evidence"]
    assert "json-ld:Product" in work.columns["page_type_evidence"]
    assert (work.document.page_type, work.document.page_type_evidence) == (
        "product",
        here.document.page_type_evidence,
    )


@deferred_f_from_coro_f
async def test_an_incremental_recrawl_skips_the_listing_again(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = serve_site(tea_site(tmp_path / "site"))
    state = {"WEBMD_INCREMENTAL": True, "WEBMD_STATE_DIR": str(tmp_path / "state")}
    args = {"start": server.base_url + "/", "skip_page_types": "listing,collection"}
    first, _ = await crawl_with_stats(tmp_path / "1", state, **args)
    second, _ = await crawl_with_stats(tmp_path / "2", state, **args)
    for rows in (first, second):
        found = by_path(server, rows)
        # never stored as a page, so never answered 304 and written as an unchanged page
        assert found["/all.html"]["error_type"] == "skipped"
        assert found["/all.html"]["change"] is None
        assert sorted(p for p, r in found.items() if r["row_type"] == "page") == sorted(CONTENT)
    changes = {p: r["change"] for p, r in by_path(server, second).items()}
    assert {changes[p] for p in CONTENT} == {"unchanged"}
    assert schema_errors(first + second) == []


def test_the_pages_skipped_are_part_of_the_derived_state_name() -> None:
    start = ["https://example.com/"]
    plain = state_name(build_options({}, {}), start)
    skipping = state_name(build_options({}, {"skip_page_types": "listing,collection"}), start)
    same = state_name(build_options({}, {"skip_page_types": "collection listing"}), start)
    assert plain != skipping == same
