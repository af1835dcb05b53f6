"""The Markdown folder tree (``webmd_spider.rows.markdown_files``): URL to path rules,
collisions, safety, frontmatter, atomic writes and incremental runs, plus hypothesis properties."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webmd_spider.rows import markdown_files as tree
from webmd_spider.rows.markdown_files import (
    FRONTMATTER_KEYS,
    TreeError,
    TreeWriter,
    UnsafePathError,
    atomic_write,
    fold,
    frontmatter,
    plan_paths,
    read_frontmatter,
    render_page,
    safe_join,
    safe_segment,
    segment_path,
)

BASE = "https://example.com"


def paths(*urls: str) -> dict[str, str]:
    plan, _ = plan_paths(urls)
    return plan


def path_of(url: str, *others: str) -> str:
    return paths(url, *others)[url]


def short(url: str, digits: int = 6) -> str:
    return hashlib.sha256(url.encode()).hexdigest()[:digits]


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(YAML frontmatter parsed with PyYAML, body) of a page file."""
    assert text.startswith("---\n")
    head, sep, body = text[4:].partition("\n---\n")
    assert sep, "the frontmatter is closed"
    data = yaml.safe_load(head)
    assert isinstance(data, dict)
    return data, body


def fields(title: str | None = "T", content_hash: str | None = "sha256:1") -> dict[str, Any]:
    return {
        "title": title,
        "description": None,
        "language": "en",
        "scraped_at": "2026-01-01T00:00:00Z",
        "content_hash": content_hash,
    }


def files_under(root: Path) -> set[str]:
    """Relative paths of every page file (metadata folder excluded)."""
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and ".webmd" not in p.relative_to(root).parts
    }


def meta(root: Path, name: str) -> Any:
    return json.loads((root / ".webmd" / name).read_text("utf-8"))


# -- URL to path --------------------------------------------------------------------------


def test_root_is_index_md() -> None:
    assert path_of(f"{BASE}/") == "index.md"
    assert path_of(BASE) == "index.md"
    assert path_of(f"{BASE}/index.html") == "index.md"


def test_mapping_examples() -> None:
    assert path_of(f"{BASE}/docs/intro") == "docs/intro.md"
    assert path_of(f"{BASE}/Docs/Getting%20Started.HTML") == "docs/getting-started.md"
    assert path_of(f"{BASE}/blog/2024/post.htm") == "blog/2024/post.md"
    assert path_of(f"{BASE}/caf%C3%A9/men%C3%BC") == "café/menü.md"
    assert path_of(f"{BASE}/a%20%20%20b!!c") == "a-b-c.md"
    assert path_of(f"{BASE}/readme.md") == "readme.md"
    assert path_of(f"{BASE}/page.php") == "page.md"


def test_host_query_fragment_trailing_slash_and_index_html_are_ignored() -> None:
    want = "docs/index.md"
    for url in (
        f"{BASE}/docs/",
        f"{BASE}/docs/index.html",
        f"{BASE}/docs/index.htm",
        f"{BASE}/docs/INDEX.PHP",
        f"{BASE}/docs/?page=2#top",
        "http://other.example:8080/docs/index.html?x=1",
    ):
        assert path_of(url, f"{BASE}/docs/child") == want, url
    assert segment_path(f"{BASE}/docs//x/") == ("docs", "x")


def test_a_page_with_children_becomes_index_md() -> None:
    plan = paths(f"{BASE}/docs", f"{BASE}/docs/intro", f"{BASE}/docs/api/ref")
    assert plan == {
        f"{BASE}/docs": "docs/index.md",
        f"{BASE}/docs/intro": "docs/intro.md",
        f"{BASE}/docs/api/ref": "docs/api/ref.md",
    }
    # without the child, the same page is a plain file
    assert path_of(f"{BASE}/docs") == "docs.md"


def test_case_variants_collide_and_the_first_sorted_url_keeps_the_name() -> None:
    upper, lower = f"{BASE}/Guide", f"{BASE}/guide"
    plan, collisions = plan_paths([lower, upper])  # order of the input does not matter
    assert upper < lower
    assert plan[upper] == "guide.md"
    assert plan[lower] == f"guide-{short(lower)}.md"
    assert [c.to_dict() for c in collisions] == [
        {"path": "guide.md", "url": lower, "written_to": plan[lower], "kept_by": upper}
    ]


def test_query_variants_collide_with_a_six_hex_suffix() -> None:
    one, two, three = (f"{BASE}/a?x={n}" for n in (1, 2, 3))
    plan, collisions = plan_paths([three, two, one])
    assert plan[one] == "a.md"
    assert plan[two] == f"a-{short(two)}.md" and plan[three] == f"a-{short(three)}.md"
    assert {c.url for c in collisions} == {two, three}
    assert all(c.kept_by == one and c.path == "a.md" for c in collisions)


def test_collisions_between_an_index_and_a_leaf_named_index() -> None:
    plan, collisions = plan_paths([f"{BASE}/docs", f"{BASE}/docs/index", f"{BASE}/docs/x"])
    assert plan[f"{BASE}/docs"] == "docs/index.md"
    assert plan[f"{BASE}/docs/index"].startswith("docs/index-")
    assert len(collisions) == 1


def test_a_suffixed_name_never_takes_another_url_s_natural_name() -> None:
    loser = f"{BASE}/guide?b"
    squatter = f"{BASE}/guide-{short(loser)}"  # naturally wants the loser's suffixed name
    plan, _ = plan_paths([f"{BASE}/guide", loser, squatter])
    assert plan[squatter] == f"guide-{short(loser)}.md"
    assert plan[loser] == f"guide-{short(loser, 7)}.md"
    assert len({fold(p) for p in plan.values()}) == 3


def test_long_names_are_cut_with_a_hash_and_stay_distinct() -> None:
    a, b = "x" * 200 + "a", "x" * 200 + "b"
    name_a, name_b = safe_segment(a), safe_segment(b)
    assert name_a != name_b
    assert len(name_a) <= 80 and name_a.startswith("x" * 60)
    wide = safe_segment("ж" * 150)
    assert len(wide.encode("utf-8")) <= 160 and wide.startswith("жжж")
    emoji = safe_segment("é" * 30 + "😀" * 40)
    assert len(emoji.encode("utf-8")) <= 160


def test_windows_reserved_names_dots_and_spaces_are_made_safe() -> None:
    assert safe_segment("con") == "con_"
    assert safe_segment("CON.txt") == "con_.txt"
    assert safe_segment("lpt1") == "lpt1_"
    assert safe_segment("com9.html") == "com9_"
    assert safe_segment("aux.tar.gz") == "aux_.tar.gz"
    assert safe_segment("console") == "console"
    assert safe_segment("...") == "_"
    assert safe_segment("name. . .") == "name"
    assert safe_segment("trailing.") == "trailing"
    assert safe_segment(".hidden") == "hidden"
    assert safe_segment(".webmd") == "webmd"
    assert path_of(f"{BASE}/nul") == "nul_.md"


def test_nothing_in_a_url_climbs_out_or_reaches_the_metadata_folder() -> None:
    urls = [
        f"{BASE}/../../etc/passwd",
        f"{BASE}/%2e%2e/%2E%2E/secret",
        f"{BASE}/a%2F..%2F..%2Fb",
        f"{BASE}/a\\..\\..\\b",
        f"{BASE}//etc/passwd",
        f"{BASE}/C:/Windows/x",
        f"{BASE}/nul%00byte",
        f"{BASE}/.webmd/manifest.json",
        f"{BASE}/%2ewebmd/x",
        f"{BASE}/%252e%252e/x",
    ]
    plan, _ = plan_paths(urls)
    for url, rel in plan.items():
        parts = rel.split("/")
        assert all(p not in ("", ".", "..") and not p.startswith(".") for p in parts), url
        assert not any(ch in rel for ch in "\\:\x00"), url
        safe_join(Path("/nonexistent-root"), rel)  # raises on anything unsafe
    assert plan[f"{BASE}/a%2F..%2F..%2Fb"] == "a-..-..-b.md"
    assert plan[f"{BASE}/.webmd/manifest.json"].startswith("webmd/")


@pytest.mark.parametrize(
    "rel",
    ["../x.md", "/abs.md", "a\\b.md", "a/../b.md", "./a.md", "a//b.md", ".webmd/x.md", "a\x00.md"],
)
def test_safe_join_refuses_paths_that_could_escape(rel: str, tmp_path: Path) -> None:
    with pytest.raises(UnsafePathError):
        safe_join(tmp_path, rel)


def test_safe_join_never_follows_a_symlink(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "docs").symlink_to(outside, target_is_directory=True)
    (root / "file.md").symlink_to(outside / "target.md")
    for rel in ("docs/x.md", "docs/sub/x.md", "file.md"):
        with pytest.raises(UnsafePathError, match="symlink"):
            safe_join(root, rel, make_dirs=True)
    assert list(outside.iterdir()) == []
    (root / "plain").write_text("x")
    with pytest.raises(UnsafePathError, match="not a folder"):
        safe_join(root, "plain/x.md")


# -- frontmatter --------------------------------------------------------------------------

NASTY = [
    "Plain title",
    "key: value",
    "a: b: c",
    "\"quoted\" and 'single'",
    "- leading dash",
    "# not a comment",
    "trailing #hash",
    "multi\nline\r\ntitle",
    "line\u2028separator\u2029para",
    "next\x85line",
    "tab\there",
    "nul\x00 bel\x07 esc\x1b del\x7f c1\x9b",
    "bom\ufeffinside",
    "nonchar \ufffe \uffff",
    "emoji 😀 and 🏳️‍🌈",
    "back\\slash \\n \\u2028",
    "{flow: [map]}",
    "&anchor *alias !tag %directive @at `tick`",
    "---",
    "...",
    "yes",
    "null",
    "~",
    "123",
    "1e3",
    "",
    " leading and trailing spaces ",
    "ümlaut · ∑ · 中文 · עברית",
]


@pytest.mark.parametrize("title", NASTY)
def test_frontmatter_round_trips_through_yaml(title: str) -> None:
    values = {
        "url": f"{BASE}/x",
        "title": title,
        "description": title[::-1],
        "language": None,
        "scraped_at": "2026-01-01T00:00:00Z",
        "content_hash": "sha256:abc",
    }
    text = frontmatter(values)
    data = yaml.safe_load(text.removeprefix("---\n").removesuffix("---\n"))
    assert data == values
    assert read_frontmatter(text) == values
    assert "\u2028" not in text and "\x85" not in text


def test_frontmatter_keys_come_in_order_and_unknown_keys_are_refused() -> None:
    text = frontmatter({"content_hash": "h", "url": "u"})
    keys = [line.split(":", 1)[0] for line in text.splitlines()[1:-1]]
    assert keys == list(FRONTMATTER_KEYS)
    assert "title: null" in text
    with pytest.raises(ValueError, match="unknown"):
        frontmatter({"tittle": "x"})


def test_render_page_has_frontmatter_blank_line_markdown_and_final_newline() -> None:
    page = render_page({"url": "u", "title": "T"}, "# Title\n\nBody\n\n\n")
    data, body = split_frontmatter(page)
    assert data["url"] == "u" and data["title"] == "T"
    assert body == "\n# Title\n\nBody\n"
    assert render_page({"url": "u"}, "x").endswith("---\n\nx\n")


@settings(max_examples=300, deadline=None)
@given(value=st.text())
def test_frontmatter_round_trips_any_text(value: str) -> None:
    values = {"url": value, "title": value, "description": None}
    text = frontmatter(values)
    data = yaml.safe_load(text.removeprefix("---\n").removesuffix("---\n"))
    want = dict.fromkeys(FRONTMATTER_KEYS) | values
    assert data == want
    assert read_frontmatter(text) == want


# -- atomic writes ------------------------------------------------------------------------


def test_atomic_write_leaves_the_old_file_whole_when_writing_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "page.md"
    atomic_write(target, "old\n")
    real_replace = os.replace

    def broken(src: Any, dst: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(tree.os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, "new " * 1000)
    monkeypatch.setattr(tree.os, "replace", real_replace)
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.md"], "no temporary left"


def test_atomic_write_never_writes_through_a_symlinked_temp_name(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    target = tmp_path / "page.md"
    (tmp_path / f".page.md.tmp-{os.getpid()}").symlink_to(victim)
    with pytest.raises(OSError):
        atomic_write(target, "x")
    assert victim.read_text() == "keep"


def test_stale_temporaries_are_removed_when_a_tree_opens(tmp_path: Path) -> None:
    out = tmp_path / "out"
    TreeWriter(out).close()
    stale = [out / ".webmd" / ".manifest.json.tmp-99999", out / ".webmd" / "staging"]
    stale[1].mkdir(exist_ok=True)
    stale.append(stale[1] / ".abc.md.tmp-12345")
    for path in (stale[0], stale[2]):
        path.write_text("half a fi")
    writer = TreeWriter(out)
    assert not stale[0].exists() and not stale[2].exists()
    writer.close()


# -- the writer ---------------------------------------------------------------------------


def write_run(
    out: Path,
    pages: dict[str, str] | None = None,
    unchanged: list[str] | None = None,
    removed: list[str] | None = None,
    policy: str = "delete",
) -> TreeWriter:
    writer = TreeWriter(out, removed=policy)
    for url, markdown in (pages or {}).items():
        writer.page(url, fields(title=url.rsplit("/", 1)[-1]), markdown)
    for url in unchanged or []:
        assert writer.unchanged(url)
    for url in removed or []:
        writer.removed(url)
    writer.close()
    return writer


def test_writer_writes_one_file_per_page_with_frontmatter(tmp_path: Path) -> None:
    out = tmp_path / "out"
    writer = TreeWriter(out)
    writer.page(f"{BASE}/docs/intro", fields(title="Intro: a: b"), "# Intro\n")
    writer.page(f"{BASE}/", fields(title="Home"), "# Home")
    writer.failed(f"{BASE}/gone", "http-error", "the server answered HTTP 404", 404)
    report = writer.close()
    assert files_under(out) == {"index.md", "docs/intro.md"}
    data, body = split_frontmatter((out / "docs/intro.md").read_text("utf-8"))
    assert list(data) == list(FRONTMATTER_KEYS)
    assert data["url"] == f"{BASE}/docs/intro" and data["title"] == "Intro: a: b"
    assert body == "\n# Intro\n"
    assert meta(out, "failed.json") == [
        {
            "url": f"{BASE}/gone",
            "error_type": "http-error",
            "error": "the server answered HTTP 404",
            "status_code": 404,
        }
    ]
    manifest = meta(out, "manifest.json")
    assert manifest["version"] == 1
    assert manifest["pages"][f"{BASE}/docs/intro"] == {
        "path": "docs/intro.md",
        "content_hash": "sha256:1",
        "scraped_at": "2026-01-01T00:00:00Z",
    }
    assert meta(out, "collisions.json") == []
    assert report.pages == 2 and report.written == 2
    assert sorted(p.name for p in (out / ".webmd").iterdir()) == [
        "collisions.json",
        "failed.json",
        "manifest.json",
    ], "no staging folder, marker or temporary left"


def test_collisions_json_lists_every_collision(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_run(out, {f"{BASE}/guide": "lower", f"{BASE}/Guide": "upper"})
    loser = f"{BASE}/guide"
    assert files_under(out) == {"guide.md", f"guide-{short(loser)}.md"}
    assert split_frontmatter((out / "guide.md").read_text())[0]["url"] == f"{BASE}/Guide"
    assert meta(out, "collisions.json") == [
        {
            "path": "guide.md",
            "url": loser,
            "written_to": f"guide-{short(loser)}.md",
            "kept_by": f"{BASE}/Guide",
        }
    ]


def test_unchanged_pages_are_not_rewritten_and_removed_ones_are_deleted(tmp_path: Path) -> None:
    out = tmp_path / "out"
    a, b, c = f"{BASE}/a", f"{BASE}/deep/er/b", f"{BASE}/c"
    write_run(out, {a: "A", b: "B"})
    before = (out / "a.md").stat()
    write_run(out, {c: "C"}, unchanged=[a], removed=[b])
    after = (out / "a.md").stat()
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)
    assert files_under(out) == {"a.md", "c.md"}
    assert not (out / "deep").exists(), "folders left empty are removed"
    assert set(meta(out, "manifest.json")["pages"]) == {a, c}


def test_removed_pages_can_be_moved_aside(tmp_path: Path) -> None:
    out = tmp_path / "out"
    b = f"{BASE}/deep/b"
    write_run(out, {f"{BASE}/a": "A", b: "B"})
    write_run(out, removed=[b], policy="move")
    assert files_under(out) == {"a.md"}
    moved = out / ".webmd" / "removed" / "deep" / "b.md"
    assert split_frontmatter(moved.read_text())[0]["url"] == b


def test_paths_that_change_are_moved_not_rewritten(tmp_path: Path) -> None:
    out = tmp_path / "out"
    docs, guide = f"{BASE}/docs", f"{BASE}/guide"
    write_run(out, {docs: "Docs", guide: "lower"})
    inodes = {"docs": (out / "docs.md").stat().st_ino, "guide": (out / "guide.md").stat().st_ino}
    # a child turns docs.md into docs/index.md; /Guide sorts first and takes guide.md
    write_run(out, {f"{BASE}/docs/intro": "Intro", f"{BASE}/Guide": "upper"}, unchanged=[docs])
    assert files_under(out) == {
        "docs/index.md",
        "docs/intro.md",
        "guide.md",
        f"guide-{short(guide)}.md",
    }
    assert (out / "docs/index.md").stat().st_ino == inodes["docs"]
    assert (out / f"guide-{short(guide)}.md").stat().st_ino == inodes["guide"]
    assert (out / f"guide-{short(guide)}.md").read_text().endswith("\nlower\n")
    # and back: removing the child makes docs a plain file again
    write_run(out, removed=[f"{BASE}/docs/intro", f"{BASE}/Guide"])
    assert files_under(out) == {"docs.md", "guide.md"}
    assert (out / "docs.md").stat().st_ino == inodes["docs"]


def test_unchanged_url_without_a_file_is_reported(tmp_path: Path) -> None:
    writer = TreeWriter(tmp_path / "out")
    assert writer.unchanged(f"{BASE}/never-seen") is False
    assert writer.close().missing == 1


def test_redirect_aliases_find_the_page(tmp_path: Path) -> None:
    out = tmp_path / "out"
    writer = TreeWriter(out)
    writer.page(f"{BASE}/new", fields(), "x", source_url=f"{BASE}/old")
    writer.close()
    assert meta(out, "manifest.json")["pages"][f"{BASE}/new"]["source_url"] == f"{BASE}/old"
    writer = TreeWriter(out)
    assert writer.knows(f"{BASE}/old")
    writer.removed(f"{BASE}/old")
    writer.close()
    assert files_under(out) == set()


def test_a_symlink_inside_the_tree_is_never_followed(tmp_path: Path) -> None:
    out, outside = tmp_path / "out", tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    (out / "evil").symlink_to(outside, target_is_directory=True)
    page = f"{BASE}/evil/page"
    write_run(out, {page: "secret", f"{BASE}/ok": "fine"})
    assert list(outside.iterdir()) == [], "nothing written outside the tree"
    assert files_under(out) == {"ok.md"}
    (failed,) = meta(out, "failed.json")
    assert failed["url"] == page and failed["error_type"] == "unsafe-path"
    assert page not in meta(out, "manifest.json")["pages"]
    # nothing is left in staging (issue 16 item 12); the next run writes it again
    assert not (out / ".webmd" / "staging").exists()
    (out / "evil").unlink()
    write_run(out)
    assert files_under(out) == {"ok.md"}
    write_run(out, {page: "secret"})
    assert files_under(out) == {"ok.md", "evil/page.md"}
    assert meta(out, "failed.json") == []


def test_a_symlinked_metadata_folder_makes_the_tree_unusable(tmp_path: Path) -> None:
    out, outside = tmp_path / "out", tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    (out / ".webmd").symlink_to(outside, target_is_directory=True)
    with pytest.raises(TreeError, match="symlink"):
        TreeWriter(out)
    assert list(outside.iterdir()) == []


def test_an_unusable_folder_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(TreeError, match="not a folder"):
        TreeWriter(tmp_path / "file")


def test_a_tampered_manifest_path_is_ignored(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_run(out, {f"{BASE}/a": "A"})
    victim = tmp_path / "victim.md"
    victim.write_text("keep")
    data = meta(out, "manifest.json")
    data["pages"][f"{BASE}/a"]["path"] = "../victim.md"
    (out / ".webmd" / "manifest.json").write_text(json.dumps(data))
    write_run(out, removed=[f"{BASE}/a"])
    assert victim.read_text() == "keep"


def test_a_lost_manifest_is_rebuilt_from_the_frontmatter(tmp_path: Path) -> None:
    out = tmp_path / "out"
    a, b = f"{BASE}/docs", f"{BASE}/x"
    write_run(out, {a: "Docs", b: "X"})
    (out / ".webmd" / "manifest.json").unlink()
    (out / "notes.md").write_text("my own notes, no frontmatter\n")
    writer = TreeWriter(out)
    assert writer.report.rebuilt
    assert writer.knows(a) and writer.knows(b)
    writer.page(f"{BASE}/docs/intro", fields(), "Intro")
    writer.close()
    assert files_under(out) == {"docs/index.md", "docs/intro.md", "x.md", "notes.md"}
    assert set(meta(out, "manifest.json")["pages"]) == {a, b, f"{BASE}/docs/intro"}


def _as_earlier_version(out: Path) -> None:
    """Rewrite a tree as versions before issue 31 wrote it: ``crawled_at`` in every
    page's frontmatter and in the manifest, not ``scraped_at``."""
    for page in out.rglob("*.md"):
        page.write_text(page.read_text("utf-8").replace("\nscraped_at: ", "\ncrawled_at: "))
    manifest = out / ".webmd" / "manifest.json"
    manifest.write_text(manifest.read_text("utf-8").replace('"scraped_at"', '"crawled_at"'))


@pytest.mark.parametrize("manifest", ["kept", "lost"])
def test_a_tree_written_with_crawled_at_is_read_by_an_incremental_run(
    tmp_path: Path, manifest: str
) -> None:
    out = tmp_path / "out"
    a, b = f"{BASE}/a", f"{BASE}/b"
    write_run(out, {a: "A", b: "B"})
    _as_earlier_version(out)
    assert "crawled_at" in (out / "a.md").read_text("utf-8")
    if manifest == "lost":
        (out / ".webmd" / "manifest.json").unlink()  # rebuilt from the old frontmatter
    writer = TreeWriter(out)
    assert writer.knows(a) and writer.knows(b)
    assert writer.unchanged(a)
    writer.page(b, fields(content_hash="sha256:2"), "B2")
    writer.close()
    pages = meta(out, "manifest.json")["pages"]
    assert pages[a] == {
        "path": "a.md",
        "content_hash": "sha256:1",
        "scraped_at": "2026-01-01T00:00:00Z",
    }, "the old timestamp is carried over under today's name"
    assert pages[b]["content_hash"] == "sha256:2"
    assert files_under(out) == {"a.md", "b.md"}
    assert read_frontmatter((out / "a.md").read_text("utf-8")) == {
        "url": a,
        **fields(title="a"),
    }, "a file of an earlier version reads as today's keys"
    data, _ = split_frontmatter((out / "b.md").read_text("utf-8"))
    assert list(data) == list(FRONTMATTER_KEYS) and "crawled_at" not in data


def test_a_killed_run_is_recovered_on_the_next_run(tmp_path: Path) -> None:
    out = tmp_path / "out"
    a, b = f"{BASE}/a", f"{BASE}/b"
    write_run(out, {a: "A1"})
    killed = TreeWriter(out)
    killed.page(a, fields(content_hash="sha256:2"), "A2")
    killed.page(b, fields(), "B")
    del killed  # kill -9: no close, the marker stays
    assert (out / ".webmd" / "in-progress").exists()
    assert files_under(out) == {"a.md"}
    assert (out / "a.md").read_text().endswith("\nA1\n"), "the old tree is untouched"
    rerun = TreeWriter(out)
    assert rerun.report.rebuilt
    assert rerun.unchanged(a) and rerun.unchanged(b)  # the state store saw both
    rerun.close()
    assert files_under(out) == {"a.md", "b.md"}
    assert (out / "a.md").read_text().endswith("\nA2\n")
    assert meta(out, "manifest.json")["pages"][a]["content_hash"] == "sha256:2"
    assert not (out / ".webmd" / "in-progress").exists()


def test_a_run_killed_while_placing_is_recovered(tmp_path: Path) -> None:
    out = tmp_path / "out"
    docs, intro = f"{BASE}/docs", f"{BASE}/docs/intro"
    write_run(out, {docs: "Docs"})
    # simulate a close that moved docs.md into staging, then died
    writer = TreeWriter(out)
    writer.page(intro, fields(), "Intro")
    os.replace(out / "docs.md", writer._staged_file(docs))
    del writer
    rerun = TreeWriter(out)
    assert rerun.knows(docs) and rerun.knows(intro)
    rerun.close()
    assert files_under(out) == {"docs/index.md", "docs/intro.md"}


def test_rerunning_the_same_pages_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    pages = {f"{BASE}/Guide": "G", f"{BASE}/guide": "g", f"{BASE}/docs": "D"}
    write_run(out, pages)
    first = {p: (out / p).read_bytes() for p in files_under(out)}
    manifest = (out / ".webmd" / "manifest.json").read_bytes()
    write_run(out, pages)
    assert {p: (out / p).read_bytes() for p in files_under(out)} == first
    assert (out / ".webmd" / "manifest.json").read_bytes() == manifest


# -- properties ---------------------------------------------------------------------------

SEGMENT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "..",
            ".",
            "%2e%2e",
            "%2E%2E",
            "%2f",
            "a%2Fb",
            "%00",
            "\\",
            ".webmd",
            "%2Ewebmd",
            "CON",
            "con.txt",
            "Lpt1",
            "aux.",
            "index.html",
            "index",
            "Guide",
            "guide",
            "GUIDE.html",
            "straße",
            "STRASSE",
            "e\u0301",
            "é",
            "x" * 90,
            "X" * 90,
            "é" * 85,
            " . ",
            "%",
            "%zz",
            "%ff%fe",
            "a.md",
            "b.html",
        ]
    ),
    st.text(alphabet="aAbB.-%2eEfF", max_size=8),
)
URL = st.builds(
    lambda host, segs, tail: f"https://{host}/" + "/".join(segs) + tail,
    st.sampled_from(["example.com", "other.org:8080"]),
    st.lists(SEGMENT, max_size=5),
    st.sampled_from(["", "/", "?q=1", "?q=2", "#f", "/index.html"]),
)


def check_plan(urls: set[str]) -> None:
    plan, collisions = plan_paths(urls)
    assert set(plan) == urls
    keys = [unicodedata.normalize("NFC", p.casefold()) for p in plan.values()]
    assert len(set(keys)) == len(urls), "distinct URLs get distinct files, case-insensitively"
    assert len({p.casefold() for p in plan.values()}) == len(urls)
    folders = {
        "/".join(p.split("/")[:i]) for p in plan.values() for i in range(1, p.count("/") + 1)
    }
    assert not {fold(f) for f in folders} & set(keys), "no file is also a folder"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for rel in plan.values():
            assert rel.endswith(".md")
            parts = rel.split("/")
            assert parts[0].casefold() != ".webmd"
            for part in parts:
                assert part and not part.startswith(".") and not part.endswith((" ", "."))
                assert not any(ch in part for ch in '<>:"/\\|?*\x00')
                assert part.split(".")[0] not in tree.WINDOWS_RESERVED
                assert len(part.encode("utf-8")) <= 200
            joined = safe_join(root, rel)
            assert joined.resolve().is_relative_to(root.resolve())
    assert {c.url for c in collisions} <= urls
    assert plan_paths(sorted(urls, reverse=True)) == (plan, collisions), "order-independent"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(urls=st.sets(URL, max_size=25))
def test_every_planned_path_is_inside_the_tree_and_distinct(urls: set[str]) -> None:
    check_plan(urls)


@settings(max_examples=200, deadline=None)
@given(segs=st.lists(SEGMENT, min_size=1, max_size=3), variants=st.integers(2, 6))
def test_case_and_query_variants_of_one_path_stay_distinct(segs: list[str], variants: int) -> None:
    path = "/".join(segs)
    urls = {f"{BASE}/{path}?v={n}" for n in range(variants)}
    urls |= {f"{BASE}/{path.upper()}", f"{BASE}/{path.lower()}", f"{BASE}/{path}/"}
    check_plan(urls)


@settings(max_examples=500, deadline=None)
@given(text=st.text())
def test_every_segment_is_a_safe_name(text: str) -> None:
    name = safe_segment(text)
    assert name and name == name.strip(".-")
    assert not name.startswith(".") and not name.endswith((".", " "))
    assert len(name) <= 80 and len(name.encode("utf-8")) <= 160
    assert all(
        (c.isascii() and (c.isalnum() or c in "._-"))
        or (not c.isascii() and unicodedata.category(c)[0] in "LMN")
        for c in name
    )
    assert name.split(".")[0] not in tree.WINDOWS_RESERVED
    assert not name.endswith(tree.PAGE_SUFFIXES)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(first=st.sets(URL, max_size=8), second=st.sets(URL, max_size=8), gone=st.data())
def test_incremental_runs_leave_exactly_the_planned_tree(
    first: set[str], second: set[str], gone: st.DataObject, tmp_path_factory: Any
) -> None:
    out = tmp_path_factory.mktemp("tree")
    write_run(out, {url: f"one {short(url)}" for url in first})
    removed = gone.draw(st.sets(st.sampled_from(sorted(first)), max_size=3)) if first else set()
    write_run(out, {url: f"two {short(url)}" for url in second}, removed=sorted(removed - second))
    final = (first - removed) | second
    plan, _ = plan_paths(final)
    assert files_under(out) == set(plan.values())
    for url, rel in plan.items():
        data, body = split_frontmatter((out / rel).read_text("utf-8"))
        assert data["url"] == url
        assert body == f"\n{'two' if url in second else 'one'} {short(url)}\n"
    pages = meta(out, "manifest.json")["pages"]
    assert {url: entry["path"] for url, entry in pages.items()} == plan
