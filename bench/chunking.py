"""Chunking cost against extraction cost, per page, on real pages.

    .venv/bin/python bench/chunking.py [DIR ...] [--size 1500] [--overlap 150] [--repeat 3]

Default pages: the shared extraction corpus (130 pages) and, when installed, the
PostgreSQL 15 HTML documentation (Debian postgresql-doc-15). For each page it times
(time.process_time) extract() and chunk_markdown() on its Markdown, best of --repeat,
and prints per corpus: pages, extraction ms/page, chunking ms/page and their ratio.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from webmd_spider.chunking.markdown_chunks import chunk_markdown
from webmd_spider.extract import extract

SHARED = Path(__file__).resolve().parents[2] / "shared/bench/extraction/corpus/readability"
PG_DOCS = Path("/usr/share/doc/postgresql-doc-15/html")


def pages_of(folder: Path) -> list[Path]:
    """HTML pages of a folder: the corpus's source.html files, or every *.html."""
    sources = sorted(folder.glob("*/source.html"))
    return sources or sorted(folder.rglob("*.html"))


def best_of(repeat: int, func: object) -> float:
    """Fastest CPU time of `repeat` calls, in ms."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        func()  # type: ignore[operator]
        best = min(best, time.process_time() - start)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="*", type=Path)
    parser.add_argument("--size", type=int, default=1500)
    parser.add_argument("--overlap", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folders = args.dirs or [d for d in (SHARED, PG_DOCS) if d.exists()]
    print(f"chunk size {args.size}, overlap {args.overlap}; best of {args.repeat} per page")
    print("| pages | corpus | extraction ms/page | chunking ms/page | chunks/page | ratio |")
    print("|---:|---|---:|---:|---:|---:|")
    for folder in folders:
        pages = pages_of(folder)
        ext_ms = chunk_ms = 0.0
        chunks = 0
        for path in pages:
            body = path.read_bytes()
            url = "http://127.0.0.1/" + path.name
            ext_ms += best_of(args.repeat, lambda b=body, u=url: extract(b, u))
            markdown = extract(body, url).markdown
            chunk_ms += best_of(
                args.repeat,
                lambda m=markdown, u=url: chunk_markdown(m, u, args.size, args.overlap),
            )
            chunks += len(chunk_markdown(markdown, url, args.size, args.overlap))
        n = max(1, len(pages))
        print(
            f"| {len(pages)} | {folder} | {ext_ms / n:.2f} | {chunk_ms / n:.3f} | "
            f"{chunks / n:.1f} | {chunk_ms / max(ext_ms, 1e-9):.1%} |"
        )


if __name__ == "__main__":
    main()
