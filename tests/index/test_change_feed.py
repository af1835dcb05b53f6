"""The change feed against a real local site that changes between runs: applying the
feeds of a first crawl and of every later incremental crawl to an empty store gives
exactly the chunks of a fresh full crawl of the site as it is now (issue 33)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer
from webmd_spider.index.feed import chunk_hash

from ..crawling import by_type, crawl_with_stats

Serve = Callable[[Path], SiteServer]


def section(name: str, words: str) -> str:
    prose = " ".join(f"{words} sentence {i} of the {name} section." for i in range(8))
    return f"<h2>{name}</h2><p>{prose}</p>"


def page(title: str, sections: dict[str, str], *links: str) -> str:
    anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
    body = "".join(section(name, words) for name, words in sections.items())
    return (
        f"<html><head><title>{title}</title></head><body><nav><ul>{anchors}</ul></nav>"
        f"<main><h1>{title}</h1>{body}</main></body></html>"
    )


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


SECTIONS = {"Install": "Installing needs", "Use": "Using means", "Tune": "Tuning asks"}


def home(*pages: str) -> str:
    return page("Home", {"Welcome": "Welcome text"}, *[f"/{p}" for p in pages])


def version_one(root: Path) -> None:
    names = ["alpha.html", "beta.html", "gamma.html", "delta.html", "same.html"]
    files = {"index.html": home(*names)}
    for name in names:
        title = name.removesuffix(".html").title()
        files[name] = page(title, {k: f"{v} {title}" for k, v in SECTIONS.items()}, "/")
    write(root, files)


def version_two(root: Path) -> None:
    """Added epsilon, alpha rewritten, one section of beta edited, gamma removed,
    delta renamed to delta-new (same text), same.html untouched."""
    names = ["alpha.html", "beta.html", "delta-new.html", "epsilon.html", "same.html"]
    files = {"index.html": home(*names)}
    files["alpha.html"] = page("Alpha", {"Other": "Entirely new words for Alpha"}, "/")
    beta = {k: f"{v} Beta" for k, v in SECTIONS.items()}
    beta["Use"] = "Using now differs for Beta"
    files["beta.html"] = page("Beta", beta, "/")
    files["delta-new.html"] = page("Delta", {k: f"{v} Delta" for k, v in SECTIONS.items()}, "/")
    files["epsilon.html"] = page("Epsilon", {k: f"{v} Epsilon" for k, v in SECTIONS.items()}, "/")
    write(root, files)
    (root / "gamma.html").unlink()
    (root / "delta.html").unlink()


def settings(tmp_path: Path, state: str, changes: Path) -> dict[str, Any]:
    return {
        "WEBMD_STATE_DIR": str(tmp_path / "state"),
        "WEBMD_STATE": state,
        "WEBMD_CHANGES": str(changes),
        # small chunks: every section is a chunk of its own
        "WEBMD_CHUNK_TOKENS": 125,
        "WEBMD_CHUNK_OVERLAP_TOKENS": 0,
    }


def feed(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


def apply(store: dict[str, dict[str, Any]], changes: list[dict[str, Any]]) -> None:
    for change in changes:
        if change["op"] == "delete":
            assert change["chunk_id"] in store, "a delete of a chunk never upserted"
            del store[change["chunk_id"]]
        else:
            store[change["chunk_id"]] = change


def fresh_chunks(rows: list[dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
    """chunk_id -> (url, Markdown hash, offsets, heading path) of every page row's chunks."""
    found: dict[str, tuple[Any, ...]] = {}
    for row in by_type(rows, "page"):
        for chunk in row["chunks"] or []:
            found[chunk["chunk_id"]] = (
                chunk["url"],
                chunk_hash(chunk["text"]),
                chunk["char_start"],
                chunk["char_end"],
                chunk["heading_path"],
            )
    return found


def held(store: dict[str, dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
    """The same view of what the store holds."""
    return {
        k: (v["url"], chunk_hash(v["markdown"]), v["char_start"], v["char_end"], v["heading_path"])
        for k, v in store.items()
    }


@deferred_f_from_coro_f
async def test_feeds_applied_in_order_equal_a_fresh_full_crawl(
    serve_site: Serve, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    version_one(site)
    server = serve_site(site)
    store: dict[str, dict[str, Any]] = {}

    first = tmp_path / "feed1.jsonl"
    rows, _ = await crawl_with_stats(
        tmp_path / "r1", settings(tmp_path, "job", first), start=server.url("/")
    )
    changes = feed(first)
    assert changes and {c["op"] for c in changes} == {"upsert"}
    apply(store, changes)
    assert held(store) == fresh_chunks(rows)
    one = next(c for c in changes if c["heading_path"][-1:] == ["Install"])
    # the record carries what a store needs to cite the chunk
    assert one["title"] and one["fragment"].startswith(one["url"] + "#")
    assert "\n## Install\n" in one["markdown"] and "#" not in one["text"]
    assert "Install" in one["text"].splitlines()
    assert one["crawled_at"].endswith("Z") and one["char_end"] > one["char_start"]

    version_two(site)
    second = tmp_path / "feed2.jsonl"
    await crawl_with_stats(
        tmp_path / "r2", settings(tmp_path, "job", second), start=server.url("/")
    )
    changes2 = feed(second)
    apply(store, changes2)
    by_url: dict[str, set[str]] = {}
    for change in changes2:
        by_url.setdefault(change["url"].removeprefix(server.base_url), set()).add(change["op"])
    # an untouched page sends nothing; a removed one only deletes; a renamed one's old
    # URL deletes and its new URL upserts; one edited section is one delete and one
    # upsert, and the sections below it, moved in the page, are upserted under their ids
    assert "/same.html" not in by_url
    assert by_url["/gamma.html"] == {"delete"} and by_url["/delta.html"] == {"delete"}
    assert by_url["/delta-new.html"] == {"upsert"} and by_url["/epsilon.html"] == {"upsert"}
    beta = [c for c in changes2 if c["url"].endswith("/beta.html")]
    first_ids = {c["chunk_id"] for c in changes}
    assert [c["op"] for c in beta].count("delete") == 1
    new = [
        c["heading_path"][-1]
        for c in beta
        if c["op"] == "upsert" and c["chunk_id"] not in first_ids
    ]
    assert new == ["Use"]
    moved = [c for c in beta if c["op"] == "upsert" and c["chunk_id"] in first_ids]
    assert [c["heading_path"][-1] for c in moved] == ["Tune"]

    fresh_rows, _ = await crawl_with_stats(
        tmp_path / "r3",
        settings(tmp_path, "fresh", tmp_path / "fresh.jsonl"),
        start=server.url("/"),
    )
    assert held(store) == fresh_chunks(fresh_rows)

    third = tmp_path / "feed3.jsonl"
    await crawl_with_stats(tmp_path / "r4", settings(tmp_path, "job", third), start=server.url("/"))
    assert feed(third) == []  # nothing changed on the server: an empty feed


@deferred_f_from_coro_f
async def test_a_lost_ledger_is_rebuilt_by_fetching_whole(
    serve_site: Serve, tmp_path: Path
) -> None:
    """The state says every page is unchanged, but the feed's target lost its memory
    (deleted, or a run killed between the two): the pages are fetched whole and
    upserted again, not skipped."""
    site = tmp_path / "site"
    version_one(site)
    server = serve_site(site)
    first = tmp_path / "feed1.jsonl"
    await crawl_with_stats(tmp_path / "r1", settings(tmp_path, "job", first), start=server.url("/"))
    for path in (tmp_path / "state").glob("job.chunks.sqlite*"):
        path.unlink()
    second = tmp_path / "feed2.jsonl"
    rows, _ = await crawl_with_stats(
        tmp_path / "r2", settings(tmp_path, "job", second), start=server.url("/")
    )
    assert {c["chunk_id"] for c in feed(second)} == {c["chunk_id"] for c in feed(first)}
    assert {r["change"] for r in by_type(rows, "page")} == {"changed"}
