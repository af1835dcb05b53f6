"""``webmd mcp --index FILE``: the ``search_docs`` tool, through the MCP SDK's own client.

The server runs as a subprocess over stdio (``test_mcp.mcp_server``) and searches a real
index built here with the real wordllama model (:func:`build_index`). The result budget
is tested directly at the end, without a server.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from webmd_spider.index.embedders import open_embedder
from webmd_spider.index.searching import MAX_K, MAX_QUERY_CHARS
from webmd_spider.index.store import SearchIndex
from webmd_spider.service.mcp_server import parse_args
from webmd_spider.service.mcp_tools import (
    MIN_CUT_CHARS,
    SEARCH_HIT_CHARS,
    search_hits,
    search_note,
)

from ..index.store_support import upsert
from .test_mcp import Session, _text, mcp_server

DOCS = "https://docs.harbor.test"
#: the URL to cite for the retry policy (the fragment of its section)
RETRY_URL = f"{DOCS}/retries#retry-policy"
#: a chunk longer than a hit may show: lines, so a cut ends at a line end
LONG_TEXT = "\n".join(
    f"Option opt{i} sets configuration setting number {i} of the harbor reference."
    for i in range(120)
)
RETRY_QUERY = "how many times is a failed job retried"

CORPUS = [
    upsert(
        f"{DOCS}/install",
        "i1",
        "Install Harbor Queue with pip install harbor-queue inside a virtual environment; "
        "Python 3.10 or newer is needed.",
        title="Installation",
        section="Installing",
    ),
    upsert(
        f"{DOCS}/retries",
        "r1",
        "A failed job is retried with exponential backoff, up to five times, before it is "
        "moved to the dead letter queue.",
        title="Retries",
        section="Retry policy",
    ),
    upsert(
        f"{DOCS}/workers",
        "w1",
        "Workers pull jobs from the queue; run more of them with the --concurrency flag to "
        "process jobs in parallel.",
        title="Workers",
        section="Worker pools",
    ),
    upsert(
        f"{DOCS}/baking",
        "b1",
        "Sourdough bread needs flour, water, salt and a starter, and a long slow rise.",
        title="Baking",
        section="Bread",
    ),
    upsert(
        f"{DOCS}/reference",
        "c1",
        LONG_TEXT,
        title="Configuration reference",
        section="All options",
    ),
]


def build_index(path: Path) -> Path:
    """A real index of :data:`CORPUS` at ``path``, embedded by the bundled wordllama."""
    with SearchIndex.open(path, open_embedder("wordllama")) as index:
        report = index.apply(CORPUS, pages={c["url"]: "sha256:" + c["chunk_id"] for c in CORPUS})
    assert report.upserted == len(CORPUS) and not report.error
    return path


@pytest.fixture(scope="module")
def index_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_index(tmp_path_factory.mktemp("search-index") / "site.idx")


@pytest.fixture(scope="module")
def searching(tmp_path_factory: pytest.TempPathFactory, index_file: Path) -> Iterator[Session]:
    """A server started with --index over the test index."""
    cwd = tmp_path_factory.mktemp("mcp-search")
    with mcp_server("--index", str(index_file), cwd=cwd) as session:
        yield session


def test_search_docs_is_listed_with_its_schemas(searching: Session) -> None:
    tools = searching.tools()
    assert set(tools) == {"fetch_page", "crawl_site", "convert_html", "search_docs"}
    schema = tools["search_docs"].input_schema
    assert schema["required"] == ["query"]
    query, k = schema["properties"]["query"], schema["properties"]["k"]
    assert (query["type"], query["minLength"], query["maxLength"]) == ("string", 1, 1000)
    assert (k["type"], k["minimum"], k["maximum"], k["default"]) == ("integer", 1, MAX_K, 5)
    output = tools["search_docs"].output_schema
    assert output is not None
    assert {"query", "mode", "hit_count", "truncated", "note", "hits"} <= set(output["properties"])


def test_search_docs_cites_the_url_of_the_best_hit(searching: Session) -> None:
    result = searching.call("search_docs", query=RETRY_QUERY, k=3)
    assert not result.is_error, _text(result)
    data = result.structured_content
    assert data is not None
    assert (data["query"], data["mode"], data["hit_count"]) == (RETRY_QUERY, "hybrid", 3)
    assert [hit["rank"] for hit in data["hits"]] == [1, 2, 3]
    best = data["hits"][0]
    assert best["fragment"] == RETRY_URL and best["url"] == f"{DOCS}/retries"
    assert (best["title"], best["heading_path"]) == ("Retries", ["Retries", "Retry policy"])
    assert best["shown"] == "full" and best["text"] == CORPUS[1]["text"]
    assert "five times" in best["snippet"]
    scores = [hit["score"] for hit in data["hits"]]
    assert scores == sorted(scores, reverse=True)
    # the text an agent reads names the URL to cite under the hit's title and headings
    text = _text(result)
    assert text.startswith(f'3 hits for "{RETRY_QUERY}" (hybrid), best first. Cite a hit')
    first = text.split("\n---\n")[1]
    assert first.startswith(
        f"Hit 1: Retries\nSection: Retries > Retry policy\nURL: {RETRY_URL}\n\nA failed job"
    )
    assert "[Truncated" not in text and not data["truncated"]


def test_a_hit_longer_than_the_budget_is_cut_at_a_line_end(searching: Session) -> None:
    result = searching.call("search_docs", query="configuration reference options", k=1)
    assert not result.is_error, _text(result)
    data = result.structured_content
    assert data is not None
    (hit,) = data["hits"]
    assert hit["fragment"] == f"{DOCS}/reference#all-options"
    assert hit["shown"] == "cut" and hit["chars"] == len(LONG_TEXT)
    assert len(hit["text"]) <= SEARCH_HIT_CHARS and LONG_TEXT.startswith(hit["text"])
    assert hit["text"].endswith("harbor reference.")  # a whole line
    assert data["truncated"] and data["note"].startswith("[Truncated: ")
    text = _text(result)
    assert data["note"] in text
    assert f"[Cut: {len(hit['text']):,} of {len(LONG_TEXT):,} characters shown.]" in text


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"query": "x" * (MAX_QUERY_CHARS + 1)}, "at most 1000 characters"),
        ({"query": ""}, "at least 1 character"),
        ({"query": "   "}, "the query is empty"),
        ({"query": "retries", "k": 0}, "greater than or equal to 1"),
        ({"query": "retries", "k": MAX_K + 1}, "less than or equal to 50"),
        ({"query": ["retries"]}, "valid string"),
    ],
)
def test_bad_queries_are_refused(
    searching: Session, arguments: dict[str, Any], message: str
) -> None:
    result = searching.call("search_docs", **arguments)
    assert result.is_error
    assert message in _text(result), _text(result)


def test_an_unusable_index_is_an_error_result_until_one_is_built(tmp_path: Path) -> None:
    path = tmp_path / "later.idx"
    with mcp_server("--index", str(path), cwd=tmp_path) as session:
        assert "search_docs" in session.tools()  # offered: the file may come later
        missing = session.call("search_docs", query="retries")
        assert missing.is_error
        assert f"the index cannot be searched: index {path}: no such file" in _text(missing)
        path.write_bytes(b"this is not an index " * 100)
        damaged = session.call("search_docs", query="retries")
        assert damaged.is_error and "the index cannot be searched" in _text(damaged)
        assert str(path) in _text(damaged), _text(damaged)
        path.unlink()
        build_index(path)  # a crawl builds it: the next call searches it
        found = session.call("search_docs", query=RETRY_QUERY, k=1)
    assert not found.is_error, _text(found)
    assert found.structured_content is not None
    assert found.structured_content["hits"][0]["fragment"] == RETRY_URL


def test_without_an_index_search_docs_is_not_offered(tmp_path: Path) -> None:
    with mcp_server(cwd=tmp_path) as session:
        assert set(session.tools()) == {"fetch_page", "crawl_site", "convert_html"}
        result = session.call("search_docs", query="retries")
    assert result.is_error and "search_docs" in _text(result), _text(result)


def test_embedder_flags_need_an_index(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        parse_args(["--embed-url", "http://127.0.0.1:9/v1/embeddings"])
    assert exit_.value.code == 2
    assert "--embedder, --embed-url and --embed-model go with --index" in capsys.readouterr().err
    args = parse_args(["--index", "site.idx", "--embed-url", "http://127.0.0.1:9/v1/embeddings"])
    assert args.index == Path("site.idx")


# -- the budget, without a server -----------------------------------------------------


def _hit(number: int, text: str) -> dict[str, Any]:
    return {
        "chunk_id": f"c{number}",
        "url": f"https://a.example/{number}",
        "fragment": f"https://a.example/{number}#part",
        "title": f"Page {number}",
        "heading_path": [f"Page {number}", "Part"],
        "score": 1.0 / number,
        "snippet": text[:40],
        "text": text,
    }


def test_the_budget_shows_whole_hits_then_cuts_then_keeps_snippets() -> None:
    lines = "\n".join(f"line {i} " + "y" * 40 for i in range(40))  # 40 lines of ~48
    small = "A short section."
    hits = [_hit(1, small), _hit(2, lines), _hit(3, lines), _hit(4, small)]
    budget = len(small) + len(lines) + MIN_CUT_CHARS // 2
    shown = search_hits(hits, budget)
    assert [h.shown for h in shown] == ["full", "full", "snippet", "full"]
    assert shown[2].text == "" and shown[2].snippet == lines[:40]
    assert shown[2].chars == len(lines) and shown[2].fragment == "https://a.example/3#part"
    # the per-hit cap cuts a long text even when the budget has room
    long_hits = [_hit(1, lines * 3)]
    (cut,) = search_hits(long_hits, 200_000)
    assert cut.shown == "cut" and len(cut.text) <= SEARCH_HIT_CHARS
    note = search_note(shown, budget)
    assert "1 hit shown by snippet only (3)" in note
    assert search_note(search_hits([_hit(1, small)], budget), budget) == ""
