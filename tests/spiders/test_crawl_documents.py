"""PDF and DOCX documents linked from a real local site become page rows (issue 19 §1):
converted, chunked, written to the Markdown tree, under robots.txt and the incremental
state like HTML pages; the ones that cannot be converted are ``unsupported`` rows; with
``parse_documents=false`` document links are neither fetched nor counted."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer

from ..crawling import by_type, crawl, crawl_with_stats, prose_page
from ..documents.samples import (
    PAGE_TWO_HEADING,
    PROSE,
    TITLE,
    image_only_pdf,
    report_docx,
    report_pdf,
    truncated,
)

Serve = Callable[[Path], SiteServer]
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
#: every document the home page links, and the page only the report's PDF links
LINKS = (
    "/report.pdf", "/notes.docx", "/files/annual", "/locked.pdf", "/broken.pdf",
    "/scan.pdf", "/mislabeled.pdf", "/private.pdf",
)  # fmt: skip
DOCUMENT_PATHS = {"/report.pdf", "/notes.docx", "/locked.pdf", "/broken.pdf", "/scan.pdf"}
DOCUMENT_PATHS |= {"/mislabeled.pdf", "/private.pdf"}


def document_site(root: Path, serve_site: Serve) -> SiteServer:
    """A site whose home page links a PDF report (which links a page of its own), a
    DOCX, a PDF at a URL without extension served as application/octet-stream, an
    encrypted, a truncated, an image-only and a mislabelled PDF, and a PDF robots.txt
    disallows. Written once the server runs: the report's link needs its port."""
    root.mkdir(parents=True)
    server = serve_site(root)
    report = report_pdf(link=server.url("/from-pdf.html"))
    files: dict[str, bytes] = {
        "robots.txt": b"User-agent: *\nDisallow: /private.pdf\n",
        "index.html": prose_page("Harbor Home", *LINKS).encode(),
        "from-pdf.html": prose_page("Harbor Map").encode(),
        "report.pdf": report,
        "notes.docx": report_docx(),
        "annual.bin": report_pdf(metadata_title="Annual Harbor Review"),
        "locked.pdf": report_pdf(user_password="s3cret"),
        "broken.pdf": truncated(report),
        "scan.pdf": image_only_pdf(),
        "mislabeled.pdf": b"<html><body><h1>Oops</h1><p>An error page.</p></body></html>",
        "private.pdf": report,
    }
    for name, body in files.items():
        (root / name).write_bytes(body)
    routes = {
        "/notes.docx": {"file": "notes.docx", "content_type": DOCX_TYPE},
        "/files/annual": {"file": "annual.bin", "content_type": "application/octet-stream"},
    }
    (root / "_routes.json").write_text(json.dumps(routes), encoding="utf-8")
    return server


def rows_by_path(server: SiteServer, rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["url"].removeprefix(server.base_url): r for r in rows if r["row_type"] != "site"}


@deferred_f_from_coro_f
async def test_linked_documents_become_page_rows_and_diagnostics(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = document_site(tmp_path / "site", serve_site)
    tree = tmp_path / "tree"
    rows = await crawl(
        tmp_path / "run", {"WEBMD_EXTRACT_PROCESSES": 0}, start=server.url("/"),
        chunk_size="500", out_dir=str(tree),
    )  # fmt: skip
    found = rows_by_path(server, rows)
    pages = {path for path, row in found.items() if row["row_type"] == "page"}
    assert pages == {"/", "/report.pdf", "/notes.docx", "/files/annual", "/from-pdf.html"}

    report = found["/report.pdf"]
    assert report["content_type"] == "application/pdf" and report["page_count"] == 2
    assert report["title"] == TITLE and report["extraction_method"] == "pdf"
    assert report["discovered_via"] == "link" and report["notes"] is None
    markdown = report["markdown"]
    assert markdown.startswith(f"<!-- page 1 -->\n\n# {TITLE}\n\n## Tides and Queues\n\n")
    assert f"<!-- page 2 -->\n\n## {PAGE_TWO_HEADING}" in markdown
    assert PROSE in markdown.split("\n\n")  # one paragraph, not hard-wrapped lines
    assert "<!--" not in report["text"] and report["word_count"] > 100
    assert report["content_hash"] == "sha256:" + hashlib.sha256(markdown.encode()).hexdigest()
    assert report["links"] == [
        {
            "text": server.url("/from-pdf.html"),
            "url": server.url("/from-pdf.html"),
            "internal": True,
        }
    ]
    chunks = report["chunks"]
    assert report["chunk_count"] == len(chunks) >= 3
    assert chunks[0]["char_start"] == 0 and chunks[-1]["char_end"] == len(markdown)
    for chunk in chunks:
        assert chunk["text"] == markdown[chunk["char_start"] : chunk["char_end"]]
        assert chunk["heading_path"][0] == TITLE and chunk["url"] == report["final_url"]
    assert found["/from-pdf.html"]["discovered_via"] == "link"  # a link inside the PDF

    notes = found["/notes.docx"]
    assert notes["content_type"] == DOCX_TYPE and notes["page_count"] is None
    assert notes["title"] == TITLE and notes["extraction_method"] == "docx"
    assert "## Crew Duties" in notes["markdown"]
    assert "| Pier | Berths | Depth |" in notes["markdown"] and notes["chunks"]

    annual = found["/files/annual"]  # no extension: its bytes say PDF
    assert annual["page_count"] == 2 and annual["title"] == "Annual Harbor Review"
    assert annual["content_type"] == "application/octet-stream"
    assert annual["notes"] == [
        "served as application/octet-stream; the body is a PDF document, read as PDF"
    ]

    problems = {
        path: (row["error_type"], row["error"])
        for path, row in found.items()
        if row["row_type"] == "diagnostic"
    }
    assert problems == {
        "/locked.pdf": ("unsupported", "the PDF is encrypted: it needs a password to open"),
        "/broken.pdf": (
            "unsupported",
            "the PDF is truncated: it does not end with the %%EOF marker of a complete file "
            f"({len(truncated((tmp_path / 'site' / 'report.pdf').read_bytes())):,} bytes "
            "received)",
        ),
        "/scan.pdf": (
            "unsupported",
            "the PDF has no text layer: its pages are images (a scan?); text recognition "
            "(OCR) is not done",
        ),
        "/mislabeled.pdf": (
            "unsupported",
            "the body is not a PDF file (it starts with '<html><body><h1>', not %PDF-)",
        ),
    }
    assert server.hits("/private.pdf") == 0  # robots.txt applies to documents too
    (site,) = by_type(rows, "site")
    assert site["pages_extracted"] == 5 and site["failures"] == 4
    assert site["robots_blocked"] == 1
    written = (tree / "report.pdf.md").read_text("utf-8")
    assert "<!-- page 2 -->" in written and f"# {TITLE}" in written


@deferred_f_from_coro_f
async def test_parse_documents_false_neither_fetches_nor_counts_document_links(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = document_site(tmp_path / "site", serve_site)
    rows = await crawl(tmp_path / "run", start=server.url("/"), parse_documents="false")
    for path in DOCUMENT_PATHS:
        assert server.hits(path) == 0, path
    found = rows_by_path(server, rows)
    # a URL without an extension is fetched (nothing says what it is): as before, a
    # PDF there is `not-html`
    assert set(found) == {"/", "/files/annual"}
    assert found["/files/annual"]["error_type"] == "not-html"
    (site,) = by_type(rows, "site")
    assert site["pages_extracted"] == 1 and site["failures"] == 1


@deferred_f_from_coro_f
async def test_documents_convert_alike_in_an_extraction_process(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = document_site(tmp_path / "site", serve_site)
    here = await crawl(tmp_path / "here", {"WEBMD_EXTRACT_PROCESSES": 0}, start=server.url("/"))
    pooled = await crawl(tmp_path / "pool", {"WEBMD_EXTRACT_PROCESSES": 1}, start=server.url("/"))

    def documents(rows: list[dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
        return {
            r["url"]: (r["row_type"], r["markdown"], r["page_count"], r["error"])
            for r in rows
            if r["url"] and r["url"].removeprefix(server.base_url) in DOCUMENT_PATHS
        }

    assert documents(pooled) == documents(here) and len(documents(here)) == 6


@deferred_f_from_coro_f
async def test_an_unchanged_document_is_a_304_in_an_incremental_recrawl(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = document_site(tmp_path / "site", serve_site)
    state = {
        "WEBMD_INCREMENTAL": True,
        "WEBMD_STATE_DIR": str(tmp_path / "state"),
        "WEBMD_STATE": "docs",
    }
    first, _ = await crawl_with_stats(tmp_path, state, start=server.url("/"))
    assert rows_by_path(server, first)["/report.pdf"]["change"] == "new"
    server.clear_requests()
    second, _ = await crawl_with_stats(tmp_path, state, start=server.url("/"))
    report = rows_by_path(server, second)["/report.pdf"]
    assert report["change"] == "unchanged" and report["markdown"] is None
    assert [r.status for r in server.requests if r.path == "/report.pdf"] == [304]
