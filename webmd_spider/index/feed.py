"""The chunk-level change feed: what a crawl's page rows change in a store of chunks.

A store that holds a site's chunks (our search index, a LangChain vector store, the
user's own) needs three things from a recrawl: the chunks that are new or whose text
changed (``upsert``), the chunks that are gone (``delete``), and nothing at all for a
page that did not change. The feed is computed against a *target* that remembers, per
page, the ids and content hashes of the chunks it holds (:class:`FeedTarget`: the
search index itself, or a :class:`ChunkLedger` beside the incremental state when the
feed only goes to a file). So it is exact: applying the feeds of a first crawl and of
every later incremental crawl to an empty store gives the chunks of a fresh full crawl.

The record format is ``docs/design/search-index.md``'s (and the README's "Change feed").

PURE: standard library only (import-linter checks); the crawl's pipeline
(``pipelines/chunk_sync.py``) calls into it.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

__all__ = [
    "ChunkLedger",
    "FeedTarget",
    "LedgerError",
    "chunk_hash",
    "cite_url",
    "page_changes",
    "plain_text",
    "record_hash",
    "removed_changes",
]

UPSERT, DELETE = "upsert", "delete"


class FeedTarget(Protocol):
    """What the feed is computed against (the search index, or a :class:`ChunkLedger`)."""

    def manifest(self, url: str) -> dict[str, str]:
        """chunk_id -> content_hash of the chunks held for the page ``url``."""
        ...

    def page_hashes(self) -> dict[str, str]:
        """Page URL -> the page's content hash (the row's) for every page held."""
        ...

    def apply(self, changes: Sequence[dict[str, Any]], pages: Mapping[str, str | None]) -> Any:
        """Apply one page's changes and set (hash) or drop (None) its page entries, in
        one transaction."""
        ...


def chunk_hash(markdown: str) -> str:
    """``sha256:<hex>`` of a chunk's Markdown."""
    return "sha256:" + hashlib.sha256(markdown.encode("utf-8", "surrogatepass")).hexdigest()


def record_hash(record: Mapping[str, Any]) -> str:
    """``sha256:<hex>`` of everything an upsert carries but its time: the Markdown, the
    heading path, the offsets, the title, the URL it cites and whether its page is
    index-like. Equal hashes, equal
    records: a chunk that only moved (an edit above it shifts its offsets) is upserted
    again (its vector is reused: the store keys vectors by their text), so a store fed
    the feed equals a fresh build in every field."""
    parts = (
        record.get("markdown"),
        record.get("heading_path_text"),
        record.get("char_start"),
        record.get("char_end"),
        record.get("title"),
        record.get("fragment"),
        bool(record.get("index_like")),
    )
    payload = "\0".join("" if p is None else str(p) for p in parts)
    return "sha256:" + hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


# Markdown syntax that is not text: heading marks, emphasis, link targets, fences,
# table rules. The chunk's text is what BM25 and an embedder read, so markup words
# ("https", "png") must not count as the chunk's words; code (fenced blocks, code
# spans) keeps every character: `__init__` and `PyObject_Call` are what users search.
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_LINE_MARKS = re.compile(r"^\s{0,3}(?:#{1,6}\s+|(?:>\s?)+|[-*+]\s+|\d+[.)]\s+)")
_TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# emphasis only at a word's edge: "*word*", "__init__" inside code is not reached
_EMPHASIS = re.compile(r"(?<![\w\\])[*_~]{1,3}(?=\S)|(?<=\S)[*_~]{1,3}(?!\w)")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_SPACE = re.compile(r"[ \t]+")


def plain_text(markdown: str) -> str:
    """The words of a chunk's Markdown: link and image text without their targets,
    heading, list and quote marks, emphasis, escapes and fences removed, table pipes as
    spaces; code blocks and code spans keep every character. Not a renderer: a search
    index's reading of the chunk."""
    out: list[str] = []
    fence = ""
    for line in markdown.splitlines():
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            elif line.strip():
                out.append(line.rstrip())
            continue
        if opened:
            fence = opened.group(1)
            continue
        if _TABLE_RULE.match(line.strip()):
            continue
        line = _LINE_MARKS.sub("", _LINK.sub(r"\1", line))
        pieces: list[str] = []
        at = 0
        for span in _CODE_SPAN.finditer(line):
            pieces.append(_prose(line[at : span.start()]))
            pieces.append(span.group(2).strip())
            at = span.end()
        pieces.append(_prose(line[at:]))
        text = _SPACE.sub(" ", "".join(pieces).replace("|", " ")).strip()
        if text:
            out.append(text)
    return "\n".join(out)


def _prose(text: str) -> str:
    return _ESCAPE.sub(r"\1", _EMPHASIS.sub("", text))


def cite_url(url: str, heading: str | None, anchor: str | None = None) -> str:
    """The URL a result cites: ``url#anchor`` when the page named the heading's anchor,
    else a text fragment on the heading (``#:~:text=``, WICG "URL Fragment Text
    Directives": browsers scroll to the heading's text), else ``url``."""
    base = url.split("#", 1)[0]
    if anchor:
        return f"{base}#{quote(anchor, safe='-._~')}"
    if heading:
        # the directive's own syntax characters (",", "-", "&") are percent-encoded in
        # its terms (spec §3.3.1)
        return f"{base}#:~:text={quote(heading, safe='')}"
    return base


def page_changes(
    previous: Mapping[str, str],
    chunks: Sequence[Mapping[str, Any]],
    *,
    url: str,
    title: str | None,
    crawled_at: str,
    headings: Sequence[Mapping[str, Any]] = (),
    index_like: bool = False,
) -> list[dict[str, Any]]:
    """The changes that take a store from `previous` (chunk_id -> content_hash held for
    the page) to the page's `chunks` (the row's ``chunks`` entries): deletes first (ids
    held and no longer among the chunks, in id order), then upserts (new ids, or ids
    whose record differs: ``record_hash``) in page order. Equal sets give []. `headings`
    (the row's, with their ``anchor``) give each upsert's ``fragment`` its anchor;
    `index_like` (a generated index, a listing: ``rows/index_pages.py``) is carried on
    each upsert, for a store to rank such pages below the ones that treat a topic."""
    changes: list[dict[str, Any]] = []
    current = {str(chunk["chunk_id"]) for chunk in chunks}
    for chunk_id in sorted(set(previous) - current):
        changes.append({"op": DELETE, "chunk_id": chunk_id, "url": url})
    anchors = chunk_anchors(chunks, headings)
    for chunk, anchor in zip(chunks, anchors, strict=True):
        markdown = str(chunk["text"])
        chunk_id = str(chunk["chunk_id"])
        path = [str(name) for name in chunk.get("heading_path") or []]
        heading = path[-1] if len(path) > 1 else None
        record: dict[str, Any] = {
            "op": UPSERT,
            "chunk_id": chunk_id,
            "url": url,
            "title": title,
            "heading_path": path,
            "heading_path_text": str(chunk.get("heading_path_text") or ""),
            "fragment": cite_url(url, heading, anchor),
            "markdown": markdown,
            "char_start": int(chunk.get("char_start") or 0),
            "char_end": int(chunk.get("char_end") or 0),
            "index_like": index_like,
        }
        digest = record_hash(record)
        if previous.get(chunk_id) == digest:
            continue
        record["text"] = plain_text(markdown)
        record["content_hash"] = digest
        record["crawled_at"] = crawled_at
        changes.append(record)
    return changes


def chunk_anchors(
    chunks: Sequence[Mapping[str, Any]], headings: Sequence[Mapping[str, Any]]
) -> list[str | None]:
    """Each chunk's heading anchor: the page heading whose own heading path ends with the
    chunk's (its title left out), sought in page order from the last match (a pointer
    that only moves forward, so the second "Parameters" section gets the second anchor);
    None when the chunk has no heading below the title or the page named no anchor."""
    paths: list[tuple[str, ...]] = []
    stack: list[tuple[int, str]] = []
    for heading in headings:
        level = int(heading.get("level") or 1)
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, str(heading.get("text") or "")))
        paths.append(tuple(text for _, text in stack))
    out: list[str | None] = []
    at = 0
    for chunk in chunks:
        path = tuple(str(name) for name in (chunk.get("heading_path") or [])[1:])
        anchor = None
        if path:
            seek = at
            while seek < len(paths) and paths[seek][-len(path) :] != path:
                seek += 1
            if seek < len(paths):
                at = seek
                found = headings[seek].get("anchor")
                anchor = str(found) if found else None
        out.append(anchor)
    return out


def removed_changes(previous: Mapping[str, str], url: str) -> list[dict[str, Any]]:
    """Every chunk held for a page that is gone, deleted (in id order)."""
    return [{"op": DELETE, "chunk_id": cid, "url": url} for cid in sorted(previous)]


class LedgerError(Exception):
    """The ledger file cannot be used; the message names the file and why."""


class ChunkLedger:
    """A :class:`FeedTarget` that only remembers ids and hashes: the feed's memory when
    it goes to a file (``--changes``) and no index holds the chunks. One SQLite file
    beside the incremental state (the state's job lock keeps two runs apart); each
    page's update is one transaction, so a crash leaves a page before or after."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None)
            self._db.execute("pragma journal_mode=wal")
            self._db.execute("pragma synchronous=normal")
            self._db.execute(
                "create table if not exists chunks (url text not null, chunk_id text not "
                "null, content_hash text not null, primary key (url, chunk_id)) without rowid"
            )
            self._db.execute(
                "create table if not exists pages (url text primary key, content_hash text "
                "not null) without rowid"
            )
        except (OSError, sqlite3.Error) as exc:
            raise LedgerError(f"change-feed ledger {self.path}: {exc}") from None

    def manifest(self, url: str) -> dict[str, str]:
        """chunk_id -> content_hash held for `url`."""
        rows = self._db.execute(
            "select chunk_id, content_hash from chunks where url = ?", (url,)
        ).fetchall()
        return dict(rows)

    def page_hashes(self) -> dict[str, str]:
        """Page URL -> content hash, for every page held."""
        return dict(self._db.execute("select url, content_hash from pages").fetchall())

    def apply(self, changes: Sequence[dict[str, Any]], pages: Mapping[str, str | None]) -> None:
        """Record one page's changes and page entries in one transaction."""
        db = self._db
        try:
            db.execute("begin immediate")
            for change in changes:
                if change["op"] == DELETE:
                    db.execute(
                        "delete from chunks where url = ? and chunk_id = ?",
                        (change["url"], change["chunk_id"]),
                    )
                else:
                    db.execute(
                        "insert or replace into chunks values (?, ?, ?)",
                        (change["url"], change["chunk_id"], change["content_hash"]),
                    )
            for url, digest in pages.items():
                if digest is None:
                    db.execute("delete from pages where url = ?", (url,))
                else:
                    db.execute("insert or replace into pages values (?, ?)", (url, digest))
            db.execute("commit")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                db.execute("rollback")
            raise LedgerError(f"change-feed ledger {self.path}: {exc}") from None

    def close(self) -> None:
        """Close the file (idempotent)."""
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
