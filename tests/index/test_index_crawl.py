"""``--index`` on real crawls of a local site: the index is filled, searched through the
CLI and the Python API, kept unchanged by an unchanged recrawl, refuses a second
writer, and survives an embedding endpoint that goes down (issue 33)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.api import search
from webmd_spider.demo.server import SiteServer
from webmd_spider.index.store import SearchIndex

from ..crawling import REPO, by_type, crawl_with_stats, scrapy_crawl, summary_of

Serve = Callable[[Path], SiteServer]

TOPICS = {
    "install.html": ("Installing Harbor", "The installer copies the harbor binary into place"),
    "tides.html": ("Tide tables", "Tide tables list the high and low water of every port"),
    "anchors.html": ("Choosing an anchor", "A plough anchor holds well in sand and mud"),
}


def page(title: str, sentence: str, *links: str) -> str:
    anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
    prose = " ".join(f"{sentence}, says note {i} of this page." for i in range(9))
    return (
        f"<html><head><title>{title}</title></head><body><nav><ul>{anchors}</ul></nav>"
        f"<main><h1>{title}</h1><h2>Overview</h2><p>{prose}</p></main></body></html>"
    )


def write_site(root: Path, topics: dict[str, tuple[str, str]]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.html").write_text(
        page("Harbor handbook", "The handbook covers the harbor", *[f"/{n}" for n in topics]),
        "utf-8",
    )
    for name, (title, sentence) in topics.items():
        (root / name).write_text(page(title, sentence, "/"), "utf-8")


def index_settings(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    return {
        "WEBMD_STATE_DIR": str(tmp_path / "state"),
        "WEBMD_STATE": "harbor",
        "WEBMD_INDEX": str(tmp_path / "site.idx"),
        **extra,
    }


def run_search(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "webmd_spider.cli", "search", *args]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)


def indexed(path: Path) -> dict[str, str]:
    """chunk_id -> content_hash of every chunk in the index, read with SQLite."""
    with SearchIndex.open(path, write=False) as index:
        return {cid: h for url in index.urls() for cid, h in index.manifest(url).items()}


@deferred_f_from_coro_f
async def test_crawl_into_an_index_then_search_it(serve_site: Serve, tmp_path: Path) -> None:
    write_site(tmp_path / "site", TOPICS)
    server = serve_site(tmp_path / "site")
    rows, stats = await crawl_with_stats(
        tmp_path / "r1", index_settings(tmp_path), start=server.url("/")
    )
    pages = by_type(rows, "page")
    chunks = sum(len(r["chunks"]) for r in pages)
    assert len(pages) == 4 and stats["webmd/index/upserts"] == chunks
    assert stats["webmd/index/embedded"] == chunks and stats["webmd/index/pending"] == 0
    summary = summary_of(tmp_path / "r1")
    assert summary["change_feed"]["upserts"] == chunks

    index = str(tmp_path / "site.idx")
    done = run_search(index, "which anchor holds in sand", "--k", "2")
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()
    assert first[0].startswith("1. Choosing an anchor")
    assert first[1].strip().startswith(server.url("/anchors.html") + "#:~:text=Overview")

    done = run_search(index, "tide tables of every port", "--json", "--mode", "keyword")
    hits = json.loads(done.stdout)["hits"]
    assert (
        hits[0]["url"] == server.url("/tides.html") and "high and low water" in hits[0]["snippet"]
    )

    hits = search(index, "harbor binary installer", k=1, mode="vector")
    assert [h["url"] for h in hits] == [server.url("/install.html")]
    assert hits[0]["heading_path"] == ["Installing Harbor", "Overview"]

    # an unchanged recrawl embeds nothing and writes nothing to the index
    before = indexed(tmp_path / "site.idx")
    _, stats = await crawl_with_stats(
        tmp_path / "r2", index_settings(tmp_path), start=server.url("/")
    )
    assert stats.get("webmd/index/upserts") == 0 and stats.get("webmd/index/deletes") == 0
    assert stats.get("webmd/index/embedded") == 0
    assert indexed(tmp_path / "site.idx") == before


def test_search_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    missing = run_search(str(tmp_path / "none.idx"), "tides")
    assert missing.returncode == 3 and missing.stdout == ""
    assert missing.stderr.count("\n") == 1 and "none.idx: no such file" in missing.stderr
    broken = tmp_path / "broken.idx"
    broken.write_bytes(b"this is not an index" * 50)
    done = run_search(str(broken), "tides")
    assert done.returncode == 3 and done.stderr.count("\n") == 1
    assert str(broken) in done.stderr and "Traceback" not in done.stderr
    long = run_search(str(broken), "x" * 1001)
    assert long.returncode == 2 and "at most 1000" in long.stderr
    assert run_search(str(broken), "tides", "--k", "0").returncode == 2


def test_a_second_writer_of_the_index_fails_clearly(tmp_path: Path) -> None:
    from webmd_spider.index.embedders import open_embedder

    path = tmp_path / "site.idx"
    with SearchIndex.open(path, open_embedder("wordllama"), write=True):
        done = scrapy_crawl(
            "-a", "start=http://127.0.0.1:9/", "-a", f"index={path}",
            "-s", f"WEBMD_STATE_DIR={tmp_path / 'state'}", "-O", str(tmp_path / "rows.jsonl"),
        )  # fmt: skip
    assert done.returncode != 0
    assert f"index {path} is being written by another run (pid" in done.stderr


class Embeddings:
    """An OpenAI-compatible embeddings endpoint on 127.0.0.1 that can be made to fail:
    vectors are bags of hashed words (16 dimensions), deterministic."""

    def __init__(self) -> None:
        self.failing = False
        self.requests = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                owner.requests += 1
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if owner.failing:
                    self.send_response(503)
                    self.send_header("Retry-After", "0")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                data = [
                    {"index": i, "embedding": owner.vector(text)}
                    for i, text in enumerate(body["input"])
                ]
                answer = json.dumps({"data": data}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/embeddings"

    @staticmethod
    def vector(text: str) -> list[float]:
        out = np.zeros(16)
        for word in text.lower().split():
            out[sum(map(ord, word)) % 16] += 1.0
        return [float(v) for v in out]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def embeddings() -> Iterator[Embeddings]:
    server = Embeddings()
    yield server
    server.close()


@deferred_f_from_coro_f
async def test_an_endpoint_that_fails_leaves_rows_written_and_chunks_waiting(
    serve_site: Serve, tmp_path: Path, embeddings: Embeddings
) -> None:
    write_site(tmp_path / "site", TOPICS)
    server = serve_site(tmp_path / "site")
    settings = index_settings(tmp_path, WEBMD_EMBED_URL=embeddings.url)
    _, stats = await crawl_with_stats(tmp_path / "r1", settings, start=server.url("/"))
    assert stats["webmd/index/embedded"] > 0 and stats["webmd/index/pending"] == 0
    before = indexed(tmp_path / "site.idx")

    edited = dict(TOPICS, **{"tides.html": ("Tide tables", "Spring tides follow the new moon")})
    write_site(tmp_path / "site", edited)
    embeddings.failing = True
    rows, stats = await crawl_with_stats(tmp_path / "r2", settings, start=server.url("/"))
    assert [r["url"] for r in by_type(rows, "page") if r["change"] == "changed"] == [
        server.url("/tides.html")
    ]
    summary = summary_of(tmp_path / "r2")["change_feed"]
    assert summary["pending"] > 0 and "503" in summary["failure"]
    # the searchable index is as it was before the failed batch (its manifest, which
    # the next feed is computed against, already holds the waiting changes)
    old = search(tmp_path / "site.idx", "high and low water of every port", k=1, mode="keyword")
    assert [h["url"] for h in old] == [server.url("/tides.html")]
    assert search(tmp_path / "site.idx", "moon", mode="keyword") == []

    embeddings.failing = False
    _, stats = await crawl_with_stats(tmp_path / "r3", settings, start=server.url("/"))
    assert stats["webmd/index/pending"] == 0 and stats["webmd/index/embedded"] > 0
    hits = search(tmp_path / "site.idx", "spring tides new moon", k=1, mode="keyword")
    assert [h["url"] for h in hits] == [server.url("/tides.html")]
    assert not search(tmp_path / "site.idx", "water", k=5, mode="keyword")
    after = indexed(tmp_path / "site.idx")
    assert len(after) == len(before) and len(set(after) - set(before)) == 1


def test_changes_from_python_then_nothing_when_nothing_changed(
    serve_site: Serve, tmp_path: Path
) -> None:
    from webmd_spider.api import changes

    write_site(tmp_path / "site", TOPICS)
    server = serve_site(tmp_path / "site")
    common = {"allow_local": True, "host_delay": "0", "state": "py", "state_dir": str(tmp_path)}
    first = list(changes(server.url("/"), **common))
    assert {c["op"] for c in first} == {"upsert"}
    assert {c["url"] for c in first} == {server.url("/"), *(server.url(f"/{n}") for n in TOPICS)}
    assert list(changes(server.url("/"), **common)) == []
    with pytest.raises(ValueError, match="max_pages"):
        changes(server.url("/"), max_pages=0, **common)


@deferred_f_from_coro_f
async def test_a_renamed_page_reuses_its_vectors(serve_site: Serve, tmp_path: Path) -> None:
    write_site(tmp_path / "site", TOPICS)
    server = serve_site(tmp_path / "site")
    await crawl_with_stats(tmp_path / "r1", index_settings(tmp_path), start=server.url("/"))
    renamed = {("harbour-tides.html" if k == "tides.html" else k): v for k, v in TOPICS.items()}
    (tmp_path / "site" / "tides.html").unlink()
    write_site(tmp_path / "site", renamed)
    _, stats = await crawl_with_stats(
        tmp_path / "r2", index_settings(tmp_path), start=server.url("/")
    )
    # the home page's link list changed (its chunk is embedded again); the moved page's
    # text is the same, under a new URL: new chunk ids, the vectors it had
    assert stats["webmd/index/reused"] >= 1 and stats["webmd/index/deletes"] >= 1
    assert stats["webmd/index/embedded"] < stats["webmd/index/upserts"]
    hits = search(tmp_path / "site.idx", "water", k=5, mode="keyword")
    assert [h["url"] for h in hits] == [server.url("/harbour-tides.html")]
