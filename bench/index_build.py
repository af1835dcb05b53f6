"""Building one search index of two documentation sites, and searching it (issue 33).

    .venv/bin/python bench/index_build.py [--keep DIR]

The PostgreSQL 15 docs (1,169 pages) and the Python 3.11 docs (530 pages), each copied
with a robots.txt and sitemaps (``bench/docsite.py``) and served on its own 127.0.0.1
port, crawled by ONE ``scrapy crawl site -a start="ROOT1 ROOT2" -a index=FILE`` (the
shipped crawl and chunking, default embedder: wordllama's bundled model, politeness
floors off as in ``bench/crawl.py``), through ``bench/measure.py``: wall time, CPU
(user + system of the crawl process and its extraction workers, from ``wait4``), peak
RSS of the crawl process (its ``ru_maxrss``), the index's size on disk (the SQLite file,
its WAL and any ANN sidecar) and the run summary's change-feed counts.

Then search latency on that index over the term sample of ``bench/index_retrieval.py``
(Python's general index, seed 33), k=10, each mode:

* warm: one ``SearchIndex`` held open (a long-lived process: the vectors loaded once,
  by a first query timed apart), exact vector search (the index is below
  ``EXACT_MAX_VECTORS``);
* per call: ``webmd_spider.index.searching.search()`` (what ``webmd search``, the MCP
  tool and the HTTP API call: it opens the index and the embedder each time), on the
  first :data:`PER_CALL` terms;
* ANN forced (``exact_max=1000``): warm latency through the usearch sidecar, its build
  timed apart, and its recall@10 against the exact vector search on the same real
  vectors.

Results: ``bench/results/index-build-<date>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from index_common import RESULTS, crawl_index, page_path, page_rows, served
from index_retrieval import PYTHON_DOCS, parse_genindex, sample_terms

from webmd_spider.index.embedders import open_embedder
from webmd_spider.index.searching import search as api_search
from webmd_spider.index.store import SearchIndex

K = 10
PER_CALL = 100
MODES = ("keyword", "vector", "hybrid")


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "n": len(ordered),
        "p50_ms": round(1000 * statistics.median(ordered), 2),
        "p95_ms": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 2),
    }


def warm(index: Path, queries: list[str], exact_max: int) -> dict[str, Any]:
    out: dict[str, Any] = {"exact_max": exact_max}
    with SearchIndex.open(
        index, open_embedder("wordllama"), write=False, exact_max=exact_max
    ) as ix:
        start = time.perf_counter()
        ix.search("first query", k=K, mode="vector")
        out["first_vector_query_s"] = round(time.perf_counter() - start, 2)
        out["uses_ann"] = ix.uses_ann
        answers = []
        for mode in MODES:
            timing = []
            for query in queries:
                start = time.perf_counter()
                hits = ix.search(query, k=K, mode=mode)
                timing.append(time.perf_counter() - start)
                if mode == "vector":
                    answers.append([h.chunk_id for h in hits])
            out[mode] = percentiles(timing)
    out["vector_answers"] = answers
    return out


def per_call(index: Path, queries: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mode in MODES:
        timing = []
        for query in queries:
            start = time.perf_counter()
            api_search(index, query, K, mode=mode)
            timing.append(time.perf_counter() - start)
        out[mode] = percentiles(timing)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="copy the index and the rows here")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="index-build-") as tmp_name:
        tmp = Path(tmp_name)
        index = tmp / "docs.idx"
        with (
            served("postgres", tmp / "postgres") as (pg, pg_pages),
            served("python", tmp / "python") as (py, py_pages),
        ):
            starts = [pg.base_url + "/", py.base_url + "/"]
            run = crawl_index(starts, index, tmp / "work", "both")
            python_origin = py.base_url
        sizes = {
            suffix or "db": os.stat(str(index) + suffix).st_size
            for suffix in ("", "-wal", ".usearch")
            if os.path.exists(str(index) + suffix)
        }
        with SearchIndex.open(index, write=False) as opened:
            stats = opened.stats()
        rows = page_rows(Path(run["feed"]))
        crawled = {page_path(r["url"]) for r in rows if r["url"].startswith(python_origin)}
        terms = sample_terms(parse_genindex(PYTHON_DOCS), crawled)
        queries = [t["term"] for t in terms]
        print(f"built: {json.dumps(run)}; {stats}", file=sys.stderr)
        exact = warm(index, queries, exact_max=10**9)
        ann = warm(index, queries, exact_max=1_000)
        calls = per_call(index, queries[:PER_CALL])
        recall = statistics.mean(
            len(set(a) & set(e)) / max(1, len(e))
            for a, e in zip(ann["vector_answers"], exact["vector_answers"], strict=True)
        )
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for suffix in ("", "-wal", ".usearch"):
                if os.path.exists(str(index) + suffix):
                    shutil.copy2(str(index) + suffix, args.keep / ("docs.idx" + suffix))
            shutil.copy2(run["feed"], args.keep / "both.jsonl")
    for part in (exact, ann):
        part.pop("vector_answers")
    payload = {
        "pages_served": {"postgres": len(pg_pages), "python": len(py_pages)},
        "crawl": run,
        "files_bytes": sizes,
        "stats": stats,
        "queries": len(queries),
        "warm_exact": exact,
        "warm_ann": ann,
        "ann_recall_at_10": round(recall, 4),
        "per_call": calls,
    }
    out = args.json or RESULTS / f"index-build-{datetime.now(UTC):%Y-%m-%d}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=1), "utf-8")
    feed = run["change_feed"]
    size_mb = sum(sizes.values()) / 1e6
    print(
        "| pages | chunks embedded | wall s | CPU s | peak RSS MB (VmHWM) | index MB |\n"
        "|---:|---:|---:|---:|---:|---:|\n"
        f"| {run['rows'].get('page', 0)} | {feed.get('embedded', 0)} | {run['wall_s']:.1f} "
        f"| {run['cpu_s']:.1f} | {run['maxrss_mb']:.0f} ({run['vmhwm_mb']:.0f}) | {size_mb:.1f} |"
    )
    print(f"\nsearch latency over {len(queries)} terms, k={K}, {stats['chunks']} chunks:")
    print("| how | keyword p50 / p95 ms | vector p50 / p95 ms | hybrid p50 / p95 ms |")
    print("|---|---|---|---|")
    for name, part in (
        (f"warm, exact (first vector query {exact['first_vector_query_s']} s)", exact),
        (f"warm, ANN forced (first vector query {ann['first_vector_query_s']} s)", ann),
        (f"per call, searching.search ({PER_CALL} terms)", calls),
    ):
        cells = " | ".join(f"{part[m]['p50_ms']} / {part[m]['p95_ms']}" for m in MODES)
        print(f"| {name} | {cells} |")
    print(f"ANN recall@10 against exact (real vectors): {recall:.4f}; raw: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
