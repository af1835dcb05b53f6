"""The crawl as single files (``webmd_spider.rows.single_files``), on plain data:
``llms.txt`` parsed line by line as llmstxt.org lays it out, ``llms-full.txt`` and the
combined file holding every page once in crawl order, incremental runs updating them
in place, a damaged sidecar, files replaced whole.

The parsers here (``parse_llms``, ``parse_full``, ``parse_combined``) are also used by
the crawl tests in ``tests/pipelines/test_single_files.py``."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from webmd_spider.rows import single_files
from webmd_spider.rows.single_files import (
    SIDECAR_NAME,
    PageCollection,
    PageEntry,
    llms_index,
    section_of,
    sidecar_paths,
    write_combined,
    write_llms,
)

#: a list line of llms.txt, exactly as the issue's test states it
LINK_LINE = re.compile(r"^- \[[^\]]+\]\([^)\s]+\)(: .+)?$")
#: the same, with its parts
LINK_PARTS = re.compile(r"^- \[(?P<title>[^\]]+)\]\((?P<url>[^)\s]+)\)(?:: (?P<desc>.+))?$")
COMBINED_KEYS = ["url", "title", "description", "scraped_at", "content_hash"]
BASE = "https://docs.example.com"


@dataclass
class Llms:
    """``llms.txt`` parsed: its H1, its summary, its sections' links in order."""

    title: str
    summary: str | None
    sections: dict[str, list[tuple[str, str, str | None]]] = field(default_factory=dict)

    def urls(self) -> list[str]:
        return [url for links in self.sections.values() for _, url, _ in links]


def parse_llms(text: str) -> Llms:
    """Parse ``llms.txt`` line by line, failing on anything the format does not allow:
    exactly one H1 and first, then an optional ``> `` summary before any section, then
    ``## `` sections holding only list lines that match :data:`LINK_LINE`."""
    assert text.endswith("\n") and not text.endswith("\n\n"), repr(text[-20:])
    lines = text[:-1].split("\n")
    assert lines[0].startswith("# ") and lines[0][2:].strip() == lines[0][2:], lines[0]
    parsed = Llms(title=lines[0][2:], summary=None)
    section: str | None = None
    for number, line in enumerate(lines[1:], start=2):
        where = f"line {number}: {line!r}"
        if not line:
            continue
        assert not line.startswith("# "), f"a second H1, {where}"
        if line.startswith("> "):
            assert section is None and parsed.summary is None, f"a stray summary, {where}"
            parsed.summary = line[2:]
            assert parsed.summary.strip() == parsed.summary and parsed.summary, where
        elif line.startswith("## "):
            section = line[3:]
            assert section.strip() == section and section, where
            assert section not in parsed.sections, f"a section twice, {where}"
            parsed.sections[section] = []
        else:
            assert section is not None, f"a line before any section, {where}"
            assert LINK_LINE.match(line), f"not a list line, {where}"
            match = LINK_PARTS.match(line)
            assert match is not None
            parsed.sections[section].append((match["title"], match["url"], match["desc"]))
    for name, links in parsed.sections.items():
        assert links, f"section {name!r} is empty"
    return parsed


@dataclass
class FullPage:
    """One page of ``llms-full.txt``."""

    title: str
    url: str
    body: str


def parse_full(text: str) -> tuple[str, str | None, list[FullPage]]:
    """(H1, summary, pages) of ``llms-full.txt``: a page is a ``# Title`` line, a blank
    line, a ``Source: URL`` line, a blank line and its body up to the next page."""
    lines = text.split("\n")
    assert lines[0].startswith("# ")
    title, summary = lines[0][2:], None
    if lines[2].startswith("> "):
        summary = lines[2][2:]
    starts = [
        i - 2
        for i, line in enumerate(lines)
        if line.startswith("Source: ") and lines[i - 1] == "" and lines[i - 2].startswith("# ")
    ]
    assert starts or text == f"# {title}\n\n" + (f"> {summary}\n\n" if summary else "")
    pages = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        body = "\n".join(lines[start + 4 : end]).strip("\n")
        pages.append(FullPage(lines[start][2:], lines[start + 2].removeprefix("Source: "), body))
    return title, summary, pages


def parse_combined(text: str) -> list[tuple[dict[str, Any], str]]:
    """(header, body) of each page of the combined file: every header is the lines
    between two lines ``---``, each ``key: <JSON value>``, with exactly the five keys."""
    if not text:
        return []
    lines = text.split("\n")
    assert lines[0] == "---"
    marks = [i for i, line in enumerate(lines) if line == "---"]
    assert len(marks) % 2 == 0, "every header is closed"
    blocks = []
    for n in range(0, len(marks), 2):
        start, stop = marks[n], marks[n + 1]
        header: dict[str, Any] = {}
        for line in lines[start + 1 : stop]:
            key, sep, value = line.partition(": ")
            assert sep and key not in header, line
            header[key] = json.loads(value)
        assert list(header) == COMBINED_KEYS
        assert all(v is None or isinstance(v, str) for v in header.values())
        end = marks[n + 2] if n + 2 < len(marks) else len(lines)
        assert lines[stop + 1] == "", "a blank line after the header"
        blocks.append((header, "\n".join(lines[stop + 2 : end]).strip("\n")))
    return blocks


# -- helpers ----------------------------------------------------------------------------


def entry(path: str, markdown: str | None = None, **fields: Any) -> PageEntry:
    name = path.strip("/") or "home"
    url = fields.pop("url", BASE + path)
    values: dict[str, Any] = {
        "title": f"Title of {name}",
        "description": f"About {name}.",
        "website": "docs.example.com",
        "scraped_at": "2026-01-02T03:04:05Z",
        "content_hash": f"sha256:{name}",
        **fields,
    }
    text = f"# Title of {name}\n\nBody of {name}." if markdown is None else markdown
    return PageEntry(url=url, markdown=text, **values)


def run(folder: Path, *steps: tuple[str, Any]) -> list[PageEntry]:
    """One run into ``folder``: each step is ("page", entry), ("unchanged", url) or
    ("removed", url); then the llms files and the combined file are written. Returns
    the heads."""
    folder.mkdir(exist_ok=True)
    collection = PageCollection(folder / SIDECAR_NAME)
    for kind, value in steps:
        if kind == "page":
            collection.page(value)
        elif kind == "unchanged":
            assert collection.unchanged(value), f"{value} is kept"
        else:
            collection.removed(value)
    heads = collection.finish()
    write_llms(folder, collection, heads)
    write_combined(folder / "combined.md", collection)
    return heads


def full_pages(folder: Path) -> list[FullPage]:
    return parse_full((folder / "llms-full.txt").read_text("utf-8"))[2]


def combined(folder: Path) -> list[tuple[dict[str, Any], str]]:
    return parse_combined((folder / "combined.md").read_text("utf-8"))


def leftovers(folder: Path) -> list[str]:
    """Temporary or probe files left in ``folder``."""
    return sorted(p.name for p in folder.iterdir() if ".tmp-" in p.name or "probe" in p.name)


# -- llms.txt ---------------------------------------------------------------------------


def test_llms_txt_parses_as_the_format_says() -> None:
    heads = [
        entry("/", site_name="Docs Example", description="The docs\nof the  example."),
        entry("/docs/", title="Docs [index]"),
        entry("/docs/intro.html", description=None),
        entry("/team.html", title="   ", description="  "),
        entry("/blog/2024/post one (draft).html", title="A post\nin two lines"),
        entry("/Optional/extra.html"),
        entry("/docs/setup/install.html", title="]["),
        entry("/caf%C3%A9/menu", title="Menu"),
    ]
    text = llms_index(heads)
    parsed = parse_llms(text)
    assert parsed.title == "Docs Example"
    assert parsed.summary == "The docs of the example."
    assert list(parsed.sections) == ["Pages", "docs", "blog", "/Optional/", "café"]
    assert parsed.sections["Pages"] == [
        ("Title of home", BASE + "/", "The docs of the example."),
        ("/team.html", BASE + "/team.html", None),  # no usable title: the path
    ]
    assert parsed.sections["docs"] == [
        ("Docs (index)", BASE + "/docs/", "About docs."),
        ("Title of docs/intro.html", BASE + "/docs/intro.html", None),
        (")(", BASE + "/docs/setup/install.html", "About docs/setup/install.html."),
    ]
    (post,) = parsed.sections["blog"]
    assert post[0] == "A post in two lines"
    assert post[1] == BASE + "/blog/2024/post%20one%20%28draft%29.html"
    assert unquote(post[1]) == heads[4].url
    assert [unquote(u) for u in parsed.urls()] == [
        unquote(h.url) for h in [heads[0], heads[3], *heads[1:3], heads[6], *heads[4:6], heads[7]]
    ]


def test_llms_txt_of_no_pages_and_of_a_home_without_description() -> None:
    assert parse_llms(llms_index([])) == Llms("Pages", None, {})
    # no page at the root: the first page is the home; a blank site name is not a name
    heads = [entry("/docs/a", site_name=" ", description=None), entry("/docs/b")]
    parsed = parse_llms(llms_index(heads))
    assert parsed.title == "Title of docs/a" and parsed.summary is None
    assert list(parsed.sections) == ["docs"]
    heads = [entry("/", site_name=None, title=None, description=None)]
    assert parse_llms(llms_index(heads)).title == "docs.example.com"


def test_two_websites_have_their_own_sections() -> None:
    one, two = "http://127.0.0.1:8001", "http://127.0.0.1:8002"
    heads = [
        entry("/", url=one + "/", website="127.0.0.1:8001", site_name="First"),
        entry("/docs/a", url=one + "/docs/a", website="127.0.0.1:8001"),
        entry("/", url=two + "/", website="127.0.0.1:8002", site_name="Second"),
        entry("/docs/a", url=two + "/docs/a", website="127.0.0.1:8002"),
    ]
    parsed = parse_llms(llms_index(heads))
    assert parsed.title == "First"
    assert {name: [u for _, u, _ in links] for name, links in parsed.sections.items()} == {
        "127.0.0.1:8001: Pages": [one + "/"],
        "127.0.0.1:8001: docs": [one + "/docs/a"],
        "127.0.0.1:8002: Pages": [two + "/"],
        "127.0.0.1:8002: docs": [two + "/docs/a"],
    }


@pytest.mark.parametrize(
    ("path", "section"),
    [
        ("/", "Pages"),
        ("", "Pages"),
        ("/team.html", "Pages"),
        ("/docs", "Pages"),
        ("/docs/", "docs"),
        ("/docs/a/b.html", "docs"),
        ("/optional/x", "/optional/"),
        ("/a%0Ab/x", "a b"),
    ],
)
def test_section_of(path: str, section: str) -> None:
    assert section_of(BASE + path) == section


# -- llms-full.txt and the combined file --------------------------------------------------


def test_full_and_combined_hold_every_page_once_in_crawl_order(tmp_path: Path) -> None:
    tricky = "# Rules\n\nAbove.\n\n---\n\nBelow.\n\n```yaml\n---\nkey: 1\n```\n\n---"
    pages = [
        entry("/", markdown="# Home\n\nFirst version."),
        entry("/docs/rules", markdown=tricky, title='Rules "quoted"', description=None),
        entry("/no-heading", markdown="Just text, no H1.\n\n## Part"),
        entry("/empty", markdown=""),
        entry("/", markdown="# Home\n\nSecond version."),  # twice: first place, last text
    ]
    heads = run(tmp_path, *(("page", p) for p in pages))
    urls = [BASE + p for p in ("/", "/docs/rules", "/no-heading", "/empty")]
    assert [h.url for h in heads] == urls and all(h.markdown == "" for h in heads)

    title, summary, full = parse_full((tmp_path / "llms-full.txt").read_text("utf-8"))
    assert (title, summary) == ("Title of home", "About home.")
    assert [p.url for p in full] == urls
    assert [p.title for p in full] == ["Home", "Rules", "Title of no-heading", "Title of empty"]
    assert full[0].body == "Second version."
    assert full[1].body == tricky.partition("\n")[2].strip()
    assert full[2].body == "Just text, no H1.\n\n## Part"
    assert full[3].body == ""

    blocks = combined(tmp_path)
    assert [h["url"] for h, _ in blocks] == urls
    rules_header, rules_body = blocks[1]
    assert rules_header == {
        "url": BASE + "/docs/rules",
        "title": 'Rules "quoted"',
        "description": None,
        "scraped_at": "2026-01-02T03:04:05Z",
        "content_hash": "sha256:docs/rules",
    }
    # a body line "---" is written "--- ": the lines "---" are the headers' only
    assert rules_body == tricky.replace("\n---\n", "\n--- \n").removesuffix("---") + "--- "
    assert blocks[0][1] == "# Home\n\nSecond version." and blocks[3][1] == ""
    assert leftovers(tmp_path) == []


def test_an_empty_crawl_writes_files_that_parse(tmp_path: Path) -> None:
    run(tmp_path)
    assert parse_llms((tmp_path / "llms.txt").read_text("utf-8")).sections == {}
    assert full_pages(tmp_path) == []
    assert (tmp_path / "combined.md").read_text("utf-8") == ""
    assert (tmp_path / SIDECAR_NAME).read_bytes() == b""


# -- incremental runs ---------------------------------------------------------------------


def test_an_incremental_run_updates_the_files_in_place(tmp_path: Path) -> None:
    first = [entry(p) for p in ("/", "/a", "/b", "/c", "/d")]
    run(tmp_path, *(("page", e) for e in first))
    before = {p.url: p.body for p in full_pages(tmp_path)}

    run(
        tmp_path,
        ("unchanged", BASE + "/c"),
        ("page", entry("/b", markdown="# B again\n\nNew text of b.", description="Changed.")),
        ("page", entry("/e")),
        ("removed", BASE + "/a"),
        ("unchanged", BASE + "/"),
    )  # /d: not reached this time
    order = [BASE + p for p in ("/c", "/b", "/e", "/", "/d")]
    pages = full_pages(tmp_path)
    assert [p.url for p in pages] == order
    bodies = {p.url: p.body for p in pages}
    assert bodies[BASE + "/c"] == before[BASE + "/c"], "unchanged: the previous entry"
    assert bodies[BASE + "/d"] == before[BASE + "/d"], "not reached: kept"
    assert bodies[BASE + "/b"] == "New text of b."
    assert [h["url"] for h, _ in combined(tmp_path)] == order
    parsed = parse_llms((tmp_path / "llms.txt").read_text("utf-8"))
    assert parsed.urls() == [BASE + "/c", BASE + "/b", BASE + "/e", BASE + "/", BASE + "/d"]
    assert ("Title of b", BASE + "/b", "Changed.") in parsed.sections["Pages"]

    # a third run: the removed page stays gone, an unknown page is not made up
    collection = PageCollection(tmp_path / SIDECAR_NAME)
    assert not collection.unchanged(BASE + "/a")
    assert not collection.unchanged(BASE + "/never-seen")
    heads = collection.finish()
    assert [h.url for h in heads] == order
    assert leftovers(tmp_path) == []


def test_pages_are_matched_by_canonical_url_and_alias(tmp_path: Path) -> None:
    odd = "HTTPS://Docs.Example.com:443/q?b=2&a=1#top"
    run(tmp_path, ("page", entry("/q", url=odd)), ("page", entry("/old")), ("page", entry("/x")))
    collection = PageCollection(tmp_path / SIDECAR_NAME)
    # the state's canonical spelling finds the page written under another spelling
    assert collection.unchanged(BASE + "/q?a=1&b=2")
    # /old now redirects to /new: the page under its discovered URL is replaced
    collection.page(entry("/new"), BASE + "/old")
    # a tombstone known by its discovered URL (its final URL given as well)
    collection.removed(BASE + "/x-final", BASE + "/x")
    heads = collection.finish()
    assert [h.url for h in heads] == [odd, BASE + "/new"]


def test_a_damaged_sidecar_line_is_skipped(tmp_path: Path) -> None:
    run(tmp_path, *(("page", entry(p)) for p in ("/a", "/b", "/c", "/d")))
    sidecar = tmp_path / SIDECAR_NAME
    lines = sidecar.read_bytes().splitlines(keepends=True)
    bad_depth = json.loads(lines[3]) | {"depth": "deep"}
    sidecar.write_bytes(
        lines[0]
        + lines[1][:40]  # cut short
        + b"\n[1, 2]\n\xff\xfe not json\n{}\n"
        + lines[2]
        + json.dumps(bad_depth).encode()
        + b"\n"
        + lines[3][:-1]  # the last line without its end
    )
    collection = PageCollection(sidecar)
    assert not collection.unchanged(BASE + "/b")
    assert collection.unchanged(BASE + "/c")
    heads = collection.finish()
    assert [h.url for h in heads] == [BASE + "/c", BASE + "/a"]
    assert [e.markdown for e in collection.entries()] == [
        "# Title of c\n\nBody of c.",
        "# Title of a\n\nBody of a.",
    ]


# -- files replaced whole -----------------------------------------------------------------


def test_a_failed_write_leaves_the_previous_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(tmp_path, ("page", entry("/a")), ("page", entry("/b")))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    collection = PageCollection(tmp_path / SIDECAR_NAME)
    collection.page(entry("/c"))
    heads = collection.finish()

    def broken(page: PageEntry) -> str:
        if page.url.endswith("/b"):
            raise OSError("disk full")
        return "x"

    monkeypatch.setattr(single_files, "combined_section", broken)
    with pytest.raises(OSError, match="disk full"):
        write_combined(tmp_path / "combined.md", collection)
    assert (tmp_path / "combined.md").read_bytes() == before["combined.md"]
    monkeypatch.setattr(single_files, "full_section", broken)
    with pytest.raises(OSError, match="disk full"):
        write_llms(tmp_path, collection, heads)
    assert (tmp_path / "llms-full.txt").read_bytes() == before["llms-full.txt"]
    assert leftovers(tmp_path) == []


def test_a_run_that_stages_nothing_or_is_abandoned_leaves_no_file(tmp_path: Path) -> None:
    run(tmp_path, ("page", entry("/a")))
    before = sorted(p.name for p in tmp_path.iterdir())
    collection = PageCollection(tmp_path / SIDECAR_NAME)
    collection.page(entry("/b"))
    collection.abandon()
    PageCollection(tmp_path / SIDECAR_NAME)  # never used: nothing to clean up
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert [e.url for e in PageCollection(tmp_path / SIDECAR_NAME).entries()] == [BASE + "/a"]


def test_a_folder_that_cannot_hold_the_sidecar_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError):
        PageCollection(blocker / SIDECAR_NAME)


def test_sidecar_paths() -> None:
    assert sidecar_paths("", "") == []
    assert sidecar_paths("out/llms", "out/all.md") == [
        Path("out/llms") / SIDECAR_NAME,
        Path("out") / f".all.md{SIDECAR_NAME}",
    ]
