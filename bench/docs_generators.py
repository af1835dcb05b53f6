"""API reference from documentation generators the extractor was not built for (issue 30):
crawl one site per generator family and count what its rows say went wrong.

    .venv/bin/python bench/docs_generators.py                       # every family, 80 pages
    .venv/bin/python bench/docs_generators.py --sites rustdoc,doxygen --pages 40

The sites are the folders of ``bench/generator_sites.py`` (javadoc 17 and 11, rustdoc,
Doxygen, Texinfo, gtk-doc, Sphinx with four themes, MkDocs; built from Debian packages
on first use). Each is copied with a generated robots.txt and sitemap index
(``bench/docsite.py``) and served on 127.0.0.1 by the project's SiteServer, then crawled
once as ``bench/docs_sites.py`` does: ``scrapy crawl site -a start=ROOT/START -a
discovery=links -a max_pages=N -a chunk_tokens=400`` in a subprocess with the
politeness floors off (``WEBMD_FLAGS`` of ``bench/crawl.py``), so the pages are those a
link crawl from the family's start page reaches, at most ``--pages`` of them (Django's
``ref/`` subset adds ``-a include_patterns=*/ref/*``).

Per site it prints one table row, from the crawl's rows (a generated hub page listing a
subset, rustdoc's, or the page list ``prepare_site`` writes where a folder has no
``index.html``, is left out of the counts):

* pages (page rows), diagnostics (rows that are neither page nor site rows; by error
  type in the JSON), empty pages (diagnostics ``empty`` and page rows without Markdown),
  pages without a title;
* chunks whose ``heading_path[0]`` is not the page's title line, chunks that are only
  headings, and the largest chunk in tokens;

and, when page rows carry the ``removed`` column (the loss audit: what extraction removed
from inside the content root, per kind), a second table: the sums of its numeric kinds
over the site's pages and the page that lost the most code blocks, tables and
signatures. Results (with example URLs of every count) go to
``bench/results/docs-generators-<date>.json``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from crawl import REPO, VENV_PY, WEBMD_FLAGS
from docs_sites import title_line
from docsite import prepare_site
from generator_sites import FAMILIES, prepare

from webmd_spider.chunking.markdown_chunks import scan_blocks
from webmd_spider.demo.server import SiteServer

#: the ``removed`` kinds whose loss names a page (what API reference users miss most)
WATCHED = ("code", "table", "signature")
EXAMPLES = 5


def crawl(
    start: str, out: Path, pages: int, chunk_tokens: int, include: str = ""
) -> list[dict[str, Any]]:
    """One link crawl from `start`, at most `pages` page rows (`include`: the
    ``include_patterns``, if any); its rows."""
    command = [
        str(VENV_PY), "-m", "scrapy", "crawl", "site", "-a", f"start={start}",
        "-a", "discovery=links", "-a", f"max_pages={pages}",
        "-a", f"chunk_tokens={chunk_tokens}", *WEBMD_FLAGS, "-s", "LOG_LEVEL=WARNING",
        "-O", f"{out}:jsonl",
    ]  # fmt: skip
    if include:
        command[5:5] = ["-a", f"include_patterns={include}"]
    subprocess.run(command, cwd=REPO, check=True)
    return [json.loads(line) for line in out.read_text("utf-8").splitlines() if line.strip()]


def removed_totals(pages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The ``removed`` columns of `pages` summed (numeric kinds only), with the page that
    lost the most code blocks, tables and signatures; None when no row carries one."""
    carried = [r for r in pages if isinstance(r.get("removed"), dict)]
    if not carried:
        return None
    sums: Counter[str] = Counter()
    rules: dict[str, Counter[str]] = {}
    worst: tuple[int, str, dict[str, int]] = (0, "", {})
    for row in carried:
        removed = row["removed"]
        for key, value in removed.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                sums[key] += value
        for rule, numbers in (removed.get("by_rule") or {}).items():
            if isinstance(numbers, dict):
                counted = rules.setdefault(rule, Counter())
                counted.update({k: v for k, v in numbers.items() if isinstance(v, int)})
        lost = {kind: int(removed.get(kind) or 0) for kind in WATCHED}
        if sum(lost.values()) > worst[0]:
            worst = (sum(lost.values()), row["url"], lost)
    return {
        "pages_with_column": len(carried),
        "sums": dict(sums),
        "by_rule": {
            rule: dict(c) for rule, c in sorted(rules.items(), key=lambda i: -i[1]["blocks"])
        },
        "worst_page": {"url": worst[1], **worst[2]} if worst[0] else None,
    }


def audit(rows: list[dict[str, Any]], generated: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The counts of one crawl's rows (`generated`: the URLs of generated pages, left
    out: a hub listing a subset, the page list ``prepare_site`` writes)."""
    pages = [r for r in rows if r.get("row_type") == "page" and r.get("url") not in generated]
    diagnostics = [r for r in rows if r.get("row_type") not in ("page", "site")]
    sites = [r for r in rows if r.get("row_type") == "site"]
    empty = [r["url"] for r in diagnostics if r.get("error_type") == "empty"]
    empty += [r["url"] for r in pages if not (r.get("markdown") or "").strip()]
    untitled = [r["url"] for r in pages if not (r.get("title") or "").strip()]
    by_type = Counter(r.get("error_type") or r.get("row_type") for r in diagnostics)
    diag_examples: dict[str, list[str]] = {}
    for r in diagnostics:
        key = r.get("error_type") or str(r.get("row_type"))
        diag_examples.setdefault(key, [])
        if len(diag_examples[key]) < EXAMPLES:
            diag_examples[key].append(f"{r.get('url')}: {r.get('error')}")
    chunks, off_title, headings_only, largest = 0, [], [], (0, "")
    for row in pages:
        title = title_line(row.get("markdown") or "")
        for chunk in row.get("chunks") or []:
            chunks += 1
            path = chunk.get("heading_path") or []
            if not path or path[0] != title:
                off_title.append(f"{row['url']} {path[:2]} (title line {title!r})")
            if all(b.kind == "heading" for b in scan_blocks(chunk["text"])):
                headings_only.append(f"{row['url']} {path}")
            if chunk["token_estimate"] > largest[0]:
                largest = (chunk["token_estimate"], row["url"])
    return {
        "pages": len(pages),
        "diagnostics": len(diagnostics),
        "diagnostics_by_type": dict(by_type),
        "diagnostic_examples": diag_examples,
        "empty_pages": len(empty),
        "empty_examples": empty[:EXAMPLES],
        "pages_without_title": len(untitled),
        "untitled_examples": untitled[:EXAMPLES],
        "chunks": chunks,
        "chunks_not_under_title": len(off_title),
        "off_title_examples": off_title[:EXAMPLES],
        "heading_only_chunks": len(headings_only),
        "heading_only_examples": headings_only[:EXAMPLES],
        "largest_chunk_tokens": largest[0],
        "largest_chunk_page": largest[1],
        "extraction_methods": dict(Counter(r.get("extraction_method") for r in pages)),
        "stop_reason": sites[0].get("stop_reason") if sites else None,
        "removed": removed_totals(pages),
        "page_urls": [r["url"] for r in pages],
        "titles": {r["url"]: r.get("title") for r in pages},
    }


def run_site(name: str, pages: int, chunk_tokens: int) -> dict[str, Any]:
    """Prepare, serve and crawl family `name`; its audit."""
    family = FAMILIES[name]
    folder = prepare(name)
    with tempfile.TemporaryDirectory() as tmp:
        prepare_site(folder, Path(tmp) / "site")
        with SiteServer(Path(tmp) / "site") as server:
            start = f"{server.base_url}/{family.start}"
            rows = crawl(start, Path(tmp) / "rows.jsonl", pages, chunk_tokens, family.include)
            generated = frozenset()
            if family.hub or not (folder / "index.html").exists():
                generated = frozenset({f"{server.base_url}/", f"{server.base_url}/index.html"})
            result = audit(rows, generated)
            base = server.base_url
    result.update(generator=family.generator, package=family.package, start=family.start)
    # the port changes from run to run: keep the paths
    for key in ("page_urls",):
        result[key] = [u.removeprefix(base) for u in result[key]]
    result["titles"] = {u.removeprefix(base): t for u, t in result["titles"].items()}
    return result


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)


def print_tables(results: dict[str, dict[str, Any]], chunk_tokens: int) -> None:
    print(
        "| site | pages | diagnostics | empty | no title | chunks off title "
        f"| heading-only chunks | largest chunk (limit {2 * chunk_tokens}) | stop |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, r in results.items():
        print(
            f"| {name} | {r['pages']} | {r['diagnostics']} | {r['empty_pages']} "
            f"| {r['pages_without_title']} | {r['chunks_not_under_title']}/{r['chunks']} "
            f"| {r['heading_only_chunks']} | {r['largest_chunk_tokens']} "
            f"| {_cell(r['stop_reason'])} |"
        )
    with_removed = {n: r["removed"] for n, r in results.items() if r.get("removed")}
    if not with_removed:
        print("\n(no page row carries a `removed` column)")
        return
    kinds: list[str] = []
    for totals in with_removed.values():
        kinds += [k for k in totals["sums"] if k not in kinds]
    print("\nremoved (summed over the pages):\n")
    print("| site | " + " | ".join(kinds) + " | most code/tables/signatures lost |")
    print("|---|" + "---:|" * len(kinds) + "---|")
    for name, totals in with_removed.items():
        worst = totals["worst_page"]
        named = "-"
        if worst:
            lost = ", ".join(f"{k} {worst[k]}" for k in WATCHED)
            named = f"/{worst['url'].split('/', 3)[-1]} ({lost})"
        sums = " | ".join(_cell(totals["sums"].get(k)) for k in kinds)
        print(f"| {name} | {sums} | {named} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", default=",".join(FAMILIES), help="families, comma-separated")
    parser.add_argument("--pages", type=int, default=80, help="page rows per site (max_pages)")
    parser.add_argument("--chunk-tokens", type=int, default=400)
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.sites.split(",") if n.strip()]
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        parser.error(f"unknown families {unknown}; known: {', '.join(FAMILIES)}")
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "max_pages": args.pages,
        "chunk_tokens": args.chunk_tokens,
        "sites": {},
    }
    for name in names:
        print(f"crawling {name}", file=sys.stderr)
        report["sites"][name] = run_site(name, args.pages, args.chunk_tokens)
    print_tables(report["sites"], args.chunk_tokens)
    out = REPO / "bench" / "results" / f"docs-generators-{datetime.now(UTC):%Y-%m-%d}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"results: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
