"""Vector search over the index's stored vectors: exact with numpy up to
:data:`EXACT_MAX_VECTORS`, an approximate (HNSW) index from ``usearch`` above it.

Contracts:

* Vectors are float32 rows, L2-normalised (the embedder's contract; :func:`normalise`
  re-normalises defensively), so cosine similarity is a dot product. A vector's stored
  form is its little-endian float32 bytes (:func:`to_blob`, :func:`from_blobs`).
* Every vector has an integer id (the ``vectors`` table's rowid in ``index/store.py``);
  searches answer ``(ids, scores)``, best first, score = cosine similarity in [-1, 1].
* :class:`VectorSearcher` caches what it loads (the matrix, or the ANN index) for one
  *stamp* of the index: the store passes a stamp that changes whenever the vectors do, so
  an apply (of this process or another) invalidates the cache at the next search.
* Above ``exact_max`` vectors the ANN index is kept in a sidecar file
  (``<index>.usearch``) tagged with the stamp; a stale or unreadable sidecar is rebuilt
  from the stored vectors and replaced atomically (``os.replace``), so readers racing a
  rebuild read either the old file or the new one. Failing to write the sidecar (a
  read-only folder) is not an error: the in-memory index serves this process.

Why these choices:

* Exact search up to 100,000 vectors: the whole matrix then takes about 100 MB at 256
  dimensions (wordllama's), one matrix-vector product answers in about 10 ms, and
  loading it from SQLite once per open index takes well under a second; recall is 1.
* Above it, ``usearch`` (HNSW): one 10 MB wheel with no server and no other dependency,
  serialisable to one file, with a recall@10 around 0.99 at the default connectivity (16)
  and the search expansion used here (:data:`ANN_EXPANSION`), in well under a millisecond
  per query. ``faiss-cpu`` is a 30 MB wheel whose exact/IVF choices need tuning per size;
  chromadb, lancedb and qdrant's local mode bring their own storage beside ours. Vectors
  are kept as float32 in the ANN too (``i8`` would quarter the sidecar at some recall).

PURE: numpy and usearch only (usearch imported when an ANN index is first needed).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "ANN_EXPANSION",
    "EXACT_MAX_VECTORS",
    "AnnIndex",
    "VectorSearcher",
    "exact_top",
    "from_blobs",
    "normalise",
    "to_blob",
]

log = logging.getLogger(__name__)

#: Up to this many stored vectors a query is compared with all of them (numpy); above
#: it an ANN index answers (see the module docstring for why this size).
EXACT_MAX_VECTORS = 100_000
#: usearch's search expansion (HNSW's ``ef``): candidates kept while descending the
#: graph. Searches asking for more results than this use their count instead.
ANN_EXPANSION = 128

# The sidecar: this magic line, one JSON line (the stamp), then usearch's own bytes.
_SIDECAR_MAGIC = b"WEBMD-ANN 1\n"

Ids = np.ndarray
Matrix = np.ndarray


def to_blob(vector: np.ndarray) -> bytes:
    """The stored form of one vector: little-endian float32 bytes."""
    return np.asarray(vector, dtype="<f4").tobytes()


def from_blobs(blobs: Iterable[bytes], dim: int) -> Matrix:
    """Stored vectors back to an ``(n, dim)`` float32 matrix (native byte order)."""
    joined = b"".join(blobs)
    if len(joined) % (4 * dim):
        raise ValueError(f"stored vectors are not a whole number of {dim}-dimension rows")
    matrix = np.frombuffer(joined, dtype="<f4").reshape(-1, dim)
    return matrix.astype(np.float32, copy=True)


def normalise(matrix: np.ndarray) -> Matrix:
    """Rows scaled to unit length (zero rows stay zero), float32. The embedder promises
    normalised rows; doing it again costs little and keeps the dot product a cosine."""
    rows = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (rows / norms).astype(np.float32, copy=False)


def exact_top(matrix: Matrix, query: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row positions of the ``n`` rows most similar to ``query`` and their cosine
    similarities, best first (ties by position, so answers are deterministic)."""
    if n <= 0 or not len(matrix):
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
    scores = matrix @ np.asarray(query, dtype=np.float32)
    n = min(n, len(scores))
    # argpartition finds the top n in linear time; only those n are sorted.
    top = np.argpartition(-scores, n - 1)[:n] if n < len(scores) else np.arange(len(scores))
    order = np.lexsort((top, -scores[top]))
    positions = top[order]
    return positions.astype(np.int64), scores[positions].astype(np.float32)


class AnnIndex:
    """An HNSW index (usearch) of the vectors, keyed by their ids."""

    def __init__(self, index: Any) -> None:
        self._index = index

    @classmethod
    def build(cls, ids: Ids, matrix: Matrix) -> AnnIndex:
        from usearch.index import Index

        index = Index(
            ndim=int(matrix.shape[1]),
            metric="cos",
            dtype="f32",
            expansion_search=ANN_EXPANSION,
        )
        if len(ids):
            # one thread: HNSW graphs built by several threads depend on their timing,
            # and the same vectors must give the same index (and the same answers)
            index.add(np.asarray(ids, dtype=np.uint64), np.ascontiguousarray(matrix), threads=1)
        return cls(index)

    def __len__(self) -> int:
        return len(self._index)

    def search(self, query: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Ids of the (approximately) ``n`` nearest vectors and their cosine
        similarities, best first."""
        if n <= 0 or not len(self._index):
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        # usearch keeps max(n, expansion) candidates; a larger count widens the search.
        self._index.expansion_search = max(ANN_EXPANSION, n)
        matches = self._index.search(np.asarray(query, dtype=np.float32), n)
        ids = np.asarray(matches.keys, dtype=np.int64)
        # usearch's cosine distance is 1 - cosine similarity.
        scores = (1.0 - np.asarray(matches.distances, dtype=np.float32)).astype(np.float32)
        return ids, scores

    def save(self, path: Path, stamp: dict[str, Any]) -> None:
        """Write the sidecar atomically: a temporary file in the same folder, then
        ``os.replace``."""
        payload = bytes(self._index.save())
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "wb") as out:
                out.write(_SIDECAR_MAGIC)
                out.write(json.dumps(stamp, sort_keys=True).encode("utf-8") + b"\n")
                out.write(payload)
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()

    @classmethod
    def load(cls, path: Path, stamp: dict[str, Any]) -> AnnIndex | None:
        """The sidecar at ``path`` when it carries ``stamp``; None when it is missing,
        stale or unreadable (the caller rebuilds it)."""
        try:
            data = path.read_bytes()
        except OSError:
            return None
        if not data.startswith(_SIDECAR_MAGIC):
            return None
        head_end = data.find(b"\n", len(_SIDECAR_MAGIC))
        if head_end < 0:
            return None
        try:
            found = json.loads(data[len(_SIDECAR_MAGIC) : head_end])
        except ValueError:
            return None
        if found != json.loads(json.dumps(stamp, sort_keys=True)):
            return None
        from usearch.index import Index

        try:
            index = Index.restore(data[head_end + 1 :])
        except Exception as exc:  # usearch raises RuntimeError/ValueError on bad bytes
            log.warning("ignoring unreadable ANN sidecar %s: %s", path, exc)
            return None
        if index is None:
            return None
        return cls(index)


class VectorSearcher:
    """Search of one index's vectors, cached per stamp (see the module docstring).

    ``load`` returns every stored vector as ``(ids, matrix)``; it is called at most
    once per stamp, and not at all when a fresh ANN sidecar answers.
    """

    def __init__(self, *, dim: int, exact_max: int, sidecar: Path | None) -> None:
        self.dim = dim
        self.exact_max = exact_max
        self.sidecar = sidecar
        self._stamp: dict[str, Any] | None = None
        self._exact: tuple[Ids, Matrix] | None = None
        self._ann: AnnIndex | None = None

    def invalidate(self) -> None:
        """Forget what was loaded (the next search loads again)."""
        self._stamp, self._exact, self._ann = None, None, None

    @property
    def uses_ann(self) -> bool:
        """Whether the last search went through the ANN index."""
        return self._ann is not None

    def search(
        self,
        query: np.ndarray,
        n: int,
        *,
        stamp: dict[str, Any],
        count: int,
        load: Callable[[], tuple[Ids, Matrix]],
    ) -> tuple[np.ndarray, np.ndarray]:
        """Ids of the ``n`` vectors nearest to ``query`` and their cosine similarities,
        best first. ``count`` is how many vectors the index holds under ``stamp``."""
        if stamp != self._stamp:
            self.invalidate()
            self._stamp = dict(stamp)
        query = normalise(np.asarray(query, dtype=np.float32).reshape(1, -1))[0]
        if count <= self.exact_max:
            if self._exact is None:
                ids, matrix = load()
                self._exact = (np.asarray(ids, dtype=np.int64), matrix)
            ids, matrix = self._exact
            positions, scores = exact_top(matrix, query, n)
            return ids[positions], scores
        if self._ann is None:
            self._ann = self._ann_index(stamp, load)
        return self._ann.search(query, n)

    def _ann_index(self, stamp: dict[str, Any], load: Callable[[], tuple[Ids, Matrix]]) -> AnnIndex:
        if self.sidecar is not None:
            found = AnnIndex.load(self.sidecar, stamp)
            if found is not None:
                return found
        ids, matrix = load()
        log.info("building the ANN index of %d vectors", len(ids))
        ann = AnnIndex.build(ids, matrix)
        if self.sidecar is not None:
            try:
                ann.save(self.sidecar, stamp)
            except OSError as exc:
                # A read-only folder: this process keeps its in-memory index.
                log.warning("cannot write the ANN sidecar %s: %s", self.sidecar, exc.strerror)
        return ann
