"""llms.txt a reader can use (issue 31 item 3): the H1 is the site's name, the
blockquote the home page's description, index-like pages (generated indexes, search
pages, listings) are listed under ``## Optional``, never as a run of identical titles.

On plain data (``rows.single_files``) and on a real crawl of a local Sphinx-like site
with generated index pages (``-a llms_txt=DIR``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer
from webmd_spider.rows.single_files import llms_index, site_name

from ..crawling import by_type, crawl_with_stats, write_site
from ..rows.test_single_files import BASE, entry, parse_llms

Serve = Callable[[Path], SiteServer]
SUFFIX = " \u2014 Python 3.11.2 documentation"
LETTERS = "ABCDEFGH"


def python_docs_heads() -> list[Any]:
    """What a crawl of the Python docs' root gives: a home titled without the site's
    name and no site_name, content pages whose titles end with it, generated indexes."""
    heads = [
        entry("/", title="3.11.2 Documentation", description="The official Python docs."),
        entry("/library/os.html", title=f"os \u2014 Operating system interfaces{SUFFIX}"),
        entry("/tutorial/index.html", title=f"The Python Tutorial{SUFFIX}"),
    ]
    for letter in LETTERS:
        heads.append(entry(f"/genindex-{letter}.html", title=f"Index{SUFFIX}", index_like=True))
    heads.append(entry("/search.html", title=f"Search{SUFFIX}", index_like=True))
    return heads


def labels(parsed: Any) -> list[str]:
    return [title for links in parsed.sections.values() for title, _, _ in links]


def test_the_h1_is_the_site_name_the_titles_share_and_indexes_are_optional() -> None:
    parsed = parse_llms(llms_index(python_docs_heads()))
    assert parsed.title == "Python 3.11.2 documentation"
    assert parsed.summary == "The official Python docs."
    # index pages last, under Optional; every other section holds none
    assert list(parsed.sections)[-1] == "Optional"
    optional = [url for _, url, _ in parsed.sections["Optional"]]
    assert optional == [f"{BASE}/genindex-{x}.html" for x in LETTERS] + [f"{BASE}/search.html"]
    for name, links in parsed.sections.items():
        if name != "Optional":
            assert not any("genindex" in url or "search" in url for _, url, _ in links)
    # titles without the site's name, and no two lines read the same
    assert len(set(labels(parsed))) == len(labels(parsed))
    assert "os \u2014 Operating system interfaces" in labels(parsed)
    assert "Index (genindex-A.html)" in labels(parsed)
    assert not any(label.endswith("documentation") for label in labels(parsed)[1:])


def test_where_the_site_name_comes_from() -> None:
    # og:site_name of the home page first, then the one the pages give
    assert site_name([entry("/", site_name="Acme"), entry("/a", site_name="Other")]) == "Acme"
    assert site_name([entry("/"), entry("/a", site_name="Acme"), entry("/b")]) == "Acme"
    # the suffix the titles share (two at least, and half of them)
    shared = [
        entry("/", title="Welcome"),
        entry("/a", title="A | Acme"),
        entry("/b", title="B | Acme"),
    ]
    assert site_name(shared) == "Acme"
    # else the home page's title without its suffix, else the host
    assert site_name([entry("/", title="Acme Docs - Welcome")]) == "Acme Docs"
    assert site_name([entry("/", title=None)]) == "docs.example.com"


def test_the_home_page_is_never_optional_and_one_title_is_not_a_run() -> None:
    heads = [
        entry("/", title="Home", index_like=True),  # a landing page of links
        entry("/tags/", title="Tags", index_like=True),
        entry("/a.html", title="Same"),
        entry("/b/a.html", title="Same"),
    ]
    parsed = parse_llms(llms_index(heads))
    assert parsed.sections["Pages"][0][1] == BASE + "/"
    assert [url for _, url, _ in parsed.sections["Optional"]] == [BASE + "/tags/"]
    # two pages with one title: each line says which
    assert labels(parsed) == ["Home", "Same (a.html)", "Same (b/a.html)", "Tags"]


def index_page(letter: str, targets: list[str]) -> str:
    """A Sphinx-like generated index: a long list of short links to the pages."""
    entries = "".join(
        f'<li><a href="{target}#{letter}{n}">{letter.lower()}{n}()</a> '
        f'<a href="{target}#m{n}">(module)</a></li>'
        for n in range(12)
        for target in targets
    )
    return (
        f"<html><head><title>Index{SUFFIX}</title></head><body>"
        f'<div class="body" role="main"><h1>Index \u2013 {letter}</h1><ul>{entries}</ul></div>'
        "</body></html>"
    )


def doc_page(title: str, description: str, *links: str, head: str = "") -> str:
    prose = " ".join(f"{title} explains point {i} in a full sentence of prose." for i in range(15))
    anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
    return (
        f'<html><head><title>{title}{SUFFIX}</title><meta name="description" '
        f'content="{description}">{head}</head><body><nav><ul>{anchors}</ul></nav>'
        f'<div class="body" role="main"><h1>{title}</h1><p>{prose}</p></div></body></html>'
    )


@deferred_f_from_coro_f
async def test_llms_txt_of_a_crawl_with_generated_index_pages(
    serve_site: Serve, tmp_path: Path
) -> None:
    content = ["/library/os.html", "/library/sys.html", "/tutorial/intro.html"]
    indexes = [f"/genindex-{x}.html" for x in "ABC"]
    files = {
        # the home page's <title> does not carry the site's name (as docs.python.org)
        "index.html": doc_page(
            "Welcome", "The handbook of the example.", *content, *indexes
        ).replace(f"Welcome{SUFFIX}", "3.11.2 Documentation"),
        "library/os.html": doc_page("os", "Operating system interfaces.", "/"),
        "library/sys.html": doc_page("sys", "System parameters.", "/"),
        "tutorial/intro.html": doc_page("Introduction", "Start here.", "/"),
        **{p.lstrip("/"): index_page(p[-6], content) for p in indexes},
    }
    server = serve_site(write_site(tmp_path / "site", files))
    llms = tmp_path / "llms"
    rows, _ = await crawl_with_stats(tmp_path, start=server.url("/"), llms_txt=str(llms))
    written = {r["final_url"] for r in by_type(rows, "page")}
    assert written == {server.url(p) for p in ["/", *content, *indexes]}
    parsed = parse_llms((llms / "llms.txt").read_text("utf-8"))
    assert parsed.title == "Python 3.11.2 documentation"
    assert parsed.summary == "The handbook of the example."
    assert sorted(url for _, url, _ in parsed.sections["Optional"]) == [
        server.url(p) for p in indexes
    ]
    assert list(parsed.sections)[-1] == "Optional"
    titles = labels(parsed)
    assert len(set(titles)) == len(titles), titles  # never a run of identical titles
    assert "os" in titles
