"""The crawl as a Markdown folder tree: one ``.md`` file per page under ``out_dir``.

Pure module: standard library only (no Scrapy, no Twisted). The Scrapy glue is
``webmd_spider.pipelines.markdown_tree``; everything that decides names and touches the
disk is here, so it can be tested and reused alone.

URL to file
-----------
:func:`segment_path` turns a URL into safe path segments: the scheme, host, query and
fragment are dropped, empty segments (``//``, a trailing slash) vanish and a last
``index.html`` (``index.htm``, ``index.php``, ...) means its directory. Each segment is
percent-decoded (UTF-8, bad bytes replaced) and made safe by :func:`safe_segment`:
Unicode NFC, case-folded; every character other than ``a-z 0-9 . _ -`` and non-ASCII
letters, marks and digits becomes ``-``, runs of ``-`` collapse, leading dots and dashes
and trailing dots and dashes go (so no name is hidden, ``.``/``..``, ``.webmd`` or ends
in a dot or space), page suffixes (``.html .htm .xhtml .shtml .php .asp .aspx .jsp
.md``) are removed, Windows device names (``con``, ``prn``, ``aux``, ``nul``,
``com0-9``, ``lpt0-9``, also as ``con.txt``) get a ``_`` after the stem, an empty result
is ``_``, and a name over 80 characters or 160 UTF-8 bytes is cut and given ``-`` plus 8
hex digits of SHA-256 of the whole name (two long names stay different). A ``/``
encoded as ``%2F`` inside a segment, a backslash, NUL or ``%2e%2e`` are therefore just
characters of one name: nothing a URL holds can climb out of the tree.

:func:`plan_paths` maps a whole set of URLs at once: the root is ``index.md``, a page
whose segments are a prefix of another page's is ``<segments>/index.md``, any other page
is ``<dirs>/<last>.md``. Directory names never end in ``.md`` (the suffix is removed
from every segment), so a file never shares its name with a directory. Paths are
compared case-insensitively (NFC of the case fold, as on macOS and Windows); of the
URLs that want one path, the first in sorted order (plain string order of the whole
URL) keeps it and each other gets ``-`` plus 6 hex digits of SHA-256 of its URL before
``.md`` (more digits in the unlikely case that name is taken too); every such case is a
:class:`Collision`.

Layout strategy: stage, then place at close
-------------------------------------------
Where a page belongs depends on every URL of the tree (the sorted-order winner of a
name, whether a page has children), which is only known when the crawl ends and spans
earlier runs. So :class:`TreeWriter` writes each page as it arrives to
``DIR/.webmd/staging/<sha256 of its URL>.md`` (a temporary name in that folder, then
``os.replace``: one small write per page, no scan), and at :meth:`TreeWriter.close`
plans the union of the manifest's URLs and this run's pages minus removed ones, then

1. deletes removed pages' files (or moves them to ``DIR/.webmd/removed/<path>`` with
   ``out_dir_removed=move``),
2. moves every known file whose path changed into staging (so chains and swaps of names
   cannot clash) and drops the old file of a page that has new content elsewhere,
3. moves every staged file to its planned path with ``os.replace`` (a moved file is
   never rewritten; a file in the tree is always whole),
4. removes directories left empty, then writes ``manifest.json``, ``collisions.json``
   and ``failed.json`` atomically.

The tree is therefore updated only when the spider closes; until then the previous
run's tree stays intact.

State and recovery (``DIR/.webmd/``)
------------------------------------
``manifest.json``: ``{"version": 1, "pages": {URL: {"path", "content_hash",
"scraped_at"[, "source_url"]}}}``: every page file of the tree (``source_url`` is the
URL as discovered when a redirect made it differ). ``collisions.json``: a list of
``{"path", "url", "written_to", "kept_by"}`` (the contested path, the URL that did not
get it, where that URL went, the URL that kept it). ``failed.json``: this run's
failures, ``{"url", "error_type", "error", "status_code"}``: diagnostic rows (except
removals) plus pages the tree could not place (``error_type`` ``unsafe-path`` or
``write-error``). All three are sorted and rewritten at every close.

``in-progress`` is written at open and removed after a clean close. When it is found at
open (a run killed with ``kill -9``, or one still running), or the manifest is missing
or unreadable, the manifest is rebuilt from the tree itself: every ``.md`` file whose
frontmatter has a ``url:`` is that URL's file. Staged files left by a killed run are
adopted (they are newer than the tree) and placed at this run's close. A page that
cannot be placed (``unsafe-path``, ``write-error``) leaves nothing in staging. Stale temporary
files (``.<name>.tmp-<pid>``) in ``.webmd`` and staging are deleted at open.

Safety
------
Every path is joined under the root by :func:`safe_join`, which refuses absolute or
dotted paths, backslashes, NUL and ``.webmd`` as a page segment, and checks every
existing component with ``lstat``: a symlink (or Windows reparse point) anywhere inside
the tree, or a file where a directory belongs, is never followed. A page whose path is
blocked that way is skipped: it is listed in ``failed.json`` as ``unsafe-path`` and its
staged file is kept, so it is placed on a later run once the path is clear. (The root
itself may be a symlink: that is the user's choice. The checks are not atomic against a
process racing to swap directories for symlinks while the tree is written.)

Why one file of over 500 lines: naming, collisions, atomic writes and the incremental
manifest all decide the same paths and must agree on them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import stat
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

__all__ = [
    "FRONTMATTER_KEYS",
    "Collision",
    "TreeError",
    "TreeReport",
    "TreeWriter",
    "UnsafePathError",
    "atomic_write",
    "fold",
    "frontmatter",
    "plan_paths",
    "read_frontmatter",
    "render_page",
    "safe_join",
    "safe_segment",
    "segment_path",
]

logger = logging.getLogger(__name__)

#: Frontmatter keys, in the order they are written. ``scraped_at`` is the row column
#: of the same name (one timestamp name in rows, frontmatter, manifests and loaders).
FRONTMATTER_KEYS = ("url", "title", "description", "language", "scraped_at", "content_hash")
#: Keys that trees written by earlier versions hold, read as today's key: an
#: incremental run over such a tree must still find its pages.
LEGACY_KEYS = {"crawled_at": "scraped_at"}
#: The metadata folder under the root; never a page segment.
META_DIR = ".webmd"
MANIFEST_VERSION = 1
MAX_SEGMENT_CHARS = 80
MAX_SEGMENT_BYTES = 160
#: Hex digits of SHA-256 appended to a cut name, and (at least) to a collision loser.
LONG_NAME_HASH = 8
COLLISION_HASH = 6
#: Suffixes removed from segments (the file gets ``.md``).
PAGE_SUFFIXES = (".html", ".htm", ".xhtml", ".shtml", ".php", ".asp", ".aspx", ".jsp", ".md")
#: A last segment that is one of these names stands for its directory.
INDEX_NAMES = frozenset(f"index{suffix}" for suffix in PAGE_SUFFIXES)
#: Windows device names (reserved with any extension, case-insensitive).
WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"}
    | {f"{dev}{n}" for dev in ("com", "lpt") for n in "0123456789\u00b9\u00b2\u00b3"}
)
_DASHES = re.compile(r"-{2,}")
_TEMP_NAME = re.compile(r"^\..+\.tmp-\d+$")
_FILE_ATTRIBUTE_REPARSE_POINT = 0x400
#: Characters a YAML double-quoted scalar must not hold raw: outside YAML's printable
#: set (C0/C1 controls, DEL, surrogates, U+FFFE/U+FFFF), the line breaks YAML folds
#: (NEL, LS, PS) and the byte order mark.
_YAML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_MAX_FRONTMATTER_CHARS = 1_000_000


class UnsafePathError(ValueError):
    """A relative path that would leave the tree or pass through a symlink."""


class TreeError(OSError):
    """The tree folder cannot be used (not a folder, not writable...)."""


# -- names -----------------------------------------------------------------------------


def _hex(text: str, digits: int) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:digits]


def fold(text: str) -> str:
    """The comparison key of a name or path on case-insensitive file systems."""
    return unicodedata.normalize("NFC", text.casefold())


def _safe_char(char: str) -> str:
    if char.isascii():
        return char if char.isalnum() or char in "._-" else "-"
    return char if unicodedata.category(char)[0] in "LMN" else "-"


def _strip_page_suffixes(name: str) -> str:
    while True:
        name = name.strip(".-")
        for suffix in PAGE_SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)]
                break
        else:
            return name


def safe_segment(decoded: str) -> str:
    """One decoded URL path segment as a file or folder name safe on Linux, macOS and
    Windows (see the module docstring); never empty, never ends in a page suffix."""
    name = unicodedata.normalize("NFC", fold(unicodedata.normalize("NFC", decoded)))
    name = _DASHES.sub("-", "".join(_safe_char(c) for c in name))
    name = _strip_page_suffixes(name) or "_"
    stem = name.split(".", 1)[0]
    if stem in WINDOWS_RESERVED:
        name = f"{stem}_{name[len(stem) :]}"
    if len(name) > MAX_SEGMENT_CHARS or len(name.encode("utf-8")) > MAX_SEGMENT_BYTES:
        digest = _hex(name, LONG_NAME_HASH)
        room_chars = MAX_SEGMENT_CHARS - LONG_NAME_HASH - 1
        room_bytes = MAX_SEGMENT_BYTES - LONG_NAME_HASH - 1
        cut = name[:room_chars]
        while len(cut.encode("utf-8")) > room_bytes:
            cut = cut[:-1]
        name = f"{cut.rstrip('.-') or '_'}-{digest}"
    return name


def _url_path(url: str) -> str:
    try:
        return urlsplit(url).path
    except ValueError:  # a malformed authority ("http://[oops/"): cut it off by hand
        rest = re.sub(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*", "", url, count=1)
        return re.split(r"[?#]", rest, maxsplit=1)[0]


def segment_path(url: str) -> tuple[str, ...]:
    """The safe path segments of a URL: host, query, fragment, empty segments and a last
    ``index.html`` dropped; each segment percent-decoded and made safe."""
    decoded = [unquote(raw, errors="replace") for raw in _url_path(url).split("/") if raw]
    if decoded and fold(decoded[-1]) in INDEX_NAMES:
        decoded.pop()
    return tuple(safe_segment(segment) for segment in decoded)


@dataclass(frozen=True, slots=True)
class Collision:
    """A URL that wanted ``path`` (taken by ``kept_by``) and was written to ``written_to``."""

    path: str
    url: str
    written_to: str
    kept_by: str

    def to_dict(self) -> dict[str, str]:
        return {
            "path": self.path,
            "url": self.url,
            "written_to": self.written_to,
            "kept_by": self.kept_by,
        }


def _natural_paths(urls: list[str]) -> dict[str, str]:
    segments = {url: segment_path(url) for url in urls}
    parents = {segs[:i] for segs in segments.values() for i in range(1, len(segs))}
    natural: dict[str, str] = {}
    for url, segs in segments.items():
        if not segs:
            natural[url] = "index.md"
        elif segs in parents:
            natural[url] = "/".join(segs) + "/index.md"
        else:
            natural[url] = "/".join(segs) + ".md"
    return natural


def plan_paths(urls: Iterable[str]) -> tuple[dict[str, str], list[Collision]]:
    """Every URL's relative POSIX path (ending ``.md``) and the collisions resolved.

    Distinct URLs always get paths that differ case-insensitively (:func:`fold`); the
    result depends only on the set of URLs, not their order.
    """
    ordered = sorted(set(urls))
    natural = _natural_paths(ordered)
    winners: dict[str, str] = {}  # fold(path) -> URL that keeps it
    for url in ordered:
        winners.setdefault(fold(natural[url]), url)
    taken = set(winners)
    plan: dict[str, str] = {}
    collisions: list[Collision] = []
    for url in ordered:
        path = natural[url]
        kept_by = winners[fold(path)]
        if kept_by == url:
            plan[url] = path
            continue
        stem = path.removesuffix(".md")
        digits = COLLISION_HASH
        candidate = f"{stem}-{_hex(url, digits)}.md"
        while fold(candidate) in taken:
            digits += 1
            if digits <= 64:
                candidate = f"{stem}-{_hex(url, digits)}.md"
            else:  # every digest length taken: practically impossible, still total
                candidate = f"{stem}-{_hex(url, 64)}-{digits - 64}.md"
        taken.add(fold(candidate))
        plan[url] = candidate
        collisions.append(Collision(path, url, candidate, kept_by))
    collisions.sort(key=lambda c: (c.path, c.url))
    return plan, collisions


# -- frontmatter -----------------------------------------------------------------------


def _no_surrogates(text: str) -> str:
    """Lone surrogates (never valid in UTF-8) replaced by U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def _yaml_scalar(value: str | None) -> str:
    if value is None:
        return "null"
    text = json.dumps(_no_surrogates(value), ensure_ascii=False)
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def frontmatter(fields: Mapping[str, str | None]) -> str:
    """YAML frontmatter (``---`` lines included) with the keys of
    :data:`FRONTMATTER_KEYS` in order, each value a JSON-quoted string or ``null``.

    JSON strings are YAML double-quoted scalars; characters YAML does not allow raw (or
    folds as line breaks) are written as ``\\uXXXX``, so any title round-trips through a
    YAML parser and through :func:`read_frontmatter` (lone surrogates, which no UTF-8
    file can hold, become U+FFFD). Unknown keys raise ``ValueError``.
    """
    unknown = set(fields) - set(FRONTMATTER_KEYS)
    if unknown:
        raise ValueError(f"unknown frontmatter keys {sorted(unknown)}")
    lines = [f"{key}: {_yaml_scalar(fields.get(key))}" for key in FRONTMATTER_KEYS]
    return "---\n" + "\n".join(lines) + "\n---\n"


def render_page(fields: Mapping[str, str | None], markdown: str) -> str:
    """A page file: frontmatter, a blank line, the Markdown, one final newline."""
    return f"{frontmatter(fields)}\n{_no_surrogates(markdown).rstrip(chr(10))}\n"


def read_frontmatter(text: str) -> dict[str, str | None] | None:
    """The frontmatter this module wrote at the start of ``text``, or ``None``.

    A key of :data:`LEGACY_KEYS` (an earlier version's ``crawled_at``) is returned
    under today's name (``scraped_at``)."""
    lines = text.split("\n")
    if not lines or lines[0] != "---":
        return None
    values: dict[str, str | None] = {}
    for line in lines[1:]:
        if line == "---":
            return values
        key, sep, raw = line.partition(": ")
        key = LEGACY_KEYS.get(key, key)
        if not sep or key not in FRONTMATTER_KEYS:
            return None
        try:
            value = json.loads(raw)
        except ValueError:
            return None
        if value is not None and not isinstance(value, str):
            return None
        values[key] = value
    return None


def _read_head(path: Path) -> dict[str, str | None] | None:
    """The frontmatter of a file (read up to its closing ``---``), or ``None``."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
            head: list[str] = []
            size = 0
            for line in handle:
                head.append(line)
                size += len(line)
                if (len(head) > 1 and line.rstrip("\n") == "---") or size > _MAX_FRONTMATTER_CHARS:
                    break
    except OSError:
        return None
    return read_frontmatter("".join(head))


# -- safe file operations -------------------------------------------------------------


def _is_link(st: os.stat_result) -> bool:
    reparse = getattr(st, "st_file_attributes", 0) & _FILE_ATTRIBUTE_REPARSE_POINT
    return stat.S_ISLNK(st.st_mode) or bool(reparse)


def _check_rel(rel: str, allow_meta: bool) -> list[str]:
    if not rel or "\x00" in rel or "\\" in rel or ":" in rel or rel.startswith("/"):
        raise UnsafePathError(f"not a safe relative path: {rel!r}")
    parts = rel.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise UnsafePathError(f"not a safe relative path: {rel!r}")
    if not allow_meta and fold(parts[0]) == META_DIR:
        raise UnsafePathError(f"{META_DIR} is reserved for the tree's metadata: {rel!r}")
    return parts


def safe_join(
    root: Path,
    rel: str,
    *,
    make_dirs: bool = False,
    allow_meta: bool = False,
    folder: bool = False,
) -> Path:
    """``root / rel`` after checking that it stays inside ``root``: no absolute or dotted
    path, backslash, NUL or colon, no ``.webmd`` first segment (unless ``allow_meta``),
    and no existing component that is a symlink (or Windows reparse point), a file where
    a folder belongs or a folder where the file belongs (``folder``: ``rel`` names a
    folder). With ``make_dirs`` the missing folders are created (``rel`` too when
    ``folder``), each checked as it is made.

    Raises :class:`UnsafePathError` (``OSError`` when a folder cannot be made).
    """
    parts = _check_rel(rel, allow_meta)
    current = root
    for index, part in enumerate(parts):
        current = current / part
        want_folder = folder or index < len(parts) - 1
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            if not (make_dirs and want_folder):
                return root.joinpath(*parts)  # nothing below exists: nothing to follow
            with contextlib.suppress(FileExistsError):
                os.mkdir(current)
            st = os.lstat(current)
        if _is_link(st):
            raise UnsafePathError(f"{rel!r}: {current} is a symlink; it is never followed")
        if want_folder and not stat.S_ISDIR(st.st_mode):
            raise UnsafePathError(f"{rel!r}: {current} is not a folder")
        if not want_folder and stat.S_ISDIR(st.st_mode):
            raise UnsafePathError(f"{rel!r}: {current} is a folder")
    return current


def _temp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.tmp-{os.getpid()}")


def atomic_write(path: Path, text: str | bytes, *, fsync: bool = False) -> None:
    """Write ``path`` whole or not at all: a temporary ``.<name>.tmp-<pid>`` beside it
    (never through a symlink), then ``os.replace``. The folder must exist."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    temp = _temp_name(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
    flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(temp, flags, 0o644)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _remove_temps(folder: Path) -> int:
    """Delete stale temporaries (``.<name>.tmp-<pid>``) directly in ``folder``."""
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        if _TEMP_NAME.match(entry.name) and not entry.is_dir(follow_symlinks=False):
            try:
                os.unlink(entry.path)
                removed += 1
            except OSError:
                pass
    return removed


# -- the writer ------------------------------------------------------------------------


@dataclass(slots=True)
class _Entry:
    path: str
    content_hash: str | None
    scraped_at: str | None
    source_url: str | None = None

    def to_dict(self) -> dict[str, str]:
        data = {"path": self.path, "content_hash": self.content_hash, "scraped_at": self.scraped_at}
        if self.source_url:
            data["source_url"] = self.source_url
        return {k: v for k, v in data.items() if v is not None}


@dataclass(slots=True)
class _Staged:
    file: Path
    content_hash: str | None
    scraped_at: str | None
    source_url: str | None = None
    fresh: bool = True  # new content (False: an existing file parked here to be moved)


@dataclass(slots=True)
class TreeReport:
    """What :meth:`TreeWriter.close` did."""

    pages: int = 0  # page files in the tree after close
    written: int = 0  # files with new content placed
    moved: int = 0  # existing files moved to a new path
    removed: int = 0  # files deleted (or moved to .webmd/removed)
    collisions: int = 0
    failed: int = 0  # entries of failed.json
    blocked: int = 0  # pages not placed (unsafe path or write error)
    missing: int = 0  # known pages whose file had disappeared (dropped from the manifest)
    rebuilt: bool = False  # the manifest was rebuilt from the tree at open


class TreeWriter:
    """The folder tree of one run (see the module docstring for the strategy).

    Opening creates ``root`` and ``root/.webmd/staging``, removes stale temporaries,
    loads (or rebuilds) the manifest and adopts files staged by a killed run; it raises
    :class:`TreeError` when the folder cannot be used. Then call :meth:`page`,
    :meth:`unchanged`, :meth:`removed` and :meth:`failed` per row, and :meth:`close`
    once.
    """

    def __init__(self, root: str | os.PathLike[str], removed: str = "delete") -> None:
        if removed not in ("delete", "move"):
            raise ValueError(f"removed must be delete or move, got {removed!r}")
        self.removed_policy = removed
        self.report = TreeReport()
        self._manifest: dict[str, _Entry] = {}
        self._aliases: dict[str, str] = {}  # source URL -> page URL
        self._staged: dict[str, _Staged] = {}
        self._removed: set[str] = set()
        self._failed: dict[str, dict[str, Any]] = {}
        self._closed = False
        try:
            self.root = self._open_root(Path(root))
            self.meta = self._meta_path(META_DIR, folder=True)
            self.staging = self._meta_path(f"{META_DIR}/staging", folder=True)
            _remove_temps(self.meta)
            _remove_temps(self.staging)
            marker = self.meta / "in-progress"
            interrupted = marker.exists()
            self._load(interrupted)
            self._adopt_staged()
            marker_text = json.dumps({"pid": os.getpid()}) + "\n"
            atomic_write(self._meta_path(f"{META_DIR}/in-progress"), marker_text)
        except (OSError, UnsafePathError) as exc:
            raise TreeError(f"cannot use {root} as the Markdown tree folder: {exc}") from exc

    # -- opening ---------------------------------------------------------------------
    def _meta_path(self, rel: str, folder: bool = False) -> Path:
        return safe_join(self.root, rel, make_dirs=True, allow_meta=True, folder=folder)

    @staticmethod
    def _open_root(root: Path) -> Path:
        root = root.expanduser()
        if root.exists() and not root.is_dir():
            raise TreeError(f"{root} exists and is not a folder")
        root.mkdir(parents=True, exist_ok=True)
        if not os.access(root, os.W_OK | os.X_OK):
            raise TreeError(f"{root} is not writable")
        return root.resolve()

    def _load(self, interrupted: bool) -> None:
        manifest = self._read_manifest()
        if manifest is not None and not interrupted:
            self._manifest = manifest
        else:
            why = "a previous run did not finish" if interrupted else "no readable manifest"
            self._manifest = self._scan(manifest or {})
            self.report.rebuilt = True
            if self._manifest or interrupted:
                logger.warning(
                    "Markdown tree %s: %s; manifest rebuilt from %d page files",
                    self.root,
                    why,
                    len(self._manifest),
                )
        for url, entry in self._manifest.items():
            if entry.source_url:
                self._aliases.setdefault(entry.source_url, url)

    def _read_manifest(self) -> dict[str, _Entry] | None:
        path = self.meta / "manifest.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            logger.warning("Markdown tree: unreadable manifest %s (%s)", path, exc)
            return None
        pages = data.get("pages") if isinstance(data, dict) else None
        if not isinstance(pages, dict):
            logger.warning("Markdown tree: manifest %s has no pages object", path)
            return None
        entries: dict[str, _Entry] = {}
        for url, raw in pages.items():
            if not isinstance(raw, dict) or not isinstance(raw.get("path"), str):
                continue
            try:
                _check_rel(raw["path"], allow_meta=False)
            except UnsafePathError:
                logger.warning("Markdown tree: manifest path %r ignored", raw["path"])
                continue
            entries[url] = _Entry(
                raw["path"],
                _str_or_none(raw.get("content_hash")),
                # a manifest of an earlier version names the timestamp crawled_at
                _str_or_none(raw.get("scraped_at", raw.get("crawled_at"))),
                _str_or_none(raw.get("source_url")),
            )
        return entries

    def _walk_pages(self) -> Iterator[tuple[str, Path]]:
        """(relative path, path) of every regular ``.md`` file, symlinks never followed."""
        for folder, dirs, files in os.walk(self.root, followlinks=False):
            here = Path(folder)
            if here == self.root:
                dirs[:] = [d for d in dirs if fold(d) != META_DIR]
            dirs[:] = [d for d in dirs if not os.path.islink(here / d)]
            for name in files:
                path = here / name
                if _TEMP_NAME.match(name):
                    with contextlib.suppress(OSError):
                        os.unlink(path)
                    continue
                if not name.endswith(".md") or os.path.islink(path):
                    continue
                yield path.relative_to(self.root).as_posix(), path

    def _scan(self, previous: dict[str, _Entry]) -> dict[str, _Entry]:
        found: dict[str, _Entry] = {}
        for rel, path in sorted(self._walk_pages()):
            head = _read_head(path)
            url = head.get("url") if head else None
            if not head or not url:
                continue
            if url in found:
                logger.warning(
                    "Markdown tree: %s and %s both hold %s; keeping the first",
                    found[url].path,
                    rel,
                    url,
                )
                continue
            old = previous.get(url)
            found[url] = _Entry(
                rel,
                head.get("content_hash"),
                head.get("scraped_at"),
                old.source_url if old else None,
            )
        return found

    def _adopt_staged(self) -> None:
        for entry in sorted(os.scandir(self.staging), key=lambda e: e.name):
            if not entry.name.endswith(".md") or not entry.is_file(follow_symlinks=False):
                continue
            head = _read_head(Path(entry.path))
            url = head.get("url") if head else None
            if not head or not url:
                os.unlink(entry.path)
                continue
            self._staged[url] = _Staged(
                Path(entry.path), head.get("content_hash"), head.get("scraped_at")
            )
        if self._staged:
            logger.warning(
                "Markdown tree %s: %d pages staged by an earlier run are placed at this close",
                self.root,
                len(self._staged),
            )

    # -- rows --------------------------------------------------------------------------
    def _key(self, url: str, aliases: Iterable[str | None]) -> str | None:
        for candidate in (url, *aliases):
            if not candidate:
                continue
            if candidate in self._staged or candidate in self._manifest:
                return candidate
            if candidate in self._aliases:
                return self._aliases[candidate]
        return None

    def knows(self, url: str, *aliases: str | None) -> bool:
        """True when the tree holds (or will hold) a file for this page."""
        key = self._key(url, aliases)
        return key is not None and key not in self._removed

    def _staged_file(self, url: str) -> Path:
        return self.staging / f"{_hex(url, 32)}.md"

    def page(
        self,
        url: str,
        fields: Mapping[str, str | None],
        markdown: str,
        source_url: str | None = None,
    ) -> bool:
        """Stage a page with new content (written into the tree at :meth:`close`).

        ``fields`` holds the frontmatter values except ``url`` (which is ``url``);
        ``source_url`` is the URL as discovered when a redirect made it differ. Returns
        False (the URL is listed in ``failed.json`` as ``write-error``) when the staged
        file cannot be written."""
        values = {**fields, "url": url}
        target = self._staged_file(url)
        try:
            atomic_write(target, render_page(values, markdown))
        except OSError as exc:
            logger.error("Markdown tree: cannot stage %s (its old file stays): %s", url, exc)
            self.report.blocked += 1
            self.failed(url, "write-error", f"cannot write {target}: {exc}", None)
            return False
        source = source_url if source_url and source_url != url else None
        self._staged[url] = _Staged(
            target, values.get("content_hash"), values.get("scraped_at"), source
        )
        self._removed.discard(url)
        self._failed.pop(url, None)
        if source:
            self._aliases[source] = url
            self._failed.pop(source, None)
        return True

    def unchanged(self, url: str, *aliases: str | None) -> bool:
        """A page fetched again with the same content: its file stays as it is.

        Returns False (and logs) when the tree has no file for it."""
        if self.knows(url, *aliases):
            return True
        self.report.missing += 1
        logger.warning(
            "Markdown tree: %s is unchanged but has no file in the tree (run once without "
            "incremental state to restore it)",
            url,
        )
        return False

    def removed(self, url: str, *aliases: str | None) -> None:
        """A page gone from the website: its file is deleted (or moved) at close."""
        key = self._key(url, aliases)
        if key is not None:
            self._removed.add(key)

    def failed(
        self, url: str, error_type: str | None, error: str | None, status_code: int | None
    ) -> None:
        """A URL that gave no page this run (listed in ``failed.json``)."""
        self._failed[url] = {
            "url": url,
            "error_type": error_type,
            "error": error,
            "status_code": status_code,
        }

    # -- closing -----------------------------------------------------------------------
    def close(self) -> TreeReport:
        """Place every page, write the metadata files; see the module docstring."""
        if self._closed:
            return self.report
        self._closed = True
        report = self.report
        touched: set[Path] = set()
        for url in sorted(self._removed):
            self._remove(url, touched)
        union = set(self._manifest) | set(self._staged)
        plan, collisions = plan_paths(union)
        report.collisions = len(collisions)
        old_paths = {fold(entry.path) for entry in self._manifest.values()}
        for url in sorted(self._manifest):
            self._park(url, plan[url], touched)
        for url in sorted(self._staged):
            self._place(url, plan[url], old_paths)
        self._prune(touched)
        report.pages = len(self._manifest)
        report.failed = len(self._failed)
        pages = {url: self._manifest[url].to_dict() for url in sorted(self._manifest)}
        self._write_meta("manifest.json", {"version": MANIFEST_VERSION, "pages": pages})
        self._write_meta("collisions.json", [c.to_dict() for c in collisions])
        self._write_meta("failed.json", [self._failed[url] for url in sorted(self._failed)])
        with contextlib.suppress(OSError):
            os.rmdir(self.staging)  # only when empty: nothing blocked is waiting there
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.meta / "in-progress")
        return report

    def _remove(self, url: str, touched: set[Path]) -> None:
        staged = self._staged.pop(url, None)
        if staged is not None:
            _unlink_quietly(staged.file)
        entry = self._manifest.pop(url, None)
        if entry is None:
            return
        try:
            path = safe_join(self.root, entry.path)
            if not os.path.lexists(path):
                return
            if self.removed_policy == "move":
                rel = f"{META_DIR}/removed/{entry.path}"
                os.replace(path, safe_join(self.root, rel, make_dirs=True, allow_meta=True))
            else:
                os.unlink(path)
        except (OSError, UnsafePathError) as exc:
            logger.warning("Markdown tree: could not remove %s (%s): %s", entry.path, url, exc)
            return
        touched.add(path.parent)
        self.report.removed += 1

    def _park(self, url: str, new_path: str, touched: set[Path]) -> None:
        """Step 2: move a known file whose path changes into staging; drop a stale one."""
        entry = self._manifest[url]
        try:
            old = safe_join(self.root, entry.path)
            if entry.path == new_path:
                if url not in self._staged and not os.path.lexists(old):
                    self._lost(url)
                return
            if url in self._staged:  # new content is staged: the old file just goes
                if os.path.lexists(old):
                    os.unlink(old)
                    touched.add(old.parent)
                return
            parked = self._staged_file(url)
            os.replace(old, parked)
        except FileNotFoundError:
            self._lost(url)
            return
        except (OSError, UnsafePathError) as exc:
            logger.warning("Markdown tree: cannot move %s (%s): %s", entry.path, url, exc)
            self._lost(url)
            return
        touched.add(old.parent)
        self._staged[url] = _Staged(
            parked, entry.content_hash, entry.scraped_at, entry.source_url, fresh=False
        )

    def _lost(self, url: str) -> None:
        entry = self._manifest.pop(url)
        self.report.missing += 1
        logger.warning("Markdown tree: the file of %s (%s) is gone", url, entry.path)

    def _place(self, url: str, rel: str, old_paths: set[str]) -> None:
        """Step 3: move a staged file to its planned path."""
        staged = self._staged[url]
        entry = self._manifest.get(url)
        try:
            target = safe_join(self.root, rel, make_dirs=True)
            if fold(rel) not in old_paths and os.path.lexists(target):
                logger.warning("Markdown tree: replacing %s, a file it did not write", target)
            os.replace(staged.file, target)
        except UnsafePathError as exc:
            self._block(url, "unsafe-path", str(exc))
            return
        except OSError as exc:
            self._block(url, "write-error", f"{rel}: {exc}")
            return
        source = staged.source_url or (entry.source_url if entry else None)
        self._manifest[url] = _Entry(rel, staged.content_hash, staged.scraped_at, source)
        if staged.fresh:
            self.report.written += 1
        else:
            self.report.moved += 1

    def _block(self, url: str, error_type: str, error: str) -> None:
        """A page that could not be placed: listed as failed, its staged file removed
        (issue 16 item 12: it stayed in staging after a normal run). The row in the
        feed has its Markdown; the tree does not know the page, so a later run (an
        incremental one too) writes it again."""
        staged = self._staged.get(url)
        if staged is not None:
            _unlink_quietly(staged.file)
        self._manifest.pop(url, None)
        self.report.blocked += 1
        logger.warning("Markdown tree: %s not written: %s", url, error)
        self.failed(url, error_type, error, None)

    def _prune(self, touched: set[Path]) -> None:
        """Remove folders left empty (never the root or the metadata folder)."""
        keep = {self.root, self.meta}
        for folder in sorted(touched, key=lambda p: len(p.parts), reverse=True):
            current = folder
            while current not in keep and self.root in current.parents:
                try:
                    if _is_link(os.lstat(current)):
                        break
                    os.rmdir(current)
                except OSError:
                    break
                current = current.parent

    def _write_meta(self, name: str, data: Any) -> None:
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        atomic_write(safe_join(self.root, f"{META_DIR}/{name}", allow_meta=True), text, fsync=True)


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _unlink_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
