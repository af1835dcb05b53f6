"""Documentation sites exactly right (issue 15): crawl PostgreSQL 15's DocBook HTML and
Python 3.11's Sphinx HTML as a user would, and count the page-family defects.

    .venv/bin/python bench/docs_sites.py                    # both sites, 3 runs each
    .venv/bin/python bench/docs_sites.py --sites postgres --runs 1 --chunk-tokens 300

Each site is copied with a generated robots.txt and sitemap index (``bench/docsite.py``)
and served on 127.0.0.1 by the project's SiteServer; each run is ``scrapy crawl site -a
start=ROOT -a chunk_tokens=N`` in a subprocess (politeness floors off, as in
``bench/crawl.py``). Per site it prints, from the first run's rows, and every count should
be zero:

* pages whose Markdown holds a navigation table (a table row of Prev / Up / Home / Next
  links), and pages extracted with method ``body``;
* inline code spans (outside fences and table rows) holding a run of two or more ASCII
  spaces, a tab or a line break (a no-break space run is the page's own and is not
  counted; the lines of a ``<pre>`` in a table cell, written as code spans with their
  alignment kept, are counted apart);
* chunks whose ``heading_path[0]`` is not the page's title line, and chunks that are
  only headings;

and the largest chunk in tokens (at most twice the size) and ``sitemap_url_count`` of
every run against the number of URLs the sitemaps list (equal on every run). Results go
to ``bench/results/docs-sites-<date>.json`` too.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from crawl import REPO, SITES, VENV_PY, WEBMD_FLAGS, ensure_docs
from docsite import prepare_site

from webmd_spider.chunking.markdown_chunks import scan_blocks
from webmd_spider.demo.server import SiteServer

#: a GFM table row holding two or more of DocBook's navigation links
_NAV_ROW = re.compile(r"^\|.*\[(?:Prev|Next|Up|Home)\]\(.*\[(?:Prev|Next|Up|Home)\]\(", re.M)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_WS_RUN = re.compile(r"[ ]{2,}|[\t\n]")


def code_spans_with_runs(markdown: str, in_tables: bool = False) -> int:
    """Inline code spans outside fenced blocks holding a whitespace run: outside table
    rows, or (`in_tables`) inside them, where a ``<pre>`` of a cell (psql's aligned
    output) is written as code spans, one per line, its spaces kept on purpose."""
    count = 0
    fence = ""
    for line in markdown.split("\n"):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            continue
        if line.startswith("|") != in_tables:
            continue
        for span in _CODE_SPAN.finditer(line):
            body = span.group(2)
            if body.startswith(" ") and body.endswith(" ") and body.strip():
                body = body[1:-1]  # CommonMark's one-space padding
            count += bool(_WS_RUN.search(body))
    return count


def title_line(markdown: str) -> str | None:
    """The plain text of the page's ``# Title`` line, if it opens the Markdown."""
    blocks = scan_blocks(markdown)
    if blocks and blocks[0].kind == "heading" and blocks[0].level == 1:
        return blocks[0].text
    return None


def audit(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The defect counts of one run's rows."""
    pages = [r for r in rows if r.get("row_type") == "page" and r.get("markdown")]
    found: dict[str, Any] = {"pages": len(pages), "chunks": 0}
    nav, body, spans, off_title, headings_only, largest = [], [], 0, 0, 0, 0
    cell_pre = 0
    for row in pages:
        markdown = row["markdown"]
        if _NAV_ROW.search(markdown):
            nav.append(row["url"])
        if row.get("extraction_method") == "body":
            body.append(row["url"])
        spans += code_spans_with_runs(markdown)
        cell_pre += code_spans_with_runs(markdown, in_tables=True)
        title = title_line(markdown)
        for chunk in row.get("chunks") or []:
            found["chunks"] += 1
            path = chunk["heading_path"]
            if not path or path[0] != title:
                off_title += 1
            if all(b.kind == "heading" for b in scan_blocks(chunk["text"])):
                headings_only += 1
            largest = max(largest, chunk["token_estimate"])
    found.update(
        nav_table_pages=len(nav),
        nav_examples=nav[:5],
        body_pages=len(body),
        body_examples=body[:5],
        code_spans_with_whitespace_runs=spans,
        table_cell_pre_lines_with_runs=cell_pre,
        chunks_not_under_title=off_title,
        heading_only_chunks=headings_only,
        largest_chunk_tokens=largest,
    )
    return found


def crawl(root: str, out: Path, chunk_tokens: int) -> list[dict[str, Any]]:
    command = [
        str(VENV_PY), "-m", "scrapy", "crawl", "site", "-a", f"start={root}/",
        "-a", f"chunk_tokens={chunk_tokens}", *WEBMD_FLAGS, "-s", "LOG_LEVEL=WARNING",
        "-O", f"{out}:jsonl",
    ]  # fmt: skip
    subprocess.run(command, cwd=REPO, check=True)
    return [json.loads(line) for line in out.read_text("utf-8").splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", default="postgres,python")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--chunk-tokens", type=int, default=400)
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.sites.split(",") if n.strip()]
    ensure_docs(names)
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "chunk_tokens": args.chunk_tokens,
        "sites": {},
    }
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            pages = prepare_site(SITES[name][0], Path(tmp) / "site")
            with SiteServer(Path(tmp) / "site") as server:
                counts = []
                result: dict[str, Any] = {}
                for run in range(args.runs):
                    rows = crawl(
                        server.base_url, Path(tmp) / f"rows-{run}.jsonl", args.chunk_tokens
                    )
                    sites = [r for r in rows if r.get("row_type") == "site"]
                    counts.append(sites[0].get("sitemap_url_count") if sites else None)
                    if run == 0:
                        result = audit(rows)
        result.update(sitemap_urls=len(pages), sitemap_url_count_runs=counts)
        report["sites"][name] = result
        limit = 2 * args.chunk_tokens
        print(f"== {name}: {result['pages']} pages, {result['chunks']} chunks")
        for key in (
            "nav_table_pages", "body_pages", "code_spans_with_whitespace_runs",
            "chunks_not_under_title", "heading_only_chunks",
        ):  # fmt: skip
            print(f"  {key:34} {result[key]}")
        print(f"  {'largest_chunk_tokens':34} {result['largest_chunk_tokens']} (limit {limit})")
        kept = result["table_cell_pre_lines_with_runs"]
        print(f"  {'(<pre> lines in table cells, kept)':34} {kept}")
        print(f"  {'sitemap_url_count per run':34} {counts} (sitemaps list {len(pages)})")
    out = REPO / "bench" / "results" / f"docs-sites-{datetime.now(UTC):%Y-%m-%d}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"results: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
