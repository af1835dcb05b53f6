"""Search an index file: the one function behind ``webmd search``, the Python API's
``search()``, the MCP server's ``search_docs`` tool and the HTTP API's ``POST /search``.

It opens the index read-only (no lock: a crawl may be writing it), with the embedder the
index was built with unless the caller names another (the index refuses one whose
vectors are not comparable), runs the query and returns JSON-ready hits. Keyword mode
needs no embedder at all.

PURE: the index package only.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODES = ("hybrid", "keyword", "vector")
#: the bounds every front end shares (the store checks them too)
MAX_QUERY_CHARS = 1000
MAX_K = 50
DEFAULT_K = 10


class SearchError(Exception):
    """The index cannot be searched (missing, damaged, another embedder's, the embedder
    unavailable): one line naming the file and the cause."""


@dataclass(frozen=True, slots=True)
class EmbedderChoice:
    """How to embed queries: ``spec`` None means the index's own embedder."""

    spec: str | None = None
    embed_url: str = ""
    embed_model: str = ""
    key_env: str = "WEBMD_EMBED_KEY"


def check_query(query: str, k: int, mode: str) -> str:
    """The query stripped; ValueError with the rule for an empty or too long query, a
    `k` outside 1..MAX_K or an unknown mode."""
    if not isinstance(query, str) or not query.strip():
        raise ValueError("the query is empty")
    if len(query) > MAX_QUERY_CHARS:
        raise ValueError(f"the query is {len(query)} characters long; at most {MAX_QUERY_CHARS}")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise ValueError(f"k must be a whole number from 1 to {MAX_K}, got {k!r}")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    return query.strip()


def spec_of(name: str) -> str:
    """The ``open_embedder`` spec that gives an embedder of this stored `name`
    (``wordllama:l2_supercat:256`` -> ``wordllama``; a local model's folder is not in
    its name, nor an endpoint's key, so those must be given again)."""
    kind, _, rest = name.partition(":")
    if kind == "wordllama":
        dim = rest.rsplit(":", 1)[-1]
        return "wordllama" if dim in ("", "256") else f"wordllama:{dim}"
    if kind == "http":
        return "http"
    return ""


def search(
    index: str | Path,
    query: str,
    k: int = DEFAULT_K,
    *,
    mode: str = "hybrid",
    embedder: EmbedderChoice | None = None,
) -> list[dict[str, Any]]:
    """The `k` best chunks of `index` for `query`: dicts with ``chunk_id``, ``url``,
    ``fragment`` (the URL to cite), ``title``, ``heading_path``, ``score``, ``snippet``
    and ``text``, best first. ValueError for a bad query, `k` or mode; SearchError for
    an index or embedder that cannot be used."""
    text = check_query(query, k, mode)
    from webmd_spider.index.store import IndexStoreError, SearchIndex

    path = Path(index)
    if not path.is_file():
        raise SearchError(
            f"index {path}: no such file (build one with webmd crawl URL --index {path})"
        )
    choice = embedder or EmbedderChoice()
    key = (str(path.resolve()), mode == "keyword", choice)
    opened = _open_indexes().get(key)
    try:
        if opened is None:
            model = None if mode == "keyword" else _embedder(path, choice)
            opened = SearchIndex.open(path, model, write=False)
            _remember(key, opened)
        hits = opened.search(text, k=k, mode=mode)
    except IndexStoreError as exc:
        _forget(key)
        raise SearchError(str(exc)) from None
    return [_hit_dict(hit) for hit in hits]


# A server (MCP, HTTP) searches one index many times: the open index keeps its loaded
# vectors (reloaded only when a crawl changes them: the store checks at each search)
# and its embedder, instead of paying ~0.2 s to reopen both per query. Per thread: a
# SQLite connection belongs to the thread that opened it.
_MAX_OPEN = 8
_local = threading.local()


def _open_indexes() -> dict[tuple[Any, ...], Any]:
    found: dict[tuple[Any, ...], Any] | None = getattr(_local, "indexes", None)
    if found is None:
        found = _local.indexes = {}
    return found


def _remember(key: tuple[Any, ...], opened: Any) -> None:
    indexes = _open_indexes()
    while len(indexes) >= _MAX_OPEN:
        _forget(next(iter(indexes)))
    indexes[key] = opened


def _forget(key: tuple[Any, ...]) -> None:
    opened = _open_indexes().pop(key, None)
    if opened is not None:
        with contextlib.suppress(Exception):
            opened.close()


def _embedder(path: Path, choice: EmbedderChoice) -> Any:
    from webmd_spider.index.embedders import EmbedderError, open_embedder
    from webmd_spider.index.store import read_embedder_name

    spec = choice.spec
    if spec is None:
        name = read_embedder_name(path)
        spec = spec_of(name)
        if not spec:
            raise SearchError(
                f"index {path} was built with {name}: name its embedder again "
                "(--embedder sentence-transformers:DIR, fastembed:DIR) or use --mode keyword"
            )
    if spec == "http" and not choice.embed_url:
        raise SearchError(
            f"index {path} was built with an HTTP embedder: give its --embed-url, "
            "or use --mode keyword"
        )
    try:
        return open_embedder(
            spec,
            embed_url=choice.embed_url,
            embed_model=choice.embed_model,
            key_env=choice.key_env,
        )
    except (EmbedderError, ValueError) as exc:
        raise SearchError(f"embedder: {exc}") from None


def _hit_dict(hit: Any) -> dict[str, Any]:
    return {
        "chunk_id": hit.chunk_id,
        "url": hit.url,
        "fragment": hit.fragment,
        "title": hit.title,
        "heading_path": list(hit.heading_path),
        "score": round(float(hit.score), 6),
        "snippet": hit.snippet,
        "text": hit.text,
    }
