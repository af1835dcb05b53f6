"""``webmd_spider.loaders.langchain.sync`` against real LangChain vector stores.

The store is ``langchain-qdrant``'s ``QdrantVectorStore`` over ``qdrant-client`` in local
mode (``QdrantClient(path=...)``: embedded, no server, no network), embedding with
wordllama's bundled static model, so ids, replacement and similarity are Qdrant's own.
What the store holds is read back through the client (``scroll``), not through
``sync``'s own bookkeeping, so a mistake there cannot agree with itself.

The feeds are written here by hand in the record format of
``docs/design/search-index.md``. Our crawl's chunk ids include the chunk's text, so an
edited chunk arrives as a delete and an upsert of a new id; an upsert of an id the
store holds (a reapplied feed, another producer's feed) must still replace it, and the
second feed below does that on purpose.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy
import pytest
import wordllama
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_qdrant import QdrantVectorStore
from qdrant_client import QdrantClient, models
from wordllama import WordLlama

from webmd_spider.chunking.markdown_chunks import chunk_id
from webmd_spider.loaders.langchain import (
    CHUNK_ID_NAMESPACE,
    SYNC_METADATA_KEYS,
    SyncReport,
    chunk_uuid,
    read_changes,
    sync,
)

COLLECTION = "chunks"
CRAWLED_1 = "2026-12-06T12:00:00Z"
CRAWLED_2 = "2026-12-07T03:00:00Z"
SITE = "https://docs.example.org"


class WordLlamaEmbeddings(Embeddings):
    """wordllama's bundled model (no download) as LangChain embeddings: unit vectors."""

    def __init__(self) -> None:
        self.model = WordLlama.load(
            cache_dir=Path(wordllama.__file__).parent, disable_download=True
        )

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in self.model.embed(list(texts), norm=True)]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


class RecordingQdrant(QdrantVectorStore):
    """The real Qdrant store, keeping the calls ``sync`` made (kind and ids) in order,
    so batching and call order are read from what the store was actually asked."""

    calls: list[tuple[str, list[str]]]

    def add_documents(self, documents: list[Document], **kwargs: Any) -> list[str]:
        self.calls.append(("add", list(kwargs["ids"])))
        return super().add_documents(documents, **kwargs)

    def delete(  # type: ignore[override]  # Qdrant's own signature, ints included
        self, ids: list[str | int] | None = None, **kwargs: Any
    ) -> bool | None:
        self.calls.append(("delete", [str(i) for i in ids or []]))
        return super().delete(ids=ids, **kwargs)


@pytest.fixture(scope="module")
def embeddings() -> WordLlamaEmbeddings:
    return WordLlamaEmbeddings()


@pytest.fixture
def client(tmp_path: Path, embeddings: WordLlamaEmbeddings) -> Iterator[QdrantClient]:
    """An embedded Qdrant with an empty cosine collection of the model's dimension;
    closed at teardown (local mode locks its folder)."""
    qdrant = QdrantClient(path=str(tmp_path / "qdrant"))
    dim = len(embeddings.embed_query("dimension"))
    qdrant.create_collection(
        COLLECTION, vectors_config=models.VectorParams(size=dim, distance=models.Distance.COSINE)
    )
    yield qdrant
    qdrant.close()


@pytest.fixture
def store(client: QdrantClient, embeddings: WordLlamaEmbeddings) -> RecordingQdrant:
    qdrant = RecordingQdrant(client=client, collection_name=COLLECTION, embedding=embeddings)
    qdrant.calls = []
    return qdrant


def upsert(
    path: str,
    heading: str,
    markdown: str,
    *,
    crawled_at: str = CRAWLED_1,
    same_id_as: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An upsert record as the design doc has it; its chunk id is the crawl's
    (``chunk_id`` over url, heading path and text), or ``same_id_as``'s to replace it."""
    url = SITE + path
    title = path.strip("/").replace("-", " ").title()
    heading_path = [title, heading]
    heading_path_text = " > ".join(heading_path)
    return {
        "op": "upsert",
        "chunk_id": same_id_as["chunk_id"]
        if same_id_as
        else chunk_id(url, heading_path_text, markdown),
        "url": url,
        "title": title,
        "heading_path": heading_path,
        "heading_path_text": heading_path_text,
        "fragment": f"{url}#{heading.lower()}",
        # a plain text unlike the Markdown, so a test sees which one was stored
        "text": markdown.replace("**", "").replace("`", ""),
        "markdown": markdown,
        "char_start": 0,
        "char_end": len(markdown),
        "content_hash": "sha256:" + hashlib.sha256(markdown.encode()).hexdigest(),
        "crawled_at": crawled_at,
    }


def delete(change: dict[str, Any]) -> dict[str, Any]:
    return {"op": "delete", "chunk_id": change["chunk_id"], "url": change["url"]}


# Five chunks on three pages, on topics far enough apart for a static embedding model.
A1 = upsert("/install", "Install", "Install the package with **pip**: `pip install webmd`.")
A2 = upsert("/install", "Upgrade", "Upgrade to a newer release and read the changelog first.")
B1 = upsert("/politeness", "Delay", "The crawler waits between requests to the same host server.")
B2 = upsert("/politeness", "Robots", "Robots.txt rules are obeyed: disallowed paths are skipped.")
C1 = upsert("/export", "Export", "Rows are written as JSON lines files, one row per page.")
FEED_1 = [A1, A2, B1, B2, C1]

# The next night: /install's Upgrade chunk is edited (a new id, the old one deleted) and
# its Install chunk replaced under the same id; /politeness is gone; /export unchanged;
# /search is new. One page's changes consecutive, deletes first.
A1_NEW = upsert(
    "/install",
    "Install",
    "Install the package with **pipx** to keep it apart: `pipx install webmd`.",
    crawled_at=CRAWLED_2,
    same_id_as=A1,
)
A2_NEW = upsert(
    "/install", "Upgrade", "Downgrade or upgrade: pin the version you need.", crawled_at=CRAWLED_2
)
D1 = upsert(
    "/search", "Ranking", "Keyword search ranks chunks with BM25 scores.", crawled_at=CRAWLED_2
)
FEED_2 = [delete(A2), A1_NEW, A2_NEW, delete(B1), delete(B2), D1]
AFTER_2 = [A1_NEW, A2_NEW, C1, D1]


def expected(changes: Sequence[dict[str, Any]], content: str = "markdown") -> dict[str, Any]:
    """store id -> (page_content, metadata) that the upserts ``changes`` should leave."""
    return {
        chunk_uuid(c["chunk_id"]): (c[content], {key: c[key] for key in SYNC_METADATA_KEYS})
        for c in changes
    }


def held(client: QdrantClient) -> dict[str, Any]:
    """What the collection holds, read through the client: id -> (text, metadata)."""
    points, next_page = client.scroll(COLLECTION, limit=1000, with_payload=True)
    assert next_page is None
    return {
        str(p.id): (p.payload["page_content"], p.payload["metadata"])
        for p in points
        if p.payload is not None
    }


def vectors(client: QdrantClient) -> dict[str, numpy.ndarray]:
    points, _ = client.scroll(COLLECTION, limit=1000, with_vectors=True)
    return {str(p.id): numpy.asarray(p.vector, dtype=numpy.float64) for p in points}


def assert_same_vectors(before: dict[str, numpy.ndarray], after: dict[str, numpy.ndarray]) -> None:
    """Same ids, same vectors up to float32 rounding: Qdrant normalises each cosine
    vector as it stores it, and an overwrite of a point may differ from the first write
    in the last bit (3.7e-09 seen), though the embedding given was identical."""
    assert before.keys() == after.keys()
    for point_id, vector in before.items():
        numpy.testing.assert_allclose(after[point_id], vector, rtol=0, atol=1e-6)


def top_chunk(store: QdrantVectorStore, query: str, k: int = 1) -> list[str]:
    return [doc.metadata["chunk_id"] for doc in store.similarity_search(query, k=k)]


def test_two_nights_then_the_second_feed_again(
    store: RecordingQdrant, client: QdrantClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="webmd_spider.loaders.langchain")

    assert sync(store, FEED_1) == SyncReport(upserted=5, deleted=0)
    assert held(client) == expected(FEED_1)
    assert store.calls == [("add", [chunk_uuid(c["chunk_id"]) for c in FEED_1])]
    assert top_chunk(store, "how do I install the package with pip") == [A1["chunk_id"]]
    assert top_chunk(store, "robots.txt disallowed paths") == [B2["chunk_id"]]

    store.calls.clear()
    assert sync(store, FEED_2) == SyncReport(upserted=3, deleted=3)
    assert held(client) == expected(AFTER_2)
    # A1 was replaced in place: one point under its id, with the new text and vector
    assert store.get_by_ids([chunk_uuid(A1["chunk_id"])])[0].page_content == A1_NEW["markdown"]
    # two pages' deletes in one call, then their upserts in one: feed order per id holds
    assert store.calls == [
        ("delete", [chunk_uuid(c["chunk_id"]) for c in (A2, B1, B2)]),
        ("add", [chunk_uuid(c["chunk_id"]) for c in (A1_NEW, A2_NEW, D1)]),
    ]
    assert top_chunk(store, "BM25 keyword search ranking") == [D1["chunk_id"]]
    assert top_chunk(store, "install it with pipx") == [A1["chunk_id"]]
    gone = {B1["chunk_id"], B2["chunk_id"], A2["chunk_id"]}
    assert not gone & set(top_chunk(store, "robots.txt disallowed paths", k=10))

    texts, embedded = held(client), vectors(client)
    assert sync(store, FEED_2) == SyncReport(upserted=3, deleted=3)
    assert held(client) == texts
    assert_same_vectors(embedded, vectors(client))
    assert "3 upserted, 3 deleted, in 2 store calls" in caplog.text


def test_first_feed_twice_is_idempotent(store: RecordingQdrant, client: QdrantClient) -> None:
    sync(store, FEED_1)
    texts, embedded = held(client), vectors(client)
    assert sync(store, FEED_1) == SyncReport(upserted=5, deleted=0)
    assert held(client) == texts
    assert_same_vectors(embedded, vectors(client))
    assert client.count(COLLECTION).count == 5


def test_feed_from_jsonl_file(store: RecordingQdrant, client: QdrantClient, tmp_path: Path) -> None:
    first, second = tmp_path / "night-1.jsonl", tmp_path / "night-2.jsonl"
    first.write_text("".join(json.dumps(c) + "\n" for c in FEED_1), encoding="utf-8")
    # a blank line (an editor's trailing newline) is no change
    second.write_text("\n".join(json.dumps(c) for c in FEED_2) + "\n\n", encoding="utf-8")
    assert list(read_changes(second)) == FEED_2

    assert sync(store, first) == SyncReport(upserted=5, deleted=0)  # a Path
    assert sync(store, str(second)) == SyncReport(upserted=3, deleted=3)  # a str
    assert held(client) == expected(AFTER_2)


@pytest.mark.parametrize("batch_size", [1, 2, 3, 64])
def test_feed_order_holds_for_one_id_across_batches(
    store: RecordingQdrant, client: QdrantClient, batch_size: int
) -> None:
    x, y, v, w = (upsert("/order", name, f"{name} version one.") for name in ("X", "Y", "V", "W"))
    y2 = upsert("/order", "Y", "Y version two.", same_id_as=y)
    v2 = upsert("/order", "V", "V version two.", same_id_as=v)
    feed = [
        x,
        delete(x),  # upsert then delete: gone
        y,
        y2,  # two upserts: the later stays
        delete(w),  # an id the store never held: nothing happens
        w,
        v,
        delete(v),
        v2,  # upsert, delete, upsert: the last upsert
    ]
    assert sync(store, feed, batch_size=batch_size) == SyncReport(upserted=6, deleted=3)
    assert held(client) == expected([y2, w, v2])
    assert all(len(ids) <= batch_size for _, ids in store.calls)


def test_batches_hold_at_most_batch_size_ids(store: RecordingQdrant, client: QdrantClient) -> None:
    feed = [upsert("/many", f"Part {n}", f"Paragraph number {n} of a long page.") for n in range(7)]
    sync(store, feed, batch_size=3)
    assert [(kind, len(ids)) for kind, ids in store.calls] == [("add", 3), ("add", 3), ("add", 1)]
    store.calls.clear()
    sync(store, [delete(c) for c in feed[:5]], batch_size=3)
    assert [(kind, len(ids)) for kind, ids in store.calls] == [("delete", 3), ("delete", 2)]
    assert held(client) == expected(feed[5:])


def test_delete_first_deletes_each_upsert_batch_before_adding_it(
    store: RecordingQdrant, client: QdrantClient
) -> None:
    sync(store, FEED_1, delete_first=True)
    store.calls.clear()
    assert sync(store, FEED_2, delete_first=True) == SyncReport(upserted=3, deleted=3)
    upserted = [chunk_uuid(c["chunk_id"]) for c in (A1_NEW, A2_NEW, D1)]
    assert store.calls == [
        ("delete", [chunk_uuid(c["chunk_id"]) for c in (A2, B1, B2)]),
        ("delete", upserted),
        ("add", upserted),
    ]
    assert held(client) == expected(AFTER_2)


def test_content_text_stores_the_plain_text(store: RecordingQdrant, client: QdrantClient) -> None:
    sync(store, FEED_1, content="text")
    assert held(client) == expected(FEED_1, content="text")
    assert (
        held(client)[chunk_uuid(A1["chunk_id"])][0]
        == "Install the package with pip: pip install webmd."
    )


def test_qdrant_refuses_raw_chunk_ids(store: RecordingQdrant, client: QdrantClient) -> None:
    # why the default id is a UUID: the 16-hex chunk id is no point id Qdrant takes
    with pytest.raises(ValueError, match="not a valid UUID"):
        sync(store, FEED_1, id_map=str)
    assert client.count(COLLECTION).count == 0


def test_raw_ids_in_a_store_that_takes_any_string(embeddings: WordLlamaEmbeddings) -> None:
    memory = InMemoryVectorStore(embeddings)
    sync(memory, FEED_1, id_map=str)
    assert sync(memory, FEED_2, id_map=str) == SyncReport(upserted=3, deleted=3)
    ids = [c["chunk_id"] for c in FEED_1 + FEED_2 if c["op"] == "upsert"]
    docs = memory.get_by_ids(ids)
    assert {d.id: d.page_content for d in docs} == {c["chunk_id"]: c["markdown"] for c in AFTER_2}
    assert docs[0].metadata == {key: A1_NEW[key] for key in SYNC_METADATA_KEYS}


def test_chunk_uuid_is_uuid5_in_a_fixed_namespace() -> None:
    assert uuid.uuid5(uuid.NAMESPACE_URL, "urn:webmd-spider:chunk-id") == CHUNK_ID_NAMESPACE
    value = chunk_uuid("3f2a0123456789ab")
    assert value == str(uuid.uuid5(CHUNK_ID_NAMESPACE, "3f2a0123456789ab"))
    assert value == str(uuid.UUID(value))  # canonical: how Qdrant returns it
    assert chunk_uuid("3f2a0123456789ac") != value


def test_a_null_title_is_stored_as_empty(store: RecordingQdrant, client: QdrantClient) -> None:
    untitled = {**C1, "title": None}
    sync(store, [untitled])
    assert held(client)[chunk_uuid(C1["chunk_id"])][1]["title"] == ""


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({**C1, "op": "replace"}, "change 3: op must be 'upsert' or 'delete', got 'replace'"),
        (
            {k: v for k, v in C1.items() if k != "markdown"},
            "change 3: upsert of chunk .* 'markdown'",
        ),
        ({**C1, "crawled_at": None}, "change 3: upsert of chunk .* 'crawled_at'"),
        ({"op": "delete", "url": C1["url"]}, "change 3: no chunk_id"),
        ("not a change", "change 3: a change is a JSON object, got str"),
    ],
)
def test_a_malformed_feed_leaves_the_store_untouched(
    store: RecordingQdrant, client: QdrantClient, bad: Any, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        sync(store, [A1, A2, bad, B1])
    assert store.calls == []
    assert client.count(COLLECTION).count == 0


def test_a_malformed_jsonl_line_names_the_file_and_line(
    store: RecordingQdrant, tmp_path: Path
) -> None:
    feed = tmp_path / "feed.jsonl"
    feed.write_text(json.dumps(A1) + "\n" + '{"op": "upsert", \n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"feed\.jsonl:2: not JSON"):
        sync(store, feed)
    feed.write_text(json.dumps(A1) + "\n[1, 2]\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"feed\.jsonl:2: a change is a JSON object"):
        sync(store, feed)
    assert store.calls == []


def test_bad_arguments(store: RecordingQdrant) -> None:
    with pytest.raises(ValueError, match="batch_size must be an int of at least 1, got 0"):
        sync(store, FEED_1, batch_size=0)
    with pytest.raises(ValueError, match="content must be 'markdown' or 'text', got 'html'"):
        sync(store, FEED_1, content="html")
    with pytest.raises(TypeError, match="one change"):
        sync(store, A1)  # type: ignore[arg-type]  # the mistake under test
    with pytest.raises(ValueError, match="id_map gave 7"):
        sync(store, FEED_1, id_map=lambda _cid: 7)  # type: ignore[arg-type, return-value]
    assert store.calls == []
