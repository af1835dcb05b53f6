"""The LangChain and LlamaIndex loaders (webmd_spider.loaders) against real crawls of
the demo site on 127.0.0.1, with the real ``langchain-core`` and ``llama-index-core``.

Four crawls for the whole module, each in a module-scoped fixture: a reference
``api.crawl``, and one crawl per loader call. A spy around the loaders' ``crawl`` keeps
the rows of the very crawl each loader ran, so its documents are checked against those
rows exactly (``scraped_at`` included), and against the reference crawl on everything
a second crawl reproduces. The expected metadata are built here from the rows, not by
``loaders.records``, so a mistake there cannot agree with itself.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document as LangchainDocument
from llama_index.core.schema import Document as LlamaDocument
from llama_index.core.schema import MetadataMode

from webmd_spider import api
from webmd_spider.demo.server import SiteServer, demo_site_path
from webmd_spider.items import Row
from webmd_spider.loaders import WebmdLoader, WebmdReader, source
from webmd_spider.loaders.source import DEFAULT_CHUNK_TOKENS, CrawlSource
from webmd_spider.options import OptionsError

#: The demo site is ours: no delay, loopback allowed. Small chunks give every page
#: several, so offsets and heading paths past the first chunk are checked too.
OPTIONS: dict[str, Any] = {"allow_local": True, "host_delay": "0", "chunk_tokens": 200}
#: per="page" crawls without a chunk size: the loader must not add one
PAGE_OPTIONS = {k: v for k, v in OPTIONS.items() if k != "chunk_tokens"}


class Spy:
    """Stands in for ``source.crawl``: runs the real crawl and keeps its keyword
    arguments, its rows, and whether it was closed."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, start: Any, **options: Any) -> Iterator[Row]:
        call: dict[str, Any] = {"start": start, "options": options, "rows": []}
        self.calls.append(call)
        for row in api.crawl(start, **options):
            call["rows"].append(row)
            yield row

    def last(self) -> dict[str, Any]:
        return self.calls[-1]


@pytest.fixture(scope="module")
def demo() -> Iterator[SiteServer]:
    with SiteServer(demo_site_path()) as server:
        yield server


@pytest.fixture(scope="module")
def start(demo: SiteServer) -> str:
    return demo.base_url + "/"


@pytest.fixture(scope="module")
def spy() -> Iterator[Spy]:
    spy = Spy()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(source, "crawl", spy)
        yield spy


@pytest.fixture(scope="module")
def reference_rows(start: str) -> list[Row]:
    """The rows of a plain ``api.crawl`` with the loaders' options."""
    return list(api.crawl(start, **OPTIONS))


class Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture(scope="module")
def langchain_run(start: str, spy: Spy) -> dict[str, Any]:
    """WebmdLoader(per="chunk").lazy_load(): its documents, rows, options and warnings."""
    handler = Warnings()
    logger = logging.getLogger("webmd_spider.loaders")
    logger.addHandler(handler)
    try:
        documents = list(WebmdLoader(start, **OPTIONS).lazy_load())
    finally:
        logger.removeHandler(handler)
    return {**spy.last(), "documents": documents, "warnings": handler.messages}


@pytest.fixture(scope="module")
def llamaindex_run(start: str, spy: Spy) -> dict[str, Any]:
    """WebmdReader().load_data(per="chunk"): its documents, rows and options."""
    documents = WebmdReader().load_data(start, **OPTIONS)
    return {**spy.last(), "documents": documents}


@pytest.fixture(scope="module")
def page_run(start: str, spy: Spy) -> dict[str, Any]:
    """WebmdLoader(per="page").lazy_load() without a chunk size."""
    documents = list(WebmdLoader(start, per="page", **PAGE_OPTIONS).lazy_load())
    return {**spy.last(), "documents": documents}


def pages(rows: list[Row]) -> list[Row]:
    return [row for row in rows if row.row_type == "page"]


def expected_chunks(rows: list[Row]) -> list[tuple[str, str, dict[str, Any]]]:
    """(id, text, metadata) of every chunk of every page row, in feed order."""
    expected = []
    for row in pages(rows):
        url = row.final_url or row.url
        for chunk in row.chunks or []:
            metadata = {
                "url": url,
                "source": url,
                "title": row.title or "",
                "heading_path": " > ".join(chunk["heading_path"]),
                "chunk_id": chunk["chunk_id"],
                "chunk_index": chunk["index"],
                "char_start": chunk["char_start"],
                "char_end": chunk["char_end"],
                "content_hash": row.content_hash,
                "scraped_at": row.scraped_at,
            }
            expected.append((chunk["chunk_id"], chunk["text"], metadata))
    return expected


def langchain_triples(documents: list[LangchainDocument]) -> list[tuple[Any, str, dict]]:
    return [(doc.id, doc.page_content, doc.metadata) for doc in documents]


def llama_triples(documents: list[LlamaDocument]) -> list[tuple[Any, str, dict]]:
    return [(doc.id_, doc.text, doc.metadata) for doc in documents]


def without_time(triples: list[tuple[Any, str, dict]]) -> dict[Any, tuple[str, dict]]:
    """Keyed by id, ``scraped_at`` dropped: what two crawls of one site share."""
    return {
        id_: (text, {k: v for k, v in meta.items() if k != "scraped_at"})
        for id_, text, meta in triples
    }


# --------------------------------------------------------------------------- #
# documents against the rows of their own crawl
# --------------------------------------------------------------------------- #


def test_langchain_chunk_documents_match_the_rows_of_their_crawl(
    langchain_run: dict[str, Any],
) -> None:
    rows, documents = langchain_run["rows"], langchain_run["documents"]
    assert len(pages(rows)) >= 10 and all(row.chunks for row in pages(rows))
    assert all(isinstance(doc, LangchainDocument) for doc in documents)
    assert langchain_triples(documents) == expected_chunks(rows)
    # the crawl ran with the caller's options, untouched
    assert langchain_run["options"] == OPTIONS


def test_llamaindex_chunk_documents_match_the_rows_of_their_crawl(
    llamaindex_run: dict[str, Any],
) -> None:
    rows, documents = llamaindex_run["rows"], llamaindex_run["documents"]
    assert all(isinstance(doc, LlamaDocument) for doc in documents)
    assert llama_triples(documents) == expected_chunks(rows)
    assert llamaindex_run["options"] == OPTIONS


def test_chunk_text_is_the_pages_markdown_at_its_offsets(langchain_run: dict[str, Any]) -> None:
    rows = pages(langchain_run["rows"])
    markdown = {row.final_url: row.markdown for row in rows}
    # a piece of a cut table or code block repeats its header or fence ("split")
    split = {c["chunk_id"]: c["split"] for row in rows for c in row.chunks or []}
    for doc in langchain_run["documents"]:
        meta = doc.metadata
        if split[meta["chunk_id"]] is None:
            page = markdown[meta["url"]] or ""
            assert doc.page_content == page[meta["char_start"] : meta["char_end"]]


def test_metadata_values_are_flat(
    langchain_run: dict[str, Any], llamaindex_run: dict[str, Any]
) -> None:
    """Vector stores keep str / int / float / None values only (no lists, no dicts)."""
    documents = langchain_run["documents"] + llamaindex_run["documents"]
    for doc in documents:
        for value in doc.metadata.values():
            assert value is None or isinstance(value, str | int | float), doc.metadata


def test_llamaindex_embeds_the_title_and_heading_path_not_the_bookkeeping(
    llamaindex_run: dict[str, Any],
) -> None:
    doc = next(d for d in llamaindex_run["documents"] if d.metadata["chunk_index"] == 1)
    embedded = doc.get_content(metadata_mode=MetadataMode.EMBED)
    assert doc.metadata["title"] in embedded and doc.metadata["heading_path"] in embedded
    assert doc.metadata["content_hash"] not in embedded
    assert doc.metadata["chunk_id"] not in embedded


def test_site_and_diagnostic_rows_give_no_documents(langchain_run: dict[str, Any]) -> None:
    rows = langchain_run["rows"]
    failed = [row for row in rows if row.row_type == "diagnostic"]
    assert failed, "the demo site has a 404 link and a JavaScript shell"
    urls = {doc.metadata["url"] for doc in langchain_run["documents"]}
    assert urls == {row.final_url for row in pages(rows)}
    for row in failed:
        assert row.url not in urls
        assert any(str(row.url) in message for message in langchain_run["warnings"])


# --------------------------------------------------------------------------- #
# documents against a separate api.crawl with the same options
# --------------------------------------------------------------------------- #


def test_loaders_match_a_separate_crawl_of_the_same_site(
    reference_rows: list[Row], langchain_run: dict[str, Any], llamaindex_run: dict[str, Any]
) -> None:
    expected = without_time(expected_chunks(reference_rows))
    assert without_time(langchain_triples(langchain_run["documents"])) == expected
    assert without_time(llama_triples(llamaindex_run["documents"])) == expected


def test_per_page_gives_one_document_per_page_row(
    reference_rows: list[Row], page_run: dict[str, Any]
) -> None:
    documents, rows = page_run["documents"], page_run["rows"]
    assert page_run["options"] == PAGE_OPTIONS  # no chunk size added for pages
    assert len(documents) == len(pages(rows))
    for doc, row in zip(documents, pages(rows), strict=True):
        assert doc.id == row.final_url
        assert doc.page_content == row.markdown
        assert doc.metadata == {
            "url": row.final_url,
            "source": row.final_url,
            "title": row.title,
            "heading_path": "",
            "chunk_id": None,
            "chunk_index": None,
            "char_start": 0,
            "char_end": len(row.markdown or ""),
            "content_hash": row.content_hash,
            "scraped_at": row.scraped_at,
        }
    # the same pages, titles and content as the reference crawl (chunked or not, a
    # page's Markdown is the same)
    reference = {row.final_url: (row.title, row.content_hash) for row in pages(reference_rows)}
    got = {d.metadata["url"]: (d.metadata["title"], d.metadata["content_hash"]) for d in documents}
    assert got == reference


# --------------------------------------------------------------------------- #
# no crawl: arguments, and a stand-in crawl that replays the reference rows
# --------------------------------------------------------------------------- #


@pytest.fixture
def no_crawl(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """``source.crawl`` replaced by a stub that records its calls and yields nothing."""
    calls: list[Any] = []

    def stub(start: Any, **options: Any) -> Iterator[Row]:
        calls.append((start, options))
        yield from ()

    monkeypatch.setattr(source, "crawl", stub)
    return calls


def test_bogus_per_raises_value_error(start: str, no_crawl: list[Any]) -> None:
    with pytest.raises(ValueError, match="'chunk' or 'page'"):
        WebmdLoader(start, per="bogus")
    with pytest.raises(ValueError, match="'chunk' or 'page'"):
        WebmdReader().lazy_load_data(start, per="bogus")  # at the call, not at next()
    with pytest.raises(ValueError, match="'chunk' or 'page'"):
        WebmdReader().load_data(start, per="bogus")
    assert no_crawl == []


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_pages": 0}, "max_pages"),
        ({"no_such_option": 1}, "no_such_option"),
        ({"chunk_tokens": 5}, "chunk_tokens"),
        # per="chunk" with chunking turned off has nothing to give
        ({"chunk_tokens": 0}, "per='chunk' needs a chunk size"),
    ],
)
def test_bad_option_raises_options_error_at_construction(
    start: str, no_crawl: list[Any], options: dict[str, Any], message: str
) -> None:
    with pytest.raises(OptionsError, match=message):
        WebmdLoader(start, **options)
    with pytest.raises(OptionsError, match=message):
        WebmdReader().lazy_load_data(start, **options)
    assert no_crawl == []


def test_default_chunk_size_only_when_none_is_given(start: str, tmp_path: Path) -> None:
    assert CrawlSource(start, "chunk", {}).options == {"chunk_tokens": DEFAULT_CHUNK_TOKENS}
    assert CrawlSource(start, "chunk", {"chunk_size": 2000}).options == {"chunk_size": 2000}
    assert CrawlSource(start, "chunk", {"chunk_tokens": 300}).options == {"chunk_tokens": 300}
    assert CrawlSource(start, "page", {}).options == {}
    # a job file's chunk size counts too (a default beside it would be "not both")
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"chunk_size": 2000}), encoding="utf-8")
    assert CrawlSource(start, "chunk", {"input": str(job)}).options == {"input": str(job)}
    job.write_text(json.dumps({"max_pages": 3}), encoding="utf-8")
    chunked = {"input": str(job), "chunk_tokens": DEFAULT_CHUNK_TOKENS}
    assert CrawlSource(start, "chunk", {"input": str(job)}).options == chunked


def test_breaking_out_closes_the_crawl(
    start: str, reference_rows: list[Row], monkeypatch: pytest.MonkeyPatch
) -> None:
    """api.crawl stops its child when its generator is closed: the loaders close it
    as soon as the caller stops, not whenever the garbage collector gets to it."""
    closed: list[bool] = []

    def replay(start: Any, **options: Any) -> Iterator[Row]:
        try:
            yield from reference_rows
        finally:
            closed.append(True)

    monkeypatch.setattr(source, "crawl", replay)
    documents = WebmdLoader(start, **OPTIONS).lazy_load()
    next(documents)
    assert closed == []
    documents.close()
    assert closed == [True]
    reader_documents = WebmdReader().lazy_load_data(start, per="page", **OPTIONS)
    first = next(iter(reader_documents))
    assert isinstance(first, LlamaDocument) and first.text == pages(reference_rows)[0].markdown
    reader_documents.close()
    assert closed == [True, True]
