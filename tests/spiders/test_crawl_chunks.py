"""The crawl emits embedding-ready chunks on page rows (issue: chunks for RAG)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer, demo_site_path
from webmd_spider.options import OptionsError

from ..crawling import by_type, crawl


@pytest.fixture(scope="module")
def demo_site() -> Any:
    with SiteServer(demo_site_path()) as server:
        yield server


@deferred_f_from_coro_f
async def test_pages_carry_exact_chunks(demo_site: SiteServer, tmp_path: Path) -> None:
    args = {"start": demo_site.base_url + "/", "chunk_size": "1500", "chunk_overlap": "150"}
    rows = await crawl(tmp_path / "a", **args)
    pages = by_type(rows, "page")
    assert len(pages) >= 10
    for page in pages:
        chunks = page["chunks"]
        assert page["chunk_count"] == len(chunks) >= 1
        markdown = page["markdown"]
        assert chunks[0]["char_start"] == 0 and chunks[-1]["char_end"] == len(markdown)
        heading_texts = {h["text"] for h in page["headings"]}
        for index, chunk in enumerate(chunks):
            assert chunk["index"] == index
            assert chunk["text"] == markdown[chunk["char_start"] : chunk["char_end"]]
            assert chunk["url"] == page["final_url"]
            assert len(chunk["chunk_id"]) == 16
            assert set(chunk["heading_path"]) <= heading_texts
            assert chunk["heading_path_text"] == " > ".join(chunk["heading_path"])
            fenced = chunk["text"].startswith("```") or "|" in chunk["text"].split("\n", 1)[0]
            assert chunk["char_count"] <= 1500 + 150 or fenced
            assert chunk["text"].count("```") % 2 == 0, "no chunk opens a fence it does not close"
    # an unchanged site gives the same ids on every run
    again = await crawl(tmp_path / "b", **args)
    ids = {p["final_url"]: [c["chunk_id"] for c in p["chunks"]] for p in pages}
    assert ids == {
        p["final_url"]: [c["chunk_id"] for c in p["chunks"]] for p in by_type(again, "page")
    }


@deferred_f_from_coro_f
async def test_chunking_is_on_by_default_off_at_zero_and_bad_options_are_errors(
    demo_site: SiteServer, tmp_path: Path
) -> None:
    about = demo_site.base_url + "/about.html"
    rows = await crawl(tmp_path / "on", start=about, crawl_links="0")
    (page,) = by_type(rows, "page")
    # the default: about 400 tokens (1,600 characters) a chunk, 40 tokens of overlap
    assert page["chunk_count"] == len(page["chunks"]) >= 1
    assert all(len(chunk["text"]) <= 1_600 + 160 for chunk in page["chunks"])
    rows = await crawl(tmp_path / "off", start=about, crawl_links="0", chunk_tokens="0")
    (page,) = by_type(rows, "page")
    assert page["chunks"] is None and page["chunk_count"] is None
    with pytest.raises(OptionsError, match=r"chunk_size must be 500\.\.10000"):
        await crawl(tmp_path / "bad", start=demo_site.base_url + "/", chunk_size="100")
    with pytest.raises(OptionsError, match="at most half"):
        await crawl(tmp_path / "bad2", start=demo_site.base_url + "/", chunk_size="1000",
                    chunk_overlap="600")  # fmt: skip
