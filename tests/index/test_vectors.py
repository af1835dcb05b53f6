"""Vector search (``webmd_spider/index/vectors.py``): the exact numpy search, and the
usearch ANN index that takes over above ``exact_max`` vectors (a small threshold here),
with its sidecar file rebuilt when the index's vectors change."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from webmd_spider.index.store import SearchIndex
from webmd_spider.index.vectors import (
    AnnIndex,
    exact_top,
    from_blobs,
    normalise,
    to_blob,
)

from .store_support import HashEmbedder, upsert

TOPICS = [
    "python virtual environments venv pip install packages",
    "postgresql btree index create table query planner",
    "sourdough bread flour water salt starter oven",
    "git branch merge rebase commit history",
    "linux kernel scheduler process threads memory",
    "javascript promise async await event loop",
    "docker container image layer registry",
    "css grid flexbox layout responsive design",
]


def corpus(size: int) -> list[dict[str, object]]:
    """``size`` chunks, each mostly one topic's words with a few of another's."""
    chunks: list[dict[str, object]] = []
    for i in range(size):
        main = TOPICS[i % len(TOPICS)].split()
        other = TOPICS[(i * 3 + 1) % len(TOPICS)].split()
        words = [main[(i + j) % len(main)] for j in range(5)] + other[: 1 + i % 3]
        url = f"https://site.test/doc-{i // 10}"
        chunks.append(upsert(url, f"c{i}", f"item{i} " + " ".join(words), section=f"S{i}"))
    return chunks


QUERIES = [
    "python venv",
    "btree index planner",
    "sourdough starter",
    "git rebase",
    "kernel threads",
    "async await",
    "docker image",
    "css grid",
    "item17",
]


@pytest.fixture
def built(tmp_path: Path) -> Path:
    path = tmp_path / "vectors.sqlite"
    with SearchIndex.open(path, HashEmbedder()) as index:
        index.apply(corpus(300))
    return path


def test_blobs_round_trip_and_normalise() -> None:
    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((5, 16)).astype(np.float32)
    back = from_blobs([to_blob(row) for row in matrix], 16)
    assert back.dtype == np.float32 and np.array_equal(back, matrix)
    assert from_blobs([], 16).shape == (0, 16)
    with pytest.raises(ValueError, match="whole number"):
        from_blobs([b"123"], 16)
    unit = normalise(np.vstack([matrix, np.zeros((1, 16), dtype=np.float32)]))
    assert np.allclose(np.linalg.norm(unit[:5], axis=1), 1.0)
    assert not unit[5].any()


def test_exact_top_orders_by_cosine_then_position() -> None:
    matrix = normalise(np.array([[1, 0], [0, 1], [1, 1], [1, 0], [-1, 0]], dtype=np.float32))
    positions, scores = exact_top(matrix, np.array([1, 0], dtype=np.float32), 3)
    assert positions.tolist() == [0, 3, 2]
    assert np.allclose(scores, [1.0, 1.0, np.sqrt(0.5)])
    positions, _ = exact_top(matrix, np.array([1, 0], dtype=np.float32), 50)
    assert positions.tolist() == [0, 3, 2, 1, 4]
    assert exact_top(matrix, np.array([1, 0], dtype=np.float32), 0)[0].size == 0


def test_ann_gives_the_exact_top_hits(built: Path) -> None:
    exact = SearchIndex.open(built, HashEmbedder(), write=False)
    ann = SearchIndex.open(built, HashEmbedder(), write=False, exact_max=10)
    try:
        overlap = []
        for query in QUERIES:
            want = exact.search(query, k=10, mode="vector")
            got = ann.search(query, k=10, mode="vector")
            assert got[0].score == pytest.approx(want[0].score, abs=1e-5), query
            if want[0].score > want[1].score + 1e-5:  # a unique best: the same chunk
                assert got[0].chunk_id == want[0].chunk_id, query
            # Recall@10 by score (many chunks tie here, so ids alone would undercount):
            # the ANN's answers that are among the exact top 10.
            tenth = want[-1].score - 1e-5
            overlap.append(sum(1 for h in got if h.score >= tenth))
            # hybrid goes through the same vectors
            assert ann.search(query, k=5)[0].chunk_id == exact.search(query, k=5)[0].chunk_id
        assert sum(overlap) >= 0.9 * 10 * len(QUERIES)
        assert ann.uses_ann and not exact.uses_ann
    finally:
        exact.close()
        ann.close()
    assert Path(f"{built}.usearch").is_file()


def _sidecar_stamp(path: Path) -> dict[str, object]:
    data = Path(f"{path}.usearch").read_bytes()
    head = data.split(b"\n", 2)[1]
    stamp: dict[str, object] = json.loads(head)
    return stamp


def test_the_sidecar_is_reused_and_rebuilt_when_the_vectors_change(built: Path) -> None:
    sidecar = Path(f"{built}.usearch")
    with SearchIndex.open(built, HashEmbedder(), write=False, exact_max=10) as reader:
        first = reader.search("git rebase", k=3, mode="vector")
    made = os.stat(sidecar).st_ino
    stamp = _sidecar_stamp(built)
    assert stamp["count"] == 300

    # A fresh sidecar is read, not rebuilt (a rebuild replaces the file: a new inode).
    with SearchIndex.open(built, HashEmbedder(), write=False, exact_max=10) as reader:
        assert reader.search("git rebase", k=3, mode="vector") == first
        assert os.stat(sidecar).st_ino == made

        # A writer's apply changes the vectors: the reader's next search rebuilds.
        with SearchIndex.open(built, HashEmbedder(), exact_max=10) as writer:
            new = upsert("https://site.test/new", "fresh", "zanzibar quokka marmalade")
            writer.apply([new])
        hits = reader.search("zanzibar quokka", k=1, mode="vector")
        assert [h.chunk_id for h in hits] == ["fresh"]
    assert os.stat(sidecar).st_ino != made
    newer = _sidecar_stamp(built)
    assert newer["count"] == 301
    assert newer["generation"] != stamp["generation"]


def test_a_damaged_or_foreign_sidecar_is_rebuilt(built: Path, tmp_path: Path) -> None:
    sidecar = Path(f"{built}.usearch")
    with SearchIndex.open(built, HashEmbedder(), write=False, exact_max=10) as reader:
        want = [h.chunk_id for h in reader.search("css grid", k=3, mode="vector")]
    stamp = _sidecar_stamp(built)
    for damage in (
        b"garbage",
        b"WEBMD-ANN 1\n" + json.dumps(stamp, sort_keys=True).encode() + b"\nnot usearch",
    ):
        sidecar.write_bytes(damage)
        with SearchIndex.open(built, HashEmbedder(), write=False, exact_max=10) as reader:
            assert [h.chunk_id for h in reader.search("css grid", k=3, mode="vector")] == want
        assert _sidecar_stamp(built) == stamp
    # Another index's sidecar (its own random id) is never taken for this one's.
    other = tmp_path / "other.sqlite"
    with SearchIndex.open(other, HashEmbedder(), exact_max=10) as index:
        index.apply(corpus(300))
        index.search("css grid", mode="vector")
    assert AnnIndex.load(Path(f"{other}.usearch"), stamp) is None
    assert AnnIndex.load(tmp_path / "missing.usearch", stamp) is None


def test_ann_index_alone() -> None:
    rng = np.random.default_rng(3)
    matrix = normalise(rng.standard_normal((500, 32)).astype(np.float32))
    ids = np.arange(1000, 1500, dtype=np.int64)
    ann = AnnIndex.build(ids, matrix)
    assert len(ann) == 500
    for row in (0, 123, 499):
        found, scores = ann.search(matrix[row], 5)
        assert found[0] == ids[row]
        assert scores[0] == pytest.approx(1.0, abs=1e-5)
    # More asked than held: (nearly) all of them, an HNSW graph walk may miss a few.
    found, _ = ann.search(matrix[0], 800)
    assert len(found) >= 480 and set(found.tolist()) <= set(ids.tolist())
    empty = AnnIndex.build(np.empty(0, dtype=np.int64), np.empty((0, 32), dtype=np.float32))
    assert empty.search(matrix[0], 5)[0].size == 0
