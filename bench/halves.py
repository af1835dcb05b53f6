"""A quality figure on the whole corpus and on each half of a fixed hash split.

    .venv/bin/python bench/halves.py RESULT.json [--extractor webmd]

RESULT.json is what the shared harness (``../shared/bench/extraction/eval.py --out``)
writes. The split is crc32 of the page's id (its file name), even / odd: the one the
extraction rules of issue 14 were read off (even half's misses) and checked on (odd
half). Segment corpora (trafilatura-dev: per page ``seg`` = true positives, false
positives, false negatives, true negatives) give segment F1 per half; shingle corpora
(readability: per page ``f1``) give the mean of the pages' F1 per half.
"""

from __future__ import annotations

import argparse
import json
import zlib
from pathlib import Path
from typing import Any


def half_of(page_id: str) -> str:
    """ "even" or "odd": crc32 of the id."""
    return "odd" if zlib.crc32(page_id.encode("utf-8")) % 2 else "even"


def figure(pages: list[dict[str, Any]]) -> str:
    """Segment F1 (P / R) of pages with ``seg``, else their mean F1."""
    if pages and "seg" in pages[0]:
        tp = sum(p["seg"][0] for p in pages)
        fp = sum(p["seg"][1] for p in pages)
        fn = sum(p["seg"][2] for p in pages)
        precision, recall = tp / max(1, tp + fp), tp / max(1, tp + fn)
        f1 = 2 * precision * recall / max(1e-9, precision + recall)
        return f"F1 {f1:.3f} (P {precision:.3f} / R {recall:.3f})"
    scores = [p["f1"] for p in pages if isinstance(p.get("f1"), int | float)]
    return f"mean page F1 {sum(scores) / max(1, len(scores)):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("result", type=Path)
    parser.add_argument("--extractor", default="webmd")
    args = parser.parse_args()
    data = json.loads(args.result.read_text("utf-8"))
    pages = data["extractors"][args.extractor]["per_doc"]
    print(f"{data['corpus']}, {args.extractor}: {len(pages)} pages")
    print(f"  whole: {figure(pages)}")
    for half in ("even", "odd"):
        part = [p for p in pages if half_of(p["id"]) == half]
        print(f"  {half} half ({len(part)} pages): {figure(part)}")


if __name__ == "__main__":
    main()
