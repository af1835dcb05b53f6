"""What keeping a search index in sync costs (issue 33), on the PostgreSQL 15 docs.

    .venv/bin/python bench/index_sync.py [--share 0.05]

Four real ``scrapy crawl site -a index=FILE`` runs (the shipped crawl, politeness floors
off as in ``bench/crawl.py``; ``--index`` implies the incremental state) against the site
served on 127.0.0.1 (``bench/docsite.py``), each through ``bench/measure.py`` (wall, CPU
and peak RSS of that child):

1. first crawl into a new index: every chunk embedded;
2. the unchanged site into the same index: must embed 0 chunks and write nothing to the
   index. Counted from the run summary's ``change_feed`` (``<feed>.summary.json``) and
   from the file itself: ``PRAGMA data_version`` of a connection held open across the
   run (it changes when any other connection commits to the database) and the row
   counts of every table;
3. ``--share`` of the pages (a fixed sample, ``random.Random(33)``) edited on the served
   copy: in each, two paragraphs (``</p>`` picked by the same generator) get a sentence
   appended, so some sections change and the rest of the page does not. Chunks embedded
   against the chunks that changed: the edited pages' chunks of run 3 whose (id, hash)
   were not among their chunks of run 1, and their run-1 chunks now gone;
4. a fresh crawl of the edited site into a new index: the synced index must hold the
   same chunk ids with the same content hashes (and URLs).

Results: a Markdown table, and ``bench/results/index-sync-<date>.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import re
import sqlite3
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from index_common import RESULTS, crawl_index, index_rows, page_rows, served

SEED = 33
TABLES = ("chunks", "vectors", "pages", "pending", "meta")


def counts(index: Path) -> dict[str, int]:
    with contextlib.closing(sqlite3.connect(f"file:{index}?mode=ro", uri=True)) as db:
        return {t: db.execute(f"select count(*) from {t}").fetchone()[0] for t in TABLES}


def offsets(index: Path) -> dict[str, tuple[int, int]]:
    with contextlib.closing(sqlite3.connect(f"file:{index}?mode=ro", uri=True)) as db:
        rows = db.execute("select chunk_id, char_start, char_end from chunks").fetchall()
    return {cid: (start, end) for cid, start, end in rows}


def chunk_pairs(feed: Path, paths: set[str]) -> dict[str, set[tuple[str, str]]]:
    """page path -> {(chunk_id, chunk text)} of the page rows with content in ``feed``
    whose path is in ``paths``."""
    out: dict[str, set[tuple[str, str]]] = {}
    for row in page_rows(feed):
        path = "/" + row["url"].split("/", 3)[3]
        if path in paths and row.get("chunks"):
            out[path] = {(c["chunk_id"], c["text"]) for c in row["chunks"]}
    return out


def edit_pages(site: Path, pages: list[str], share: float) -> list[str]:
    """Append a sentence to two paragraphs of a seeded sample of the pages."""
    rng = random.Random(SEED)
    chosen = sorted(rng.sample(pages, round(share * len(pages))))
    for number, path in enumerate(chosen):
        file = site / path.lstrip("/")
        html = file.read_text("utf-8", "replace")
        ends = [m.start() for m in re.finditer("</p>", html)]
        if not ends:
            continue
        for place in sorted(rng.sample(ends, min(2, len(ends))), reverse=True):
            sentence = f" Edited for the sync benchmark, page {number}, at {place}."
            html = html[:place] + sentence + html[place:]
        file.write_text(html, "utf-8")
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--share", type=float, default=0.05)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    runs: list[dict[str, Any]] = []
    checks: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="index-sync-") as tmp_name:
        tmp = Path(tmp_name)
        index, fresh = tmp / "pg.idx", tmp / "fresh.idx"
        with served("postgres", tmp / "site") as (server, pages):
            root = [server.base_url + "/"]
            first = crawl_index(root, index, tmp / "work", "1-first")
            first["index_rows"] = counts(index)
            runs.append(first)
            before = counts(index)
            watcher = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
            version = watcher.execute("pragma data_version").fetchone()[0]
            second = crawl_index(root, index, tmp / "work", "2-unchanged")
            second["data_version_changed"] = (
                watcher.execute("pragma data_version").fetchone()[0] != version
            )
            watcher.close()
            second["index_rows"] = counts(index)
            checks["unchanged_rows_equal"] = second["index_rows"] == before
            runs.append(second)
            edited = edit_pages(tmp / "site", pages, args.share)
            third = crawl_index(root, index, tmp / "work", "3-edited")
            third["index_rows"] = counts(index)
            runs.append(third)
            old = chunk_pairs(Path(first["feed"]), set(edited))
            new = chunk_pairs(Path(third["feed"]), set(edited))
            added = sum(len(new.get(p, set()) - old.get(p, set())) for p in edited)
            gone_ids = sum(
                len({c for c, _ in old.get(p, set())} - {c for c, _ in new.get(p, set())})
                for p in edited
            )
            checks["edited_pages"] = len(edited)
            checks["edited_pages_chunks_run1"] = sum(len(old.get(p, ())) for p in edited)
            checks["changed_chunks_expected"] = added
            checks["deleted_ids_expected"] = gone_ids
            fresh_run = crawl_index(root, fresh, tmp / "fresh-work", "4-fresh")
            fresh_run["index_rows"] = counts(fresh)
            runs.append(fresh_run)
        synced, rebuilt = index_rows(index), index_rows(fresh)
        offsets_fresh = offsets(fresh)
        checks["synced_equals_fresh"] = synced == rebuilt
        checks["synced_chunks"] = len(synced)
        checks["fresh_chunks"] = len(rebuilt)
        checks["differing_chunks"] = len(set(synced.items()) ^ set(rebuilt.items()))
        # offsets in the page: a chunk whose text did not change but moved (an edit
        # above it) keeps its hash; does the synced index still say where it is?
        checks["differing_offsets"] = sum(
            1 for cid, where in offsets(index).items() if offsets_fresh.get(cid) != where
        )
    out = args.json or RESULTS / f"index-sync-{datetime.now(UTC):%Y-%m-%d}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"runs": runs, "checks": checks}, indent=1), "utf-8")
    lines = [
        "| run | wall s | CPU s | peak RSS MB | pages changed | upserts | deletes | embedded "
        "| reused | index rows (chunks / vectors / pages) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for run in runs:
        feed = run["change_feed"]
        rows = run["index_rows"]
        lines.append(
            f"| {run['label']} | {run['wall_s']:.1f} | {run['cpu_s']:.1f} | {run['maxrss_mb']:.0f} "
            f"| {feed.get('pages', 0)} | {feed.get('upserts', 0)} | {feed.get('deletes', 0)} "
            f"| {feed.get('embedded', 0)} | {feed.get('reused', 0)} "
            f"| {rows['chunks']} / {rows['vectors']} / {rows['pages']} |"
        )
    print("\n".join(lines))
    print(f"\nrun 2 wrote to the index (data_version changed): {runs[1]['data_version_changed']}")
    print(json.dumps(checks, indent=1))
    print(f"raw results: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
