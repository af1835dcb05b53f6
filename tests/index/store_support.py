"""Helpers of the search index's tests (``test_store.py``, ``test_vectors.py``): small
deterministic embedders, change records, and a writer run as a subprocess by the SIGKILL
test (``python -m tests.index.store_support INDEX START``).

The writer applies page-sized batches for ever: batch ``b`` replaces page ``b % PAGES``'s
chunks with round ``b // PAGES`` of them (:func:`page_chunks`), diffed against the
index's manifest as the crawl's feed does. It prints ``begin b`` when SQLite starts the
batch's transaction (so a test can kill it inside one) and ``applied b`` after the apply
returns (that batch is committed).
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from webmd_spider.index.store import SearchIndex

PAGES = 5
_WORD = re.compile(r"\w+")


class HashEmbedder:
    """Words hashed into ``dim`` buckets, L2-normalised: texts sharing words are similar.
    Deterministic and instant. ``calls`` counts embed calls, ``texts`` the texts seen."""

    def __init__(self, dim: int = 64, name: str = "hash-test") -> None:
        self.name = f"{name}:{dim}"
        self.dim = dim
        self.calls = 0
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.casefold()):
                digest = hashlib.sha256(word.encode()).digest()
                out[row, int.from_bytes(digest[:4], "little") % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


class SeededEmbedder:
    """A random unit vector per distinct text (seeded by the text's hash): no meaning,
    but deterministic and cheap, so the SIGKILL test's writer spends its time in SQLite."""

    def __init__(self, dim: int = 64) -> None:
        self.name = f"seeded-test:{dim}"
        self.dim = dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            out[row] = np.random.default_rng(seed).standard_normal(self.dim)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


class FlakyEmbedder(HashEmbedder):
    """A :class:`HashEmbedder` that raises while ``failing`` is set (an HTTP endpoint down)."""

    def __init__(self, dim: int = 64) -> None:
        super().__init__(dim)
        self.failing = False

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.failing:
            raise RuntimeError("endpoint answered 503 Service Unavailable")
        return super().embed(texts)


def upsert(
    url: str,
    chunk_id: str,
    text: str,
    *,
    title: str = "Page",
    section: str = "Section",
    version: str = "1",
) -> dict[str, Any]:
    """An upsert record in the design doc's format."""
    markdown = f"## {section}\n\n{text}"
    return {
        "op": "upsert",
        "chunk_id": chunk_id,
        "url": url,
        "title": title,
        "heading_path": [title, section],
        "heading_path_text": f"{title} > {section}",
        "fragment": f"{url}#{section.lower().replace(' ', '-')}",
        "text": text,
        "markdown": markdown,
        "char_start": 0,
        "char_end": len(markdown),
        "content_hash": "sha256:" + hashlib.sha256((markdown + version).encode()).hexdigest(),
        "crawled_at": "2026-12-06T12:00:00Z",
    }


def delete(url: str, chunk_id: str) -> dict[str, Any]:
    return {"op": "delete", "chunk_id": chunk_id, "url": url}


def page_url(page: int) -> str:
    return f"https://site.test/page-{page}"


def page_chunks(page: int, round_: int) -> list[dict[str, Any]]:
    """Round ``round_`` of page ``page``: a chunk count and ids that differ between
    rounds, texts long enough that a batch is a real write (tens of KB)."""
    url = page_url(page)
    count = 120 + (round_ * 37 + page * 11) % 80
    chunks = []
    for i in range(count):
        # Every third chunk keeps its id across rounds (an edit), the others are new ids.
        cid = f"p{page}-c{i}" if i % 3 == 0 else f"p{page}-r{round_}-c{i}"
        words = " ".join(f"w{(round_ * 31 + i * 7 + j) % 997}" for j in range(200))
        chunks.append(
            upsert(
                url,
                cid,
                f"page {page} round {round_} chunk {i} {words}",
                section=f"Part {i}",
                version=str(round_),
            )
        )
    return chunks


def batch_changes(index: SearchIndex, batch: int) -> list[dict[str, Any]]:
    """The changes taking page ``batch % PAGES`` to round ``batch // PAGES``."""
    page, round_ = batch % PAGES, batch // PAGES
    url = page_url(page)
    new = {c["chunk_id"]: c for c in page_chunks(page, round_)}
    held = index.manifest(url)
    changes: list[dict[str, Any]] = [delete(url, cid) for cid in sorted(set(held) - set(new))]
    changes += [c for cid, c in new.items() if held.get(cid) != c["content_hash"]]
    return changes


def main(argv: Sequence[str]) -> None:
    path, start = argv[0], int(argv[1])
    index = SearchIndex.open(path, SeededEmbedder(), write=True)
    batch = start

    def trace(statement: str) -> None:
        if statement.strip().lower() == "begin immediate":
            print(f"begin {batch}", flush=True)

    # Test instrumentation only: the index's own connection reports its transactions.
    index._db().set_trace_callback(trace)
    while True:
        index.apply(batch_changes(index, batch))
        print(f"applied {batch}", flush=True)
        batch += 1


if __name__ == "__main__":
    main(sys.argv[1:])
