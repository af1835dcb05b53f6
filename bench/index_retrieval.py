"""Retrieval quality of the search index (issue 33) on judgements we did not write:
Python's own back-of-book index.

    .venv/bin/python bench/index_retrieval.py                 # crawl, then evaluate
    .venv/bin/python bench/index_retrieval.py --index PY.idx --rows PY.jsonl   # reuse a crawl

Judgements: every entry of the Python 3.11 docs' general index (``genindex-<letter>.html``
and ``genindex-Symbols.html``, not the ``-all`` page that repeats them) is a term and the
pages it links to, its sub-entries' and ``[1]``, ``[2]`` links included, each anchor
stripped to its page. The query is the entry as printed (``abc``, ``abort()``,
``a2b_base64() (in module binascii)``, ``abstract base class``). Sample: the entries
whose label holds a letter or digit (symbols-only entries such as ``!=`` are skipped),
deduplicated by label (links merged), keeping only the linked pages that the crawl holds,
and only entries left with at least one; sorted by label, then ``random.Random(33)``
draws :data:`SAMPLE` of them. Halves: crc32 of the label, even / odd (the split is fixed
before any figure is read).

The site is served on 127.0.0.1 (``bench/docsite.py``) and crawled with ``-a index=FILE``
(the shipped crawl and chunking, default embedder: wordllama's bundled model), then each
term is searched in ``keyword``, ``vector`` and ``hybrid`` mode with k=10
(``SearchIndex.search``, what ``webmd_spider.index.searching.search`` calls; checked
equal on the first terms). recall@5: some linked page is among the pages of the top 5
hits (chunks); MRR@10: 1 / rank of the first hit on a linked page, 0 when none in 10.

Baseline: plain BM25 over whole pages (``bm25s`` with its English stop words and
PyStemmer's English stemmer, k1=1.5, b=0.75; page text = the crawl's page row ``title``
and ``text``), installed only in ``.bench-venv`` (never in the project), ranking pages:
recall@5 over its top 5 pages, MRR@10 over its top 10. Results:
``bench/results/index-retrieval-<date>.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import lxml.html

sys.path.insert(0, str(Path(__file__).resolve().parent))
from index_common import REPO, RESULTS, SITES, crawl_index, page_path, page_rows, served

from webmd_spider.index.embedders import open_embedder
from webmd_spider.index.searching import search as api_search
from webmd_spider.index.store import SearchIndex

PEER_PY = REPO / ".bench-venv" / "bin" / "python"
PYTHON_DOCS = SITES["python"][0]
SAMPLE = 500
SEED = 33
K = 10
MODES = ("keyword", "vector", "hybrid")
#: hits fetched to collapse chunks into distinct pages (``webmd search``'s largest k)
DEEP = 50
#: the site's own navigation pages: the general index, the module index, the contents
NAVIGATION = re.compile(r"(genindex(-.*)?|py-modindex|contents|search)\.html$")
_ALNUM = re.compile(r"[A-Za-z0-9]")
_SPACES = re.compile(r"\s+")

BM25_CODE = r"""
import json, sys
import bm25s, Stemmer
pages, queries, out = sys.argv[1], sys.argv[2], sys.argv[3]
pages = json.load(open(pages))
queries = json.load(open(queries))
stemmer = Stemmer.Stemmer("english")
corpus = bm25s.tokenize([p["text"] for p in pages], stopwords="en", stemmer=stemmer,
                        show_progress=False)
retriever = bm25s.BM25(k1=1.5, b=0.75)
retriever.index(corpus, show_progress=False)
ranked = []
for query in queries:
    tokens = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False)
    if not tokens.vocab:
        ranked.append([])
        continue
    docs, scores = retriever.retrieve(tokens, k=10, show_progress=False)
    ranked.append([pages[int(d)]["path"] for d, s in zip(docs[0], scores[0]) if s > 0])
json.dump({"ranked": ranked, "bm25s": bm25s.__version__}, open(out, "w"))
"""


# -- judgements ---------------------------------------------------------------------------
def parse_genindex(folder: Path) -> dict[str, set[str]]:
    """label -> linked page paths of every top-level entry of the general index."""
    entries: dict[str, set[str]] = {}
    files = sorted(folder.glob("genindex-*.html"))
    for file in files:
        if file.name == "genindex-all.html":
            continue
        tree = lxml.html.parse(str(file))
        for item in tree.xpath("//table[contains(@class,'indextable')]//td/ul/li"):
            own = _SPACES.sub(" ", (item.text or "")).strip()
            if not own:
                first = item.find("a")
                own = _SPACES.sub(" ", first.text_content()).strip() if first is not None else ""
            if not own:
                continue
            pages = {
                href.split("#", 1)[0]
                for href in item.xpath(".//a/@href")
                if href and not href.startswith(("http:", "https:", "#"))
            }
            pages.discard("")
            entries.setdefault(own, set()).update(pages)
    return entries


def sample_terms(entries: dict[str, set[str]], crawled: set[str]) -> list[dict[str, Any]]:
    """The seeded sample (see the module docstring): [{term, pages, half}]."""
    eligible = []
    for label in sorted(entries):
        if not _ALNUM.search(label):
            continue
        pages = sorted(entries[label] & crawled)
        if pages:
            eligible.append({"term": label, "pages": pages})
    chosen = random.Random(SEED).sample(eligible, min(SAMPLE, len(eligible)))
    for entry in chosen:
        entry["half"] = "odd" if zlib.crc32(entry["term"].encode("utf-8")) % 2 else "even"
    return chosen


# -- scoring --------------------------------------------------------------------------------
def scores(ranked_pages: list[str], relevant: Iterable[str], top: int = 5) -> tuple[int, float]:
    """(recall@top: a relevant page among the first `top`, reciprocal rank in 10)."""
    wanted = set(relevant)
    hit = int(any(p in wanted for p in ranked_pages[:top]))
    rr = 0.0
    for rank, page in enumerate(ranked_pages[:K], start=1):
        if page in wanted:
            rr = 1.0 / rank
            break
    return hit, rr


def summarise(terms: list[dict[str, Any]], method: str, half: str | None = None) -> dict:
    chosen = [t for t in terms if half is None or t["half"] == half]
    n = len(chosen)
    recall = sum(t["results"][method]["recall5"] for t in chosen) / n if n else 0.0
    mrr = sum(t["results"][method]["rr10"] for t in chosen) / n if n else 0.0
    return {"n": n, "recall5": round(recall, 3), "mrr10": round(mrr, 3)}


def distinct(pages: list[str], drop_navigation: bool = False) -> list[str]:
    """The pages of a hit list, each once, in order (optionally without the site's own
    navigation pages: :data:`NAVIGATION`)."""
    seen: dict[str, None] = {}
    for page in pages:
        if drop_navigation and NAVIGATION.match(page):
            continue
        seen.setdefault(page, None)
    return list(seen)


def run_index(index: Path, terms: list[dict[str, Any]]) -> dict[str, Any]:
    """Each term in each mode against the index; per-term page lists and latencies.
    Scored three ways: the k=10 chunk hits as returned (the figure), and, from a k=50
    search, the hits collapsed to distinct pages, with and without the site's own
    navigation pages."""
    embedder = open_embedder("wordllama")
    timing: dict[str, list[float]] = {m: [] for m in MODES}
    navigation_top1 = dict.fromkeys(MODES, 0)
    with SearchIndex.open(index, embedder, write=False) as opened:
        stats = opened.stats()
        opened.search("warm up", k=K, mode="hybrid")  # load the vectors once
        for number, entry in enumerate(terms):
            entry.setdefault("results", {})
            for mode in MODES:
                start = time.perf_counter()
                hits = opened.search(entry["term"], k=K, mode=mode)
                timing[mode].append(time.perf_counter() - start)
                pages = [page_path(h.url) for h in hits]
                if number < 5:  # the shipped front end answers the same
                    via_api = api_search(index, entry["term"], K, mode=mode)
                    assert [h["chunk_id"] for h in via_api] == [h.chunk_id for h in hits]
                recall, rr = scores(pages, entry["pages"])
                navigation_top1[mode] += bool(pages) and bool(NAVIGATION.match(pages[0]))
                entry["results"][mode] = {"recall5": recall, "rr10": rr, "top": pages}
                deep = [page_path(h.url) for h in opened.search(entry["term"], k=DEEP, mode=mode)]
                for suffix, drop in (("pages", False), ("pages-nonav", True)):
                    ranked = distinct(deep, drop)[:K]
                    recall, rr = scores(ranked, entry["pages"])
                    entry["results"][f"{mode}-{suffix}"] = {
                        "recall5": recall,
                        "rr10": rr,
                        "top": ranked,
                    }
    return {"stats": stats, "latency_s": timing, "navigation_top1": navigation_top1}


def run_bm25(rows: list[dict[str, Any]], terms: list[dict[str, Any]], tmp: Path) -> str:
    """Whole-page BM25 in the peer venv, on every page (``bm25-pages``) and on the pages
    less the site's navigation pages (``bm25-pages-nonav``)."""
    version = ""
    for key, drop in (("bm25-pages", False), ("bm25-pages-nonav", True)):
        pages = [
            {"path": page_path(r["url"]), "text": f"{r.get('title') or ''}\n{r.get('text') or ''}"}
            for r in rows
            if not (drop and NAVIGATION.match(page_path(r["url"])))
        ]
        (tmp / "pages.json").write_text(json.dumps(pages), "utf-8")
        (tmp / "queries.json").write_text(json.dumps([t["term"] for t in terms]), "utf-8")
        subprocess.run(
            [str(PEER_PY), "-c", BM25_CODE, str(tmp / "pages.json"), str(tmp / "queries.json"),
             str(tmp / "bm25.json")],
            check=True,
        )  # fmt: skip
        answer = json.loads((tmp / "bm25.json").read_text("utf-8"))
        for entry, ranked in zip(terms, answer["ranked"], strict=True):
            recall, rr = scores(ranked, entry["pages"])
            entry["results"][key] = {"recall5": recall, "rr10": rr, "top": ranked}
        version = str(answer["bm25s"])
    return version


def ensure_peer() -> None:
    check = "import bm25s, Stemmer"
    if PEER_PY.exists() and subprocess.run([str(PEER_PY), "-c", check]).returncode == 0:
        return
    if not PEER_PY.exists():
        subprocess.run([sys.executable, "-m", "venv", str(PEER_PY.parent.parent)], check=True)
    subprocess.run([str(PEER_PY), "-m", "pip", "install", "-q", "bm25s", "PyStemmer"], check=True)


LABELS = {
    "keyword": "index, keyword (FTS5 bm25 over chunks)",
    "vector": "index, vector (wordllama, exact)",
    "hybrid": "index, hybrid (RRF of both)",
    "bm25-pages": "baseline: BM25 over whole pages (bm25s)",
}


def _cell(terms: list[dict[str, Any]], method: str, half: str | None = None) -> str:
    if not all(method in t["results"] for t in terms):
        return "-"
    s = summarise(terms, method, half)
    return f"{s['recall5']:.3f} / {s['mrr10']:.3f}"


def table(terms: list[dict[str, Any]]) -> str:
    """The figure (k=10 hits as returned), whole and on each half."""
    n_even = sum(t["half"] == "even" for t in terms)
    lines = [
        f"| method | recall@5 / MRR@10, all {len(terms)} terms "
        f"| even half ({n_even}) | odd half ({len(terms) - n_even}) |",
        "|---|---:|---:|---:|",
    ]
    for method, label in LABELS.items():
        lines.append(
            f"| {label} | {_cell(terms, method)} | {_cell(terms, method, 'even')} "
            f"| {_cell(terms, method, 'odd')} |"
        )
    return "\n".join(lines)


def variants_table(terms: list[dict[str, Any]]) -> str:
    """Why: the hits collapsed to distinct pages, and the site's navigation pages out
    of every method's results (all terms / even half)."""
    lines = [
        "| method | as returned (all / even) | distinct pages | distinct pages, "
        "navigation pages out |",
        "|---|---|---|---|",
    ]
    for method, label in LABELS.items():
        if method == "bm25-pages":
            cells = ["-", method, "bm25-pages-nonav"]
        else:
            cells = [method, f"{method}-pages", f"{method}-pages-nonav"]
        row = ["-" if c == "-" else f"{_cell(terms, c)} ({_cell(terms, c, 'even')})" for c in cells]
        lines.append(f"| {label} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def kinds_table(terms: list[dict[str, Any]]) -> str:
    """The figure for entries with a printed qualifier (API objects: ``x() (in module
    y)``) and for plain terms (concepts, modules, statements)."""
    lines = [
        "| entries | n | keyword | vector | hybrid | BM25 pages |",
        "|---|---:|---|---|---|---|",
    ]
    for kind, test in (("qualified (API objects)", True), ("plain terms", False)):
        chosen = [t for t in terms if ("(" in t["term"] and t["term"].endswith(")")) == test]
        cells = [_cell(chosen, m) for m in ("keyword", "vector", "hybrid", "bm25-pages")]
        lines.append(f"| {kind} | {len(chosen)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, help="an index of the Python docs already built")
    parser.add_argument("--rows", type=Path, help="the JSONL rows of the crawl that built it")
    parser.add_argument("--json", type=Path, help="raw results")
    args = parser.parse_args(argv)
    ensure_peer()
    crawl: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="index-retrieval-") as tmp_name:
        tmp = Path(tmp_name)
        if args.index and args.rows:
            index, rows_file = args.index, args.rows
        else:
            index = tmp / "python.idx"
            with served("python", tmp / "site") as (server, _):
                crawl = crawl_index([server.base_url + "/"], index, tmp / "work", "python")
            rows_file = Path(crawl["feed"])
        rows = page_rows(rows_file)
        crawled = {page_path(r["url"]) for r in rows}
        entries = parse_genindex(PYTHON_DOCS)
        terms = sample_terms(entries, crawled)
        print(
            f"{len(entries)} index entries, {len(terms)} sampled, {len(crawled)} pages crawled",
            file=sys.stderr,
        )
        searched = run_index(index, terms)
        bm25_version = run_bm25(rows, terms, tmp)
    out = args.json or RESULTS / f"index-retrieval-{datetime.now(UTC):%Y-%m-%d}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    summary = {
        method: {
            "all": summarise(terms, method),
            "even": summarise(terms, method, "even"),
            "odd": summarise(terms, method, "odd"),
        }
        for method in terms[0]["results"]
    }
    payload = {
        "entries": len(entries),
        "sample": len(terms),
        "seed": SEED,
        "pages_crawled": len(crawled),
        "crawl": crawl,
        "index_stats": searched["stats"],
        "navigation_top1": searched["navigation_top1"],
        "bm25s": bm25_version,
        "summary": summary,
        "latency_s": searched["latency_s"],
        "terms": terms,
    }
    out.write_text(json.dumps(payload, indent=1), "utf-8")
    print("recall@5 / MRR@10")
    print(table(terms))
    print()
    print(variants_table(terms))
    print()
    print(kinds_table(terms))
    print(
        "\ntop-1 chunk hit on a navigation page (genindex, modindex, contents): "
        f"{searched['navigation_top1']} of {len(terms)}"
    )
    print(f"index: {searched['stats']['chunks']} chunks, {searched['stats']['pages']} pages")
    print(f"raw results: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
