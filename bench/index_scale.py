"""Search latency of the index (issue 33) at a size no documentation site here has:
synthetic chunks built with the store's own API, searched exact and through the ANN.

    .venv/bin/python bench/index_scale.py --size 300000           # about 15 minutes here
    .venv/bin/python bench/index_scale.py --size 1000000 --keep /tmp/big.idx  # ~75 minutes here

Chunks: ``--size`` texts of 60 to 120 words (uniform), each word drawn independently
from the vocabulary of the PostgreSQL 15 and Python 3.11 docs (the words of their HTML
pages' text, ``[A-Za-z][A-Za-z0-9_]+`` lower-cased, drawn by their frequency there, so
word statistics are the docs'), seeded (numpy ``default_rng(33)``); 25 chunks per
synthetic page (title "Page N", heading path the title). Written with
``SearchIndex.apply`` in batches of :data:`BATCH` upserts (one transaction each),
embedded by the default embedder (wordllama's bundled model) inside ``apply``; the
build's wall time and the embedder's share are reported.

Queries: :data:`QUERIES` terms of Python's general index drawn as in
``bench/index_retrieval.py`` (seed 33). Each is searched in every mode, k=10, on one
open index (warm: the vectors loaded once, which the first query pays and is timed
apart): first exact (``exact_max`` above the size), then with the ANN (``exact_max``
1,000: the usearch HNSW sidecar, built on the first vector query and timed apart).
recall@10 of the ANN = the share of the exact vector search's 10 chunks the ANN's 10
hold. Results: ``bench/results/index-scale-<size>-<date>.json``.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import re
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import lxml.html
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from index_common import RESULTS, SITES, ensure_docs
from index_retrieval import parse_genindex

from webmd_spider.index.embedders import open_embedder
from webmd_spider.index.store import SearchIndex

BATCH = 10_000
QUERIES = 200
SEED = 33
K = 10
MODES = ("keyword", "vector", "hybrid")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]+")


def vocabulary() -> tuple[np.ndarray, np.ndarray]:
    """(words, probabilities) of the two doc sites' page text."""
    ensure_docs(["postgres", "python"])
    counts: collections.Counter[str] = collections.Counter()
    for site in ("postgres", "python"):
        for page in sorted(SITES[site][0].rglob("*.html")):
            if page.name.startswith("genindex"):
                continue
            text = lxml.html.parse(str(page)).getroot().text_content()
            counts.update(w.lower() for w in _WORD.findall(text))
    words = sorted(counts)
    weights = np.array([counts[w] for w in words], dtype=np.float64)
    return np.array(words, dtype=object), weights / weights.sum()


def texts(rng: np.random.Generator, words: np.ndarray, p: np.ndarray, n: int) -> list[str]:
    lengths = rng.integers(60, 121, size=n)
    drawn = words[rng.choice(len(words), size=int(lengths.sum()), p=p)]
    out, start = [], 0
    for length in lengths:
        out.append(" ".join(drawn[start : start + length]))
        start += length
    return out


class TimedEmbedder:
    """The default embedder, its time counted."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.dim, self.seconds = inner, inner.name, inner.dim, 0.0

    def embed(self, batch: Any) -> np.ndarray:
        start = time.perf_counter()
        try:
            return self.inner.embed(batch)
        finally:
            self.seconds += time.perf_counter() - start


def build(path: Path, size: int) -> dict[str, Any]:
    started = time.perf_counter()
    words, p = vocabulary()
    vocab_s = time.perf_counter() - started
    rng = np.random.default_rng(SEED)
    embedder = TimedEmbedder(open_embedder("wordllama"))
    generate_s = 0.0
    started = time.perf_counter()
    with SearchIndex.open(path, embedder) as index:
        for first in range(0, size, BATCH):
            count = min(BATCH, size - first)
            t0 = time.perf_counter()
            batch = texts(rng, words, p, count)
            generate_s += time.perf_counter() - t0
            records = []
            for number, text in enumerate(batch, start=first):
                page = number // 25
                records.append(
                    {
                        "op": "upsert",
                        "chunk_id": f"{number:016x}",
                        "url": f"https://synthetic.invalid/page-{page}",
                        "title": f"Page {page}",
                        "heading_path": [f"Page {page}"],
                        "heading_path_text": f"Page {page}",
                        "fragment": f"https://synthetic.invalid/page-{page}",
                        "text": text,
                        "markdown": text,
                        "content_hash": "sha256:" + hashlib.sha256(text.encode()).hexdigest(),
                    }
                )
            report = index.apply(records)
            assert report.upserted == count and not report.pending, report
            if not (first // BATCH) % 10:
                print(
                    f"  {first + count} chunks, {time.perf_counter() - started:.0f} s",
                    file=sys.stderr,
                )
        stats = index.stats()
    wall = time.perf_counter() - started
    return {
        "vocabulary_words": len(words),
        "vocabulary_s": round(vocab_s, 1),
        "build_wall_s": round(wall, 1),
        "generate_s": round(generate_s, 1),
        "embed_s": round(embedder.seconds, 1),
        "store_s": round(wall - generate_s - embedder.seconds, 1),
        "stats": stats,
    }


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50_ms": round(1000 * statistics.median(ordered), 2),
        "p95_ms": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 2),
    }


def measure(path: Path, queries: list[str], exact_max: int) -> dict[str, Any]:
    """First vector query (load or ANN build) timed apart, then each mode's latency."""
    embedder = open_embedder("wordllama")
    out: dict[str, Any] = {"exact_max": exact_max}
    with SearchIndex.open(path, embedder, write=False, exact_max=exact_max) as index:
        start = time.perf_counter()
        index.search("first query", k=K, mode="vector")
        out["first_vector_query_s"] = round(time.perf_counter() - start, 2)
        out["uses_ann"] = index.uses_ann
        answers: dict[str, list[list[str]]] = {}
        for mode in MODES:
            timing = []
            answers[mode] = []
            for query in queries:
                start = time.perf_counter()
                hits = index.search(query, k=K, mode=mode)
                timing.append(time.perf_counter() - start)
                answers[mode].append([h.chunk_id for h in hits])
            out[mode] = percentiles(timing)
    out["answers"] = answers
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=300_000)
    parser.add_argument("--keep", type=Path, help="build the index here and keep it")
    parser.add_argument("--reuse", action="store_true", help="--keep's index exists: search it")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    entries = parse_genindex(SITES["python"][0])
    labels = sorted(t for t in entries if re.search(r"[A-Za-z0-9]", t))
    queries = [str(q) for q in np.random.default_rng(SEED).choice(labels, QUERIES, replace=False)]
    with tempfile.TemporaryDirectory(prefix="index-scale-") as tmp:
        path = args.keep or Path(tmp) / "synthetic.idx"
        built: dict[str, Any] = {}
        if not args.reuse:
            for suffix in ("", "-wal", "-shm", ".lock", ".usearch"):
                Path(str(path) + suffix).unlink(missing_ok=True)
            built = build(path, args.size)
            print(json.dumps(built), file=sys.stderr)
        exact = measure(path, queries, exact_max=10 * args.size + 1)
        ann = measure(path, queries, exact_max=1_000)
        sizes = {
            suffix or "db": os.stat(str(path) + suffix).st_size
            for suffix in ("", "-wal", ".usearch")
            if os.path.exists(str(path) + suffix)
        }
    recall = [
        len(set(a) & set(e)) / max(1, len(e))
        for a, e in zip(ann["answers"]["vector"], exact["answers"]["vector"], strict=True)
    ]
    ann_recall = round(statistics.mean(recall), 4)
    for run in (exact, ann):
        run.pop("answers")
    payload = {
        "size": args.size,
        "queries": len(queries),
        "build": built,
        "files_bytes": sizes,
        "exact": exact,
        "ann": ann,
        "ann_recall_at_10": ann_recall,
        "nproc": os.cpu_count(),
    }
    out = args.json or RESULTS / f"index-scale-{args.size}-{datetime.now(UTC):%Y-%m-%d}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=1), "utf-8")
    print(f"{args.size} synthetic chunks; {json.dumps(built)}")
    print(
        "| vector search | first vector query s | keyword p50 / p95 ms "
        "| vector p50 / p95 ms | hybrid p50 / p95 ms |"
    )
    print("|---|---:|---|---|---|")
    for name, run in (("exact (numpy)", exact), ("ANN (usearch HNSW)", ann)):
        cells = " | ".join(f"{run[m]['p50_ms']} / {run[m]['p95_ms']}" for m in MODES)
        print(f"| {name} | {run['first_vector_query_s']} | {cells} |")
    print(f"ANN recall@10 against exact: {ann_recall}; files: {sizes}; raw: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
