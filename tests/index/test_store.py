"""The search index (``webmd_spider/index/store.py``): applying change records, what it
remembers, its errors, its writer lock, crash durability, the embedder's failures, and
search in its three modes. Real SQLite files, a real deterministic embedder, and the
real wordllama model in one test; no mocks."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from webmd_spider.index.store import (
    MAX_K,
    MAX_QUERY_CHARS,
    RRF_WEIGHTS,
    SNIPPET_CHARS,
    IndexLockedError,
    IndexStoreError,
    SearchIndex,
    embedded_text,
    read_embedder_name,
    snippet,
)

from .store_support import (
    PAGES,
    FlakyEmbedder,
    HashEmbedder,
    SeededEmbedder,
    delete,
    page_chunks,
    page_url,
    upsert,
)

REPO = Path(__file__).resolve().parents[2]

A, B, C = "https://site.test/a", "https://site.test/b", "https://site.test/c"

# A small corpus: each chunk about one thing, so each query has one right answer.
CORPUS = [
    upsert(
        A,
        "a1",
        "venv creates isolated Python environments with their own site-packages directory",
        title="Virtual environments",
        section="Creating one",
    ),
    upsert(
        A,
        "a2",
        "Activate the environment with the activate script in its bin folder",
        title="Virtual environments",
        section="Activation",
    ),
    upsert(
        B,
        "b1",
        "The array module defines compact arrays of numbers such as integers "
        "and floating point values",
        title="Arrays",
        section="Overview",
    ),
    upsert(
        B,
        "b2",
        "os.path.join joins path components with the separator of the operating system",
        title="Paths",
        section="Joining paths",
    ),
    upsert(
        C,
        "c1",
        "PostgreSQL creates an index with CREATE INDEX; a btree is the default kind of index",
        title="Indexes",
        section="Creating indexes",
    ),
    upsert(
        C,
        "c2",
        "Recipes for baking sourdough bread need flour water salt and a starter",
        title="Baking",
        section="Bread",
    ),
]


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def index_path(tmp_path: Path) -> Path:
    return tmp_path / "search.sqlite"


@pytest.fixture
def index(index_path: Path, embedder: HashEmbedder) -> Iterator[SearchIndex]:
    opened = SearchIndex.open(index_path, embedder)
    yield opened
    opened.close()


def chunk_ids(hits: Sequence[Any]) -> list[str]:
    return [hit.chunk_id for hit in hits]


# -- applying ------------------------------------------------------------------------
def test_apply_counts_upserts_deletes_embeddings_and_reuse(
    index: SearchIndex, embedder: HashEmbedder
) -> None:
    report = index.apply(CORPUS[:3])
    assert (report.upserted, report.deleted, report.embedded, report.reused) == (3, 0, 3, 0)
    assert report.pending == 0 and report.error == ""
    assert embedder.texts == 3

    # The same chunk (same text, title, heading) on another page: a new chunk id, its
    # vector reused, nothing embedded.
    same = dict(CORPUS[0], chunk_id="d1", url="https://site.test/d", fragment="x")
    report = index.apply([same])
    assert (report.upserted, report.embedded, report.reused) == (1, 0, 1)
    assert embedder.texts == 3
    assert index.stats()["vectors"] == 3

    # A changed text: one new embedding; the old vector is still used by d1.
    changed = dict(CORPUS[0], text="venv now makes environments", content_hash="sha256:2")
    report = index.apply([changed])
    assert (report.upserted, report.embedded, report.reused) == (1, 1, 0)
    assert index.stats()["vectors"] == 4

    # Deleting d1 releases the last user of the old vector: it goes.
    report = index.apply([delete("https://site.test/d", "d1")])
    assert (report.upserted, report.deleted, report.embedded) == (0, 1, 0)
    assert index.stats()["vectors"] == 3
    # A delete of a chunk the index does not hold removes nothing.
    assert index.apply([delete(A, "nope")]).deleted == 0

    # Two chunks of one batch with one new text: embedded once.
    twins = [upsert(C, "t1", "twin text"), upsert("https://site.test/e", "t2", "twin text")]
    report = index.apply(twins)
    assert (report.upserted, report.embedded, report.reused) == (2, 1, 0)
    assert index.stats()["vectors"] == 4
    db = sqlite3.connect(index.path)
    referenced = db.execute(
        "select count(*) from vectors where key not in (select vector_key from chunks)"
    ).fetchone()[0]
    db.close()
    assert referenced == 0


def test_manifest_urls_count_stats_and_pages(index: SearchIndex) -> None:
    index.apply(CORPUS, pages={A: "sha256:pa", B: "sha256:pb"})
    assert index.manifest(A) == {"a1": CORPUS[0]["content_hash"], "a2": CORPUS[1]["content_hash"]}
    assert index.manifest("https://site.test/none") == {}
    assert index.urls() == {A, B, C}
    assert index.count() == 6
    assert index.page_hashes() == {A: "sha256:pa", B: "sha256:pb"}
    index.apply([delete(B, "b1"), delete(B, "b2")], pages={B: None, C: "sha256:pc"})
    assert index.urls() == {A, C}
    assert index.page_hashes() == {A: "sha256:pa", C: "sha256:pc"}
    stats = index.stats()
    assert {k: stats[k] for k in ("chunks", "pages", "vectors", "pending", "dim")} == {
        "chunks": 4,
        "pages": 2,
        "vectors": 4,
        "pending": 0,
        "dim": 64,
    }
    assert stats["embedder"] == "hash-test:64"
    assert stats["size_bytes"] > 0
    # A page's changes applied to the manifest keep a caller's diff exact.
    index.apply([dict(CORPUS[0], content_hash="sha256:new")])
    assert index.manifest(A)["a1"] == "sha256:new"


def test_stored_chunk_keeps_the_record(index: SearchIndex, index_path: Path) -> None:
    index.apply(CORPUS[:1])
    db = sqlite3.connect(index_path)
    row = db.execute(
        "select url, title, heading_path, heading_path_text, fragment, text, markdown, "
        "char_start, char_end, content_hash, crawled_at from chunks where chunk_id = 'a1'"
    ).fetchone()
    db.close()
    record = CORPUS[0]
    assert row == (
        record["url"],
        record["title"],
        json.dumps(record["heading_path"]),
        record["heading_path_text"],
        record["fragment"],
        record["text"],
        record["markdown"],
        record["char_start"],
        record["char_end"],
        record["content_hash"],
        record["crawled_at"],
    )


def test_embedded_text_has_the_heading_path_and_the_text() -> None:
    record = CORPUS[0]
    # The heading path starts with the title: the title is not repeated.
    assert embedded_text(record) == f"Virtual environments > Creating one\n{record['text']}"
    other = dict(record, heading_path_text="Elsewhere")
    assert embedded_text(other) == f"Virtual environments\nElsewhere\n{record['text']}"
    assert embedded_text(dict(record, title=None, heading_path_text="")) == record["text"]


def test_bad_change_records_raise_and_change_nothing(index: SearchIndex) -> None:
    index.apply(CORPUS[:1])
    bad: list[dict[str, Any]] = [
        {"op": "move", "chunk_id": "x", "url": A},
        {"op": "upsert", "chunk_id": "x", "url": A, "text": "t"},  # no content_hash
        {"op": "delete", "chunk_id": "", "url": A},
    ]
    for record in bad:
        with pytest.raises(ValueError, match=r"^change 1"):
            index.apply([CORPUS[1], record])
    assert index.manifest(A) == {"a1": CORPUS[0]["content_hash"]}


# -- opening -------------------------------------------------------------------------
def test_another_embedder_is_refused_with_both_names(index: SearchIndex, index_path: Path) -> None:
    index.apply(CORPUS[:1])
    index.close()
    for other in (HashEmbedder(dim=32), HashEmbedder(name="other")):
        with pytest.raises(IndexStoreError) as caught:
            SearchIndex.open(index_path, other)
        message = str(caught.value)
        assert "\n" not in message
        assert str(index_path) in message
        assert "hash-test:64 (64 dims)" in message
        assert f"{other.name} ({other.dim} dims)" in message
        # Readers are checked too.
        with pytest.raises(IndexStoreError, match="was built with embedder hash-test:64"):
            SearchIndex.open(index_path, other, write=False)
    with SearchIndex.open(index_path, HashEmbedder()) as again:
        assert again.count() == 1


def test_missing_corrupt_and_foreign_files_are_one_line_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing.sqlite"
    with pytest.raises(IndexStoreError) as caught:
        SearchIndex.open(missing, write=False)
    assert str(caught.value) == f"index {missing} does not exist"
    with pytest.raises(IndexStoreError, match="does not exist"):
        read_embedder_name(missing)
    assert not missing.exists()

    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(b"this is not a database, only text " * 200)
    foreign = tmp_path / "foreign.sqlite"
    db = sqlite3.connect(foreign)
    db.execute("create table t (x)")
    db.commit()
    db.close()
    for path, cause in ((corrupt, "not a database"), (foreign, "not a search index")):
        for write in (False, True):
            with pytest.raises(IndexStoreError) as caught:
                SearchIndex.open(path, HashEmbedder(), write=write)
            message = str(caught.value)
            assert str(path) in message and cause in message and "\n" not in message
            # A failed open leaves no lock behind.
    with SearchIndex.open(tmp_path / "new.sqlite", HashEmbedder()) as fresh:
        assert fresh.count() == 0
    assert corrupt.read_bytes().startswith(b"this is not a database")


def test_writing_needs_an_embedder_and_a_reader_cannot_write(
    index: SearchIndex, index_path: Path
) -> None:
    with pytest.raises(ValueError, match="needs an embedder"):
        SearchIndex.open(index_path)
    index.apply(CORPUS)
    with SearchIndex.open(index_path, write=False) as reader:
        with pytest.raises(IndexStoreError, match="read-only"):
            reader.apply(CORPUS)
        # Without the embedder a reader searches by keyword only.
        assert reader.embedder_name == "hash-test:64" and reader.dim == 64
        assert read_embedder_name(index_path) == "hash-test:64"
        assert chunk_ids(reader.search("sourdough", mode="keyword"))[:1] == ["c2"]
        with pytest.raises(IndexStoreError, match="needs the index's embedder hash-test:64"):
            reader.search("sourdough")


def test_a_second_writer_is_refused_and_readers_need_no_lock(
    index: SearchIndex, index_path: Path
) -> None:
    index.apply(CORPUS[:2])
    with pytest.raises(IndexLockedError) as caught:
        SearchIndex.open(index_path, HashEmbedder(), lock_timeout=0)
    assert str(caught.value) == (
        f"index {index_path} is being written by another run (pid {os.getpid()})"
    )
    assert Path(f"{index_path}.lock").read_text() == f"{os.getpid()}\n"
    # A reader searches while the writer holds the lock, and sees its later commits.
    with SearchIndex.open(index_path, HashEmbedder(), write=False) as reader:
        assert chunk_ids(reader.search("isolated environments", k=1, mode="vector")) == ["a1"]
        index.apply(CORPUS[2:])
        assert chunk_ids(reader.search("sourdough bread flour", k=1, mode="vector")) == ["c2"]
        assert reader.count() == 6
    index.close()
    with SearchIndex.open(index_path, HashEmbedder(), lock_timeout=0) as second:
        assert second.count() == 6


def test_a_second_writer_in_another_process_is_refused(
    index: SearchIndex, index_path: Path
) -> None:
    code = (
        "import sys\n"
        "from webmd_spider.index.store import SearchIndex, IndexLockedError\n"
        "from tests.index.store_support import HashEmbedder\n"
        "try:\n"
        "    SearchIndex.open(sys.argv[1], HashEmbedder(), lock_timeout=0)\n"
        "except IndexLockedError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(index_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == (
        f"index {index_path} is being written by another run (pid {os.getpid()})"
    )


# -- durability ----------------------------------------------------------------------
def _writer(index_path: Path, start: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.index.store_support", str(index_path), str(start)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _kill_at(process: subprocess.Popen[str], start: int, word: str, count: int) -> int:
    """Read the writer's lines until its ``count``-th line starting with ``word``
    (``applied``: a batch committed, the writer then prepares the next one; ``begin``: a
    batch's transaction started, the writer then writes it) and SIGKILL it there. The
    last batch applied (the writer started at batch ``start``)."""
    assert process.stdout is not None
    last, seen = start - 1, 0
    for line in process.stdout:
        said, batch = line.split()
        if said == "applied":
            last = int(batch)
        if said == word:
            seen += 1
            if seen >= count:
                break
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL, process.stderr.read() if process.stderr else ""
    return last


def _expected(batch: int) -> dict[str, str]:
    chunks = page_chunks(batch % PAGES, batch // PAGES)
    return {c["chunk_id"]: c["content_hash"] for c in chunks}


def test_sigkill_leaves_every_page_whole(index_path: Path) -> None:
    start = 0
    kills = [("applied", 1), ("begin", 1), ("begin", 4), ("applied", 3), ("begin", 7)]
    kills += [("applied", 9), ("begin", 2), ("applied", 2), ("begin", 12)]
    for word, count in kills:
        last = _kill_at(_writer(index_path, start), start, word, count)
        assert last >= start + count - 2
        # The batch after `last` may or may not have committed: either way pages are whole.
        db = sqlite3.connect(index_path)
        assert db.execute("pragma integrity_check").fetchone() == ("ok",)
        db.execute("insert into chunks_fts (chunks_fts) values ('integrity-check')")
        assert db.execute(
            "select count(*) from chunks where vector_key not in (select key from vectors)"
        ).fetchone() == (0,)
        assert db.execute(
            "select count(*) from vectors where key not in (select vector_key from chunks)"
        ).fetchone() == (0,)
        assert db.execute("select count(*) from pending").fetchone() == (0,)
        db.close()
        with SearchIndex.open(index_path, SeededEmbedder(), write=False) as reader:
            for page in range(PAGES):
                held = reader.manifest(page_url(page))
                # The page's last reported batch, and the one in flight if it is this
                # page's: the page holds exactly one of them (or nothing, if neither).
                applied = [b for b in range(last + 1) if b % PAGES == page]
                allowed = applied[-1:] + ([last + 1] if (last + 1) % PAGES == page else [])
                whole = [b for b in allowed if held == _expected(b)]
                assert whole or (not applied and held == {}), (page, last, sorted(held))
            hits = reader.search("w5 w12", k=5, mode="keyword")
            assert hits and all(h.url.startswith("https://site.test/page-") for h in hits)
        start = last + 1


# -- the embedder failing --------------------------------------------------------------
def test_embedder_failure_keeps_changes_pending_until_retried(index_path: Path) -> None:
    flaky = FlakyEmbedder()
    index = SearchIndex.open(index_path, flaky)
    index.apply(CORPUS[:4])
    before = {
        mode: [(h.chunk_id, h.score) for h in index.search("environments arrays", mode=mode)]
        for mode in ("keyword", "hybrid")
    }

    flaky.failing = True
    moved = dict(CORPUS[0], text="venv moved to a new chapter", content_hash="sha256:v2")
    report = index.apply([moved, delete(A, "a2"), CORPUS[4]], pages={A: "sha256:pa2"})
    assert (report.upserted, report.deleted, report.embedded, report.pending) == (0, 0, 0, 3)
    assert "503 Service Unavailable" in report.error and "hash-test:64" in report.error
    # Search is unchanged (the query cannot be embedded while the embedder fails: keyword
    # only), the manifest already says what the index will hold.
    hits = index.search("environments arrays", mode="keyword")
    assert [(h.chunk_id, h.score) for h in hits] == before["keyword"]
    with pytest.raises(IndexStoreError, match="cannot embed the query"):
        index.search("environments arrays", mode="hybrid")
    assert index.manifest(A) == {"a1": "sha256:v2"}
    assert index.manifest(C) == {"c1": CORPUS[4]["content_hash"]}
    assert index.page_hashes() == {A: "sha256:pa2"}
    # Still failing: the next batch waits behind the first, in order.
    report = index.apply([delete(C, "c1"), CORPUS[5]])
    assert report.pending == 5
    assert index.manifest(C) == {"c2": CORPUS[5]["content_hash"]}
    assert index.retry_pending().pending == 5
    flaky.failing = False
    hits = index.search("environments arrays", mode="hybrid")
    assert [(h.chunk_id, h.score) for h in hits] == before["hybrid"]
    index.close()

    # Pending changes are durable: a new run with a working embedder applies them first.
    flaky = FlakyEmbedder()
    with SearchIndex.open(index_path, flaky) as index:
        assert index.stats()["pending"] == 5
        report = index.apply([upsert(B, "b3", "a new chunk about tuples")])
        assert (report.upserted, report.deleted, report.pending, report.error) == (3, 1, 0, "")
        assert index.manifest(A) == {"a1": "sha256:v2"}
        # c1 was upserted then deleted while pending: never embedded, never stored.
        assert index.manifest(C) == {"c2": CORPUS[5]["content_hash"]}
        assert index.manifest(B) == {
            "b1": CORPUS[2]["content_hash"],
            "b2": CORPUS[3]["content_hash"],
            "b3": upsert(B, "b3", "a new chunk about tuples")["content_hash"],
        }
        assert chunk_ids(index.search("moved chapter", k=1, mode="keyword")) == ["a1"]
        assert index.stats()["pending"] == 0
        assert index.retry_pending() == type(report)()


def test_retry_pending_applies_them(index_path: Path) -> None:
    flaky = FlakyEmbedder()
    with SearchIndex.open(index_path, flaky) as index:
        flaky.failing = True
        assert index.apply(CORPUS).pending == 6
        assert index.count() == 0 and index.search("sourdough", mode="keyword") == []
        flaky.failing = False
        report = index.retry_pending()
        assert (report.upserted, report.embedded, report.pending) == (6, 6, 0)
        assert chunk_ids(index.search("sourdough", k=1)) == ["c2"]


# -- searching -----------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["keyword", "vector", "hybrid"])
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("sourdough bread", "c2"),
        ("compact arrays of numbers", "b1"),
        ("activate script", "a2"),
        ("btree index", "c1"),
    ],
)
def test_each_mode_finds_the_right_chunk(
    index: SearchIndex, mode: str, query: str, expected: str
) -> None:
    index.apply(CORPUS)
    hits = index.search(query, k=3, mode=mode)
    assert hits[0].chunk_id == expected
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    hit = hits[0]
    record = next(r for r in CORPUS if r["chunk_id"] == expected)
    assert (hit.url, hit.fragment, hit.title, hit.heading_path, hit.text) == (
        record["url"],
        record["fragment"],
        record["title"],
        record["heading_path"],
        record["text"],
    )


def test_headings_weigh_above_the_body(index: SearchIndex) -> None:
    filler = " ".join(f"filler{i}" for i in range(30))
    index.apply(
        [
            upsert(A, "heading", f"{filler} nothing else", title="Guide", section="Installation"),
            upsert(B, "body", f"{filler} installation", title="Guide", section="Other"),
        ]
    )
    assert chunk_ids(index.search("installation", mode="keyword")) == ["heading", "body"]


def test_hybrid_fuses_both_rankings(index: SearchIndex) -> None:
    index.apply(CORPUS)
    hits = index.search("environment", k=6, mode="hybrid")
    assert {"a1", "a2"} <= set(chunk_ids(hits)[:2])
    # weighted RRF: a chunk first in every list scores sum(RRF_WEIGHTS) / 61
    assert hits[0].score <= sum(RRF_WEIGHTS) / 61 + 1e-12
    assert len(index.search("environment", k=MAX_K)) == 6


@pytest.mark.parametrize(
    "query",
    [
        "os.path",
        '"',
        'say "hello',
        "AND",
        "OR NOT",
        "NEAR(a b",
        "title:paths",
        "join*",
        "^join",
        "a - b + c",
        "(unbalanced",
        "'; drop table chunks; --",
        "???",
        "😀 emoji",
        "\x00nul",
    ],
)
def test_any_query_text_is_searchable(index: SearchIndex, query: str) -> None:
    index.apply(CORPUS)
    for mode in ("keyword", "vector", "hybrid"):
        hits = index.search(query, mode=mode)
        assert all(hit.chunk_id for hit in hits)
    assert index.count() == 6


def test_punctuated_words_find_their_chunk(index: SearchIndex) -> None:
    index.apply(CORPUS)
    assert chunk_ids(index.search("os.path.join", k=1, mode="keyword")) == ["b2"]
    assert index.search("???", mode="keyword") == []


def test_bad_queries_raise_value_errors(index: SearchIndex) -> None:
    index.apply(CORPUS)
    with pytest.raises(ValueError, match="the query is empty"):
        index.search("   ")
    with pytest.raises(ValueError, match=f"at most {MAX_QUERY_CHARS}"):
        index.search("x" * (MAX_QUERY_CHARS + 1))
    for k in (0, MAX_K + 1, -3):
        with pytest.raises(ValueError, match=f"from 1 to {MAX_K}"):
            index.search("bread", k=k)
    with pytest.raises(ValueError, match="mode must be one of"):
        index.search("bread", mode="semantic")
    assert len(index.search("x" * MAX_QUERY_CHARS)) <= 10


def test_snippets_are_short_windows_around_the_query(index: SearchIndex) -> None:
    long_text = (
        " ".join(f"word{i}" for i in range(400))
        + " zebra stripes "
        + " ".join(f"tail{i}" for i in range(200))
    )
    index.apply([upsert(A, "long", long_text)])
    hit = index.search("zebra", k=1, mode="keyword")[0]
    assert "zebra stripes" in hit.snippet
    assert len(hit.snippet) <= SNIPPET_CHARS
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert hit.text == long_text
    # No term found: the text's start; short texts whole.
    assert snippet(long_text, ["absent"]).startswith("word0 word1")
    assert snippet("short  text\nhere", ["x"]) == "short text here"
    # A stemmed query word is found by its first letters.
    assert "installing" in snippet("x " * 300 + "installing now " + "y " * 300, ["installs"])


def test_empty_index_searches_to_nothing(index: SearchIndex) -> None:
    for mode in ("keyword", "vector", "hybrid"):
        assert index.search("anything", mode=mode) == []


# -- the real default model ----------------------------------------------------------
class WordLlamaTestEmbedder:
    """wordllama's bundled model, loaded offline as the design doc says."""

    def __init__(self) -> None:
        import wordllama
        from wordllama import WordLlama

        self._model = WordLlama.load(
            cache_dir=Path(wordllama.__file__).parent, disable_download=True
        )
        self.name = "wordllama-test:l2_supercat:256"
        self.dim = 256

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._model.embed(list(texts), norm=True), dtype=np.float32)


def test_wordllama_vectors_find_chunks_by_meaning(index_path: Path) -> None:
    model = WordLlamaTestEmbedder()
    with SearchIndex.open(index_path, model) as index:
        report = index.apply(CORPUS)
        assert report.embedded == 6
        # By meaning: the query shares no word with a1's text (only with its title).
        hits = index.search("How do I create a virtual environment?", k=3, mode="vector")
        assert hits[0].url == A
        assert chunk_ids(index.search("bake a loaf", k=1, mode="vector")) == ["c2"]
        assert chunk_ids(index.search("sourdough starter", k=1)) == ["c2"]
    with SearchIndex.open(index_path, model, write=False) as reader:
        assert reader.stats()["embedder"] == model.name
        assert reader.stats()["dim"] == 256
