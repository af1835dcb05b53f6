"""Real crawls written as a Markdown folder tree (``WEBMD_OUT_DIR`` / ``-a out_dir``), and
the pipeline's routing of incremental rows."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from scrapy.exceptions import NotConfigured
from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer
from webmd_spider.items import Row, diagnostic_row, page_row, site_row
from webmd_spider.options import JobOptions, OptionsError
from webmd_spider.pipelines.markdown_tree import MarkdownTreePipeline
from webmd_spider.run_context import RunContext, attach

from ..crawling import by_type, crawl, read_rows, scrapy_crawl

QUIET = [
    *("-s", "LOG_LEVEL=INFO", "-s", "WEBMD_HOST_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False"),
    *("-s", "WEBMD_SSRF_ALLOWLIST=127.0.0.0/8", "-s", "WEBMD_ROBOTS_RETRY_SECS=0.5"),
]


def parse(path: Path) -> tuple[dict[str, Any], str]:
    """(frontmatter parsed by PyYAML, body) of a page file."""
    text = path.read_text("utf-8")
    assert text.startswith("---\n")
    head, sep, body = text[4:].partition("\n---\n")
    assert sep
    data = yaml.safe_load(head)
    assert isinstance(data, dict)
    return data, body


def page_files(out: Path) -> set[str]:
    return {
        p.relative_to(out).as_posix()
        for p in out.rglob("*")
        if p.is_file() and ".webmd" not in p.relative_to(out).parts
    }


def meta(out: Path, name: str) -> Any:
    return json.loads((out / ".webmd" / name).read_text("utf-8"))


def no_temporaries(out: Path) -> bool:
    return not [p for p in out.rglob("*") if ".tmp-" in p.name]


def short(url: str) -> str:
    return hashlib.sha256(url.encode()).hexdigest()[:6]


def check_page_file(out: Path, rel: str, row: dict[str, Any]) -> None:
    data, body = parse(out / rel)
    assert list(data) == ["url", "title", "description", "language", "scraped_at", "content_hash"]
    assert data["url"] == row["final_url"]
    assert data["title"] == row["title"]
    assert data["description"] == row["description"]
    assert data["language"] == row["language"]
    assert data["scraped_at"] == row["scraped_at"]
    assert data["content_hash"] == row["content_hash"]
    assert body == "\n" + row["markdown"].rstrip("\n") + "\n"


BASIC_TREE = {
    "/": "index.md",
    "/products/": "products/index.md",
    "/products/widgets.html": "products/widgets.md",
    "/products/gadgets.html": "products/gadgets.md",
    "/guides/": "guides/index.md",
    "/guides/setup/install.html": "guides/setup/install.md",
    "/guides/setup/advanced/tuning.html": "guides/setup/advanced/tuning.md",
    "/news/latest.html": "news/latest.md",
    "/team.html": "team.md",
}


@deferred_f_from_coro_f
async def test_basic_site_becomes_a_tree(basic_site: SiteServer, tmp_path: Path) -> None:
    out = tmp_path / "tree"
    rows = await crawl(tmp_path, {"WEBMD_OUT_DIR": str(out)}, start=basic_site.base_url + "/")
    pages = by_type(rows, "page")
    assert len(pages) == len(BASIC_TREE)
    assert page_files(out) == set(BASIC_TREE.values()), "one file per page row"
    for row in pages:
        check_page_file(out, BASIC_TREE[urlsplit(row["final_url"]).path], row)

    # the redirected page is known under its final URL, with the discovered one as alias
    manifest = meta(out, "manifest.json")["pages"]
    assert {url: entry["path"] for url, entry in manifest.items()} == {
        basic_site.base_url + path: rel for path, rel in BASIC_TREE.items()
    }
    (news,) = (r for r in pages if r["final_url"].endswith("/news/latest.html"))
    assert manifest[news["final_url"]]["source_url"] == news["url"]

    diagnostics = by_type(rows, "diagnostic")
    assert meta(out, "failed.json") == sorted(
        (
            {
                "url": r["url"],
                "error_type": r["error_type"],
                "error": r["error"],
                "status_code": r["status_code"],
            }
            for r in diagnostics
        ),
        key=lambda f: f["url"],
    )
    assert len(diagnostics) == 3
    assert meta(out, "collisions.json") == []
    assert no_temporaries(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "rows.jsonl",
        "rows.jsonl.summary.json",
        "tree",
    ], "nothing written outside the tree (and the feed)"
    assert sorted(p.name for p in (out / ".webmd").iterdir()) == [
        "collisions.json",
        "failed.json",
        "manifest.json",
    ]


def words(name: str) -> str:
    return f"<p>This is the {name} page. " + " ".join(f"{name}{i}" for i in range(30)) + "</p>"


def collision_site(root: Path, extra: dict[str, str] | None = None) -> None:
    """A site whose URLs collide (case, query) and reach odd names."""
    bodies = {
        "/Guide": "upper guide",
        "/guide": "lower guide",
        "/a?x=1": "first variant",
        "/a?x=2": "second variant",
        "/docs": "documentation",
        "/evil/page": "escape attempt",
        "/caf%C3%A9": "cafe",
        "/con": "console",
        "/a%2Fb": "encoded slash",
        **(extra or {}),
    }
    links = "".join(f'<a href="{path}">{path}</a> ' for path in bodies)
    root.mkdir(exist_ok=True)
    (root / "index.html").write_text(
        f"<html><head><title>Home</title></head><body>{words('home')}<nav>{links}</nav>"
        "</body></html>"
    )
    routes = {
        path: {"body": f"<html><head><title>{name}</title></head><body>{words(name)}</body></html>"}
        for path, name in ((p, b.replace(" ", "")) for p, b in bodies.items())
    }
    (root / "_routes.json").write_text(json.dumps(routes))
    stamp = (root / "_routes.json").stat().st_mtime + 5  # the server re-reads a changed file
    os.utime(root / "_routes.json", (stamp, stamp))


@deferred_f_from_coro_f
async def test_colliding_urls_symlinks_and_a_second_run(serve_site: Any, tmp_path: Path) -> None:
    site = tmp_path / "site"
    collision_site(site)
    server = serve_site(site)
    base = server.base_url
    out, outside = tmp_path / "tree", tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    (out / "evil").symlink_to(outside, target_is_directory=True)
    settings = {"WEBMD_OUT_DIR": str(out)}

    rows = await crawl(tmp_path / "run1", settings, start=base + "/")
    pages = {r["final_url"]: r for r in by_type(rows, "page")}
    assert len(pages) == 10, sorted(pages)
    plan = {
        f"{base}/": "index.md",
        f"{base}/Guide": "guide.md",
        f"{base}/guide": f"guide-{short(base + '/guide')}.md",
        f"{base}/a?x=1": "a.md",
        f"{base}/a?x=2": f"a-{short(base + '/a?x=2')}.md",
        f"{base}/docs": "docs.md",
        f"{base}/caf%C3%A9": "café.md",
        f"{base}/con": "con_.md",
        f"{base}/a%2Fb": "a-b.md",
    }
    assert page_files(out) == set(plan.values())
    for url, rel in plan.items():
        check_page_file(out, rel, pages[url])
    assert list(outside.iterdir()) == [], "the symlink inside the tree was not followed"
    assert meta(out, "collisions.json") == [
        {
            "path": "a.md",
            "url": f"{base}/a?x=2",
            "written_to": plan[f"{base}/a?x=2"],
            "kept_by": f"{base}/a?x=1",
        },
        {
            "path": "guide.md",
            "url": f"{base}/guide",
            "written_to": plan[f"{base}/guide"],
            "kept_by": f"{base}/Guide",
        },
    ]
    (blocked,) = meta(out, "failed.json")
    assert blocked["url"] == f"{base}/evil/page" and blocked["error_type"] == "unsafe-path"

    # Second run: /docs gains a child, the symlink is gone.
    (out / "evil").unlink()
    collision_site(site, {"/docs/intro": "introduction"})
    rows = await crawl(tmp_path / "run2", settings, start=base + "/")
    pages = {r["final_url"]: r for r in by_type(rows, "page")}
    plan |= {
        f"{base}/docs": "docs/index.md",
        f"{base}/docs/intro": "docs/intro.md",
        f"{base}/evil/page": "evil/page.md",
    }
    assert page_files(out) == set(plan.values())
    for url, rel in plan.items():
        check_page_file(out, rel, pages[url])
    assert meta(out, "failed.json") == []
    assert no_temporaries(out)
    assert {u: e["path"] for u, e in meta(out, "manifest.json")["pages"].items()} == plan


@deferred_f_from_coro_f
async def test_an_unusable_out_dir_stops_the_run_before_any_fetch(
    basic_site: SiteServer, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    before = len(basic_site.requests)
    with pytest.raises(OptionsError, match=r"out_dir: .*not a folder"):
        await crawl(tmp_path, {"WEBMD_OUT_DIR": str(blocker)}, start=basic_site.base_url + "/")
    assert len(basic_site.requests) == before


def test_cli_out_dir_argument(links_site: SiteServer, tmp_path: Path) -> None:
    out, feed = tmp_path / "md", tmp_path / "rows.jsonl"
    start = ("-a", f"start={links_site.base_url}/a/", "-a", "crawl_links=false")
    done = scrapy_crawl(*start, "-a", f"out_dir={out}", "-O", str(feed), *QUIET)
    assert done.returncode == 0, done.stderr[-2000:]
    (page,) = by_type(read_rows(feed), "page")
    assert page_files(out) == {"a.md"}
    check_page_file(out, "a.md", page)
    assert "Markdown tree" in done.stderr

    bad = scrapy_crawl(*start, "-a", f"out_dir={feed}", "-O", str(tmp_path / "x.jsonl"), *QUIET)
    assert bad.returncode != 0
    assert "Cannot write the Markdown tree" in bad.stderr and "not a folder" in bad.stderr


# -- the pipeline's routing (incremental rows), without a crawl --------------------------


class _Crawler:
    """What the pipeline reads from its crawler: stats, and the run context it is given."""

    stats = None


def pipeline(out: Path | None, removed: str = "delete") -> MarkdownTreePipeline:
    options = JobOptions(out_dir=str(out) if out else "", out_dir_removed=removed)
    crawler: Any = _Crawler()
    attach(crawler, RunContext(options=options))
    return MarkdownTreePipeline.from_crawler(crawler)


def page(path: str, markdown: str | None, change: str | None, **extra: Any) -> Row:
    url = f"https://example.com{path}"
    return page_row(
        url=extra.pop("url", url),
        final_url=url,
        title=path,
        markdown=markdown,
        content_hash=f"sha256:{markdown}",
        change=change,
        **extra,
    )


def test_without_out_dir_the_pipeline_is_not_configured(tmp_path: Path) -> None:
    # not configured: Scrapy leaves it out of the row path (nothing runs per row)
    with pytest.raises(NotConfigured):
        pipeline(None)
    assert list(tmp_path.iterdir()) == []


def test_pipeline_routes_new_unchanged_removed_and_failed_rows(tmp_path: Path) -> None:
    out = tmp_path / "tree"
    pipe = pipeline(out)
    for row in (page("/a", "A", "new"), page("/b/c", "C", "new"), page("/d", "D", None)):
        assert pipe.process_item(row) is row
    pipe.close_spider()
    assert page_files(out) == {"a.md", "b/c.md", "d.md"}
    before = (out / "a.md").stat()

    pipe = pipeline(out, removed="move")
    rows = [
        page("/a", None, "unchanged"),
        page("/d", "D2", "changed"),
        diagnostic_row("http-error", "gone", url="https://example.com/b/c", change="removed"),
        diagnostic_row("timeout", "slow", url="https://example.com/slow", status_code=None),
        page("/e", "E", "new", url="https://example.com/e-old"),
        site_row(website="example.com"),
        {"not": "a row"},
    ]
    for row in rows:
        assert pipe.process_item(row) is row
    pipe.close_spider()
    assert page_files(out) == {"a.md", "d.md", "e.md"}
    assert (out / "a.md").stat().st_mtime_ns == before.st_mtime_ns, "unchanged: not rewritten"
    assert parse(out / "d.md")[1] == "\nD2\n"
    assert (out / ".webmd" / "removed" / "b" / "c.md").is_file()
    assert not (out / "b").exists()
    assert meta(out, "failed.json") == [
        {
            "url": "https://example.com/slow",
            "error_type": "timeout",
            "error": "slow",
            "status_code": None,
        }
    ]
    entry = meta(out, "manifest.json")["pages"]["https://example.com/e"]
    assert entry["source_url"] == "https://example.com/e-old"

    # removals found through the alias (the URL as discovered) and from a page row
    pipe = pipeline(out)
    gone = "https://example.com/e-old"
    pipe.process_item(diagnostic_row("http-error", "gone", url=gone, change="removed"))
    pipe.process_item(page("/d", None, "removed"))
    pipe.close_spider()
    assert page_files(out) == {"a.md"}
