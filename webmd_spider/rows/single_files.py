"""A whole crawl as single files: ``llms.txt`` and ``llms-full.txt`` (the llmstxt.org
format), and one combined Markdown file.

Pure module: standard library and the project's pure URL module only (no Scrapy, no
Twisted). The Scrapy glue is ``webmd_spider.pipelines.single_files``.

The files:

* ``llms.txt``: an H1 with the site's name (:func:`site_name`: the home page's
  ``site_name`` (``og:site_name``), else the pages' ``site_name``, else the suffix its
  pages' titles share (`` — Python 3.11.2 documentation``), else the home page's title
  without its suffix, else its host), a blockquote with the home page's description
  (left out when it has none), then one ``## section`` per top-level path (``/docs/...``
  and ``/docs/`` are "docs"; pages at the top, such as ``/`` or ``/team.html``, are
  "Pages"), each a list of ``- [title](url): description`` lines (``: description``
  left out when there is none), as https://llmstxt.org/ lays it out. Index-like pages
  (``rows.index_pages``: generated indexes, search pages, tag and archive listings;
  never the home page) come last, under ``## Optional``, the section llmstxt.org names
  for links a reader may skip. A title is written without the site's name that ends it
  (``Index — Python 3.11.2 documentation`` is "Index"), and no two lines have the same
  title: a repeated one is followed by its page's path (``Index (genindex-A.html)``).
  Every line is one line: titles and descriptions are folded to one line, square
  brackets in a title become parentheses and spaces and parentheses in a URL are
  percent-encoded, so a line always matches
  ``- \\[[^\\]]+\\]\\([^)\\s]+\\)(: .+)?``. A top-level folder named "Optional" (which
  llmstxt.org reserves for skippable links) is the section "/Optional/". With several
  websites in one crawl each section names its website first (``example.com: docs``).
* ``llms-full.txt``: the same H1 and summary, then every page's Markdown in crawl
  order, each page once, as its ``# Title`` line (the page's own first line when it is
  an H1, else its title), a ``Source: URL`` line, and its body.
* the combined file: every page's Markdown in crawl order, each page once, after a
  header between two ``---`` lines: ``url``, ``title``, ``description``, ``scraped_at``,
  ``content_hash``, one ``key: value`` line each with the value in JSON (a string or
  ``null``; YAML reads it too). So that the lines ``---`` only ever delimit headers, a
  body line that is exactly ``---`` is written ``--- `` (one trailing space: still a
  thematic break or setext underline in Markdown, and still a document marker in YAML).

Contract of :class:`PageCollection`: pages are staged one JSON line each in a
sidecar beside the output (``.webmd-pages.jsonl``), so a large crawl does not hold
its Markdown in memory. Pages are one page per canonical URL (``urls.canonicalize``
of the URL after redirects): a page staged twice keeps its first place and its last
Markdown. An incremental run sends unchanged pages without Markdown: their entry is
the previous run's, at the place this run reached them; removed pages leave; pages
this run did not reach stay, after the ones it did. A page reached through a URL that
used to be a page itself (it redirects now) replaces that old entry. Every file is
replaced whole at the end (a temporary file beside it, flushed to disk, then
``os.replace``), never left half written; a damaged sidecar line is skipped.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote, unquote, urlsplit

from webmd_spider.urls import canonicalize

#: the sidecar's file name (in the llms.txt folder; the combined file's is
#: ``.<its name>.webmd-pages.jsonl`` beside it, see :func:`sidecar_paths`)
SIDECAR_NAME = ".webmd-pages.jsonl"
#: the section of pages at the top of a website
TOP_SECTION = "Pages"
#: the section of index-like pages, last (llmstxt.org: links that may be skipped)
OPTIONAL_SECTION = "Optional"
#: what separates a page's own title from the site's name in ``<title>``
#: (an em dash, an en dash, a bar, a hyphen, a middle dot, "::", a guillemet)
TITLE_SEPARATORS = (" \u2014 ", " \u2013 ", " | ", " - ", " \u00b7 ", " :: ", " \u00bb ")


@dataclass(slots=True)
class PageEntry:
    """What the single files need of one page row (``url``: after redirects)."""

    url: str
    markdown: str
    title: str | None = None
    description: str | None = None
    site_name: str | None = None
    website: str | None = None
    depth: int | None = None
    #: the row's ``scraped_at`` (the combined file's header; the rows' column name)
    scraped_at: str | None = None
    content_hash: str | None = None
    #: a generated index, search page or listing (``rows.index_pages``): llms.txt
    #: lists it under ``## Optional``
    index_like: bool = False


#: where a page's line is: ("new", offset, length) in this run's staging file, or
#: ("old", offset, length) in the previous sidecar
_Slot = tuple[str, int, int]


def sidecar_paths(llms_txt: str, combined: str) -> list[Path]:
    """The sidecars of these outputs (the ``llms_txt`` folder, the ``combined`` file;
    an empty string is no output). A missing one means the previous runs' pages are
    not known: an incremental run must then send unchanged pages with their Markdown."""
    found = []
    if llms_txt:
        found.append(Path(llms_txt) / SIDECAR_NAME)
    if combined:
        path = Path(combined)
        found.append(path.with_name(f".{path.name}{SIDECAR_NAME}"))
    return found


class PageCollection:
    """The pages of the single files, in crawl order, staged beside ``sidecar``.

    Call :meth:`page`, :meth:`unchanged` and :meth:`removed` per row, then
    :meth:`finish` once (or :meth:`abandon`), then read :meth:`entries`. Raises
    OSError at construction when the sidecar's folder cannot be written (or the old
    sidecar cannot be read)."""

    def __init__(self, sidecar: Path, *, resume: bool = True) -> None:
        """``resume``: build on the previous run's sidecar (an incremental run); False
        starts the files afresh, as a full run must (a page gone from the site, or
        another site written to the same place before, must not stay)."""
        self.sidecar = sidecar
        #: the previous run's entries: canonical URL -> (offset, length) in the sidecar
        known = resume and sidecar.exists()
        self._old: dict[str, tuple[int, int]] = _index(sidecar) if known else {}
        _probe(sidecar.parent)
        self._staging_path = sidecar.with_name(f"{sidecar.name}.tmp-{os.getpid()}")
        #: opened at the first page: a run that never starts leaves nothing behind
        self._staging: IO[bytes] | None = None
        #: canonical URL -> its slot, in crawl order
        self._order: dict[str, _Slot] = {}
        #: previous entries that must not come back (removed, or replaced by a redirect)
        self._dropped: set[str] = set()

    def page(self, entry: PageEntry, *aliases: str | None) -> None:
        """A page with its Markdown (a new or changed page, or any page of a full run).

        ``aliases``: other URLs of this row (the URL as discovered, before redirects);
        a previous entry under one of them is replaced by this one."""
        key = canonicalize(entry.url)
        line = json.dumps(asdict(entry), ensure_ascii=False).encode("utf-8") + b"\n"
        if self._staging is None:
            self._staging = open(self._staging_path, "wb")  # noqa: SIM115 - closed in finish
        offset = self._staging.tell()
        self._staging.write(line)
        # the same page twice in a run keeps its first place, with its last Markdown
        self._order[key] = ("new", offset, len(line))
        self._dropped.discard(key)
        for alias in _keys(aliases):
            if alias != key and alias in self._old and alias not in self._order:
                self._dropped.add(alias)

    def unchanged(self, url: str, *aliases: str | None) -> bool:
        """An unchanged page of an incremental run (no Markdown): keep the previous
        entry, at this place. False when the previous run's sidecar does not know it
        under ``url`` nor under one of the ``aliases`` (the page then stays out)."""
        for key in _keys((url, *aliases)):
            if key in self._order:
                return True
            old = self._old.get(key)
            if old is not None:
                self._order[key] = ("old", *old)
                self._dropped.discard(key)
                return True
        return False

    def removed(self, url: str, *aliases: str | None) -> None:
        """A page that is gone (an incremental run's tombstone), known by ``url`` or
        one of the ``aliases``."""
        for key in _keys((url, *aliases)):
            self._dropped.add(key)
            self._order.pop(key, None)

    def __len__(self) -> int:
        """The pages this run staged or kept so far."""
        return len(self._order)

    def finish(self) -> list[PageEntry]:
        """Write the new sidecar (this run's pages, then the previous run's pages it
        did not reach) and return the entries' heads, in order (their ``markdown``
        empty: it is read back with :meth:`entries`)."""
        if self._staging is not None:
            self._staging.close()
        for key, (offset, length) in self._old.items():
            if key not in self._order and key not in self._dropped:
                self._order[key] = ("old", offset, length)
        heads: list[PageEntry] = []
        try:
            with (
                _open_or_empty(self._staging_path) as new,
                _open_or_empty(self.sidecar) as old,
            ):

                def lines() -> Iterator[str]:
                    for source, offset, length in self._order.values():
                        handle = new if source == "new" else old
                        handle.seek(offset)
                        line = handle.read(length)
                        entry = _entry_of(line)
                        if entry is None:  # the old sidecar changed under us
                            continue
                        entry.markdown = ""
                        heads.append(entry)
                        yield line.decode("utf-8")

                _replace(self.sidecar, lines())
        finally:
            self._discard_staging()
        return heads

    def entries(self) -> Iterator[PageEntry]:
        """Every entry of the (finished) sidecar, in order, with its Markdown."""
        with open(self.sidecar, "rb") as handle:
            for line in handle:
                entry = _entry_of(line)
                if entry is not None:
                    yield entry

    def abandon(self) -> None:
        """Drop what this run staged; the previous sidecar stays as it was."""
        self._discard_staging()

    def _discard_staging(self) -> None:
        if self._staging is not None:
            self._staging.close()
        with contextlib.suppress(OSError):
            os.unlink(self._staging_path)


def write_llms(folder: Path, collection: PageCollection, heads: list[PageEntry]) -> None:
    """``llms.txt`` and ``llms-full.txt`` in ``folder`` (``heads``: what
    :meth:`PageCollection.finish` returned), each replaced whole."""
    title, summary = site_heading(heads)
    _replace(folder / "llms.txt", [llms_index(heads)])
    top = f"# {title}\n\n" + (f"> {summary}\n\n" if summary else "")
    _replace(folder / "llms-full.txt", _chain([top], map(full_section, collection.entries())))


def write_combined(path: Path, collection: PageCollection) -> None:
    """The combined Markdown file at ``path``, replaced whole."""
    _replace(path, map(combined_section, collection.entries()))


def home_of(heads: list[PageEntry]) -> PageEntry | None:
    """The home page: the first page at the root path, else the first page."""
    if not heads:
        return None
    return next((h for h in heads if urlsplit(h.url).path in ("", "/")), heads[0])


def site_heading(heads: list[PageEntry]) -> tuple[str, str | None]:
    """(the site's name, the home page's description) for the H1 and the summary."""
    home = home_of(heads)
    if home is None:
        return TOP_SECTION, None
    return site_name(heads), _one_line(home.description) or None


def site_name(heads: list[PageEntry]) -> str:
    """The site's name: the home page's ``site_name``, else the one most pages give,
    else the suffix most titles share (:func:`shared_title_suffix`),
    else the home page's title without its suffix, else its host."""
    home = home_of(heads)
    if home is None:
        return TOP_SECTION
    name = _one_line(home.site_name)
    if name:
        return name
    names = Counter(filter(None, (_one_line(h.site_name) for h in heads)))
    if names:
        return names.most_common(1)[0][0]
    suffix = shared_title_suffix(heads)
    if suffix:
        return suffix
    title = _one_line(home.title)
    if title:
        head, _ = split_title(title)
        return head or title
    return next(filter(None, map(_one_line, (urlsplit(home.url).netloc, home.url))), TOP_SECTION)


def split_title(title: str) -> tuple[str, str]:
    """(the page's own title, the suffix after the last separator) of a ``<title>``
    such as ``os — Operating system interfaces — Python 3.11.2 documentation``; the
    suffix is "" when there is no separator."""
    best = -1
    width = 0
    for separator in TITLE_SEPARATORS:
        at = title.rfind(separator)
        if at > best:
            best, width = at, len(separator)
    if best <= 0:
        return title, ""
    return title[:best].strip(), title[best + width :].strip()


def shared_title_suffix(heads: list[PageEntry]) -> str:
    """The suffix most suffixed page titles end with (a site's name: `` | Acme``),
    when at least two titles and half of those with a suffix share it, else "".

    Half of the suffixed titles, not of all: extraction already takes the site's name
    out of most titles (``extract.metadata.page_title``), and the titles it leaves whole
    are often those of generated pages (``Index — Python 3.11.2 documentation``)."""
    titles = [t for t in (_one_line(h.title) for h in heads) if t]
    suffixes = Counter(s for s in (split_title(t)[1] for t in titles) if s)
    if not suffixes:
        return ""
    suffix, count = suffixes.most_common(1)[0]
    return suffix if count >= 2 and 2 * count >= suffixes.total() else ""


def section_of(url: str) -> str:
    """The llms.txt section of a URL: its first path segment (percent-decoded) when it
    is a folder or lies in one, else "Pages"."""
    path = urlsplit(url).path
    segments = [s for s in path.split("/") if s]
    if not segments or (len(segments) == 1 and not path.endswith("/")):
        return TOP_SECTION
    section = _one_line(unquote(segments[0])) or TOP_SECTION
    return f"/{section}/" if section.lower() == "optional" else section


def llms_index(heads: list[PageEntry]) -> str:
    """The text of ``llms.txt`` for these pages (see the module docstring)."""
    title, summary = site_heading(heads)
    home = home_of(heads)
    websites = {_website(h) for h in heads}
    labels = _labels(heads, title)
    sections: dict[str, list[str]] = {}
    optional: list[str] = []
    for head, label in zip(heads, labels, strict=True):
        line = f"- [{label}]({_link_url(head.url)})"
        description = _one_line(head.description)
        if description:
            line += f": {description}"
        if head.index_like and head is not home:
            optional.append(line)  # after every other section
            continue
        section = section_of(head.url)
        if len(websites) > 1:
            section = f"{_website(head)}: {section}"
        sections.setdefault(section, []).append(line)
    if optional:
        sections[OPTIONAL_SECTION] = optional
    parts = [f"# {title}\n"]
    if summary:
        parts.append(f"\n> {summary}\n")
    for section, lines in sections.items():
        parts.append(f"\n## {section}\n\n" + "\n".join(lines) + "\n")
    return "".join(parts)


def _labels(heads: list[PageEntry], name: str) -> list[str]:
    """Each page's link text in llms.txt: its title without the site's ``name`` that
    ends it (else its path, else its URL); a text two pages share is followed by each
    page's path (its URL when paths repeat too), so that no two lines read the same."""
    labels: list[str] = []
    for head in heads:
        title = _one_line(head.title)
        own, suffix = split_title(title)
        if suffix and suffix == name and own:
            title = own
        texts = (title, urlsplit(head.url).path)
        labels.append(next(filter(None, map(_link_text, texts)), "") or _link_text(head.url))
    counts = Counter(labels)
    for index, (head, label) in enumerate(zip(heads, labels, strict=True)):
        if counts[label] > 1:
            parts = urlsplit(head.url)
            where = unquote(parts.path).strip("/") or "/"
            labels[index] = _link_text(
                f"{label} ({where}{'?' if parts.query else ''}{parts.query})"
            )
    counts = Counter(labels)
    for index, (head, label) in enumerate(zip(heads, labels, strict=True)):
        if counts[label] > 1:  # one path on two websites: the whole URL says which
            labels[index] = _link_text(f"{label.rsplit(' (', 1)[0]} ({head.url})")
    return labels


def full_section(entry: PageEntry) -> str:
    """One page of ``llms-full.txt``: its ``# Title`` line, ``Source: URL``, its body."""
    markdown = entry.markdown.strip("\n")
    first, _, body = markdown.partition("\n")
    if not first.startswith("# ") or not _one_line(first[2:]):
        first, body = f"# {_one_line(entry.title) or entry.url}", markdown
    body = body.strip()
    return f"{first}\n\nSource: {entry.url}\n\n" + (f"{body}\n\n" if body else "")


def combined_section(entry: PageEntry) -> str:
    """One page of the combined file: its header between ``---`` lines, its Markdown
    (a line ``---`` of it written ``--- ``)."""
    header = {
        "url": entry.url,
        "title": entry.title,
        "description": entry.description,
        "scraped_at": entry.scraped_at,
        "content_hash": entry.content_hash,
    }
    lines = [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in header.items()]
    body = "\n".join(
        "--- " if line == "---" else line for line in entry.markdown.strip("\n").split("\n")
    )
    return "---\n" + "\n".join(lines) + "\n---\n\n" + (f"{body}\n\n" if body else "")


_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    f.name: {"depth": (int,), "index_like": (bool,)}.get(f.name, (str,)) for f in fields(PageEntry)
}


def _entry_of(line: bytes) -> PageEntry | None:
    """The entry of one sidecar line, or None when the line is damaged (not a whole
    JSON object with a string ``url`` and ``markdown`` and fields of the right type)."""
    if not line.endswith(b"\n"):
        return None
    try:
        data: Any = json.loads(line)
    except ValueError:  # UnicodeDecodeError and JSONDecodeError too
        return None
    if not isinstance(data, dict):
        return None
    if "scraped_at" not in data and "crawled_at" in data:
        data["scraped_at"] = data["crawled_at"]  # a sidecar written before the rename
    values: dict[str, Any] = {}
    for name, types in _FIELD_TYPES.items():
        value = data.get(name)
        required = name in ("url", "markdown")
        if (value is None and required) or (value is not None and not isinstance(value, types)):
            return None
        if isinstance(value, bool) and bool not in types:  # a bool is an int to isinstance
            return None
        if value is None and name == "index_like":
            value = False  # a sidecar written before index pages were told apart
        values[name] = value
    if not values["url"]:
        return None
    return PageEntry(**values)


def _index(sidecar: Path) -> dict[str, tuple[int, int]]:
    """Canonical URL -> (offset, length) of each line of a sidecar; a damaged line is
    skipped (its page is written again the next time it has Markdown); of two lines
    for one page, the last counts."""
    found: dict[str, tuple[int, int]] = {}
    offset = 0
    with open(sidecar, "rb") as handle:
        for line in handle:
            entry = _entry_of(line)
            if entry is not None:
                key = canonicalize(entry.url)
                found.pop(key, None)  # the last line's place
                found[key] = (offset, len(line))
            offset += len(line)
    return found


def _keys(urls: Iterable[str | None]) -> list[str]:
    """The canonical forms of the given URLs, without empties and repeats."""
    return list(dict.fromkeys(canonicalize(u) for u in urls if u))


def _probe(folder: Path) -> None:
    """Raise OSError unless a file can be created in ``folder``."""
    handle, name = tempfile.mkstemp(prefix=".webmd-probe-", dir=folder)
    os.close(handle)
    os.unlink(name)


@contextlib.contextmanager
def _open_or_empty(path: Path) -> Iterator[IO[bytes]]:
    """``path`` opened for reading, or an empty file when there is none."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        handle = open(os.devnull, "rb")  # noqa: SIM115 - closed below
    with handle:
        yield handle


def _replace(path: Path, pieces: Iterable[str]) -> None:
    """Write ``path`` whole or not at all: a temporary file beside it, flushed to
    disk, then ``os.replace``. Raises OSError (``path`` is then as it was)."""
    temp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(temp, "w", encoding="utf-8", newline="\n") as handle:
            for piece in pieces:
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)
    with contextlib.suppress(OSError):  # the rename itself, on disk (POSIX)
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def _chain(*parts: Iterable[str]) -> Iterator[str]:
    for part in parts:
        yield from part


def _website(head: PageEntry) -> str:
    return head.website or urlsplit(head.url).netloc


def _one_line(text: str | None) -> str:
    """``text`` folded to one line (runs of white space become one space)."""
    return " ".join(text.split()) if text else ""


def _link_text(text: str | None) -> str:
    """A link text on one line that cannot end the ``[...]`` early: square brackets
    become parentheses (llms.txt readers match ``\\[[^\\]]+\\]``, escapes or not)."""
    return _one_line(text).replace("[", "(").replace("]", ")")


def _link_url(url: str) -> str:
    """A link target without white space or parentheses that would end ``(...)``
    early (existing percent escapes are kept)."""
    return quote(url, safe=":/?#[]@!$&'*+,;=%~-._")
