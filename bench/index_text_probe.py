"""A probe, not a figure of the shipped code: rebuild a Python-docs index from a crawl's
rows with the chunk text that the index reads (``index.feed.plain_text``) either as
shipped or keeping identifiers whole, to see what the text costs retrieval.

    .venv/bin/python bench/index_text_probe.py ROWS.jsonl OUT.idx shipped|words
    .venv/bin/python bench/index_retrieval.py --index OUT.idx --rows ROWS.jsonl

As shipped, ``plain_text`` deletes every ``*``, ``_``, `````` and ``~`` (its emphasis
pattern has no word boundaries), so ``PyFunction_GetClosure`` is indexed and embedded as
``PyFunctionGetClosure`` and ``__init__`` as ``init``: the query's identifier no longer
matches. ``words`` removes emphasis marks only at a word's edge (``**bold**``,
``_em_``) and backticks, and keeps the rest of ``plain_text`` as shipped. The change
records are made by the shipped ``index.feed.page_changes`` from the rows' chunks (what
the crawl's feed does), applied with ``SearchIndex.apply`` and the default embedder.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import webmd_spider.index.feed as feed
from webmd_spider.index.embedders import open_embedder
from webmd_spider.index.store import SearchIndex

_LINE_MARKS = re.compile(r"(?m)^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)|^\|?[-:| ]+\|?$")
_EDGE_MARKS = re.compile(r"(?<![\w*_~])[*_~]{1,3}(?=\S)|(?<=\S)[*_~]{1,3}(?![\w*_~])|`+")


def words_plain_text(markdown: str) -> str:
    """``plain_text`` with emphasis removed only at word edges."""
    text = feed._FENCE.sub("", markdown)
    text = feed._LINK.sub(r"\1", text)
    text = _LINE_MARKS.sub("", text)
    text = _EDGE_MARKS.sub("", text)
    text = text.replace("|", " ").replace("\\", "")
    lines = (feed._SPACE.sub(" ", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def main(argv: list[str] | None = None) -> int:
    rows_file, out, variant = (argv or sys.argv[1:])[:3]
    if variant == "words":
        feed.plain_text = words_plain_text  # type: ignore[assignment]
    elif variant != "shipped":
        raise SystemExit("variant: shipped or words")
    sample = "PyObject *PyFunction_GetClosure(PyObject *op), **bold**, `__init__`"
    print(f"{variant}: {feed.plain_text(sample)!r}", file=sys.stderr)
    changes = []
    with open(rows_file, "rb") as handle:
        for line in handle:
            row = json.loads(line)
            if row.get("row_type") == "page" and row.get("ok") and row.get("chunks"):
                changes += feed.page_changes(
                    {},
                    row["chunks"],
                    url=row["chunks"][0]["url"],
                    title=row.get("title"),
                    crawled_at=str(row.get("scraped_at") or ""),
                    headings=row.get("headings") or [],
                )
    start = time.perf_counter()
    with SearchIndex.open(Path(out), open_embedder("wordllama")) as index:
        for first in range(0, len(changes), 2000):
            index.apply(changes[first : first + 2000])
        print(f"{index.stats()} in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
