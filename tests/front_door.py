"""A small documentation site for the front-door tests (``webmd crawl``, the Python
API): a home page, two documentation pages (one long enough for several chunks), a
blog post, a chain of deeper pages and a sitemap that lists only some of them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .crawling import write_site

#: the installed console script, run from a folder outside the checkout
WEBMD = str(Path(sys.executable).with_name("webmd"))

_WORDS = (
    "The harbor queue keeps every job in order and retries the ones that fail, so a "
    "worker that stops halfway never loses the message it was given."
)


def _page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title>"
        f"<meta name='description' content='About {title.lower()}.'></head><body>"
        "<nav><a href='/'>Home</a> <a href='/docs/guide.html'>Guide</a></nav>"
        f"<main><h1>{title}</h1>{body}</main>"
        "<footer><p>Copyright the harbor team.</p></footer></body></html>"
    )


def _prose(n: int) -> str:
    return "".join(f"<p>{_WORDS} Paragraph {i}.</p>" for i in range(n))


def write_front_site(root: Path) -> Path:
    """Write the site under ``root`` and return it (serve it with ``serve_site``)."""
    # every paragraph of the guide carries its own marker (s<section>p<paragraph>), so
    # a test can see which paragraphs two chunks share
    sections = "".join(
        f"<h2>Section {i}</h2>" + "".join(f"<p>{_WORDS} Marker s{i}p{j}.</p>" for j in range(4))
        for i in range(8)
    )
    home_links = "".join(
        f"<li><a href='{href}'>{href}</a></li>"
        for href in ("/docs/guide.html", "/docs/install.html", "/blog/news.html", "/deep/1.html")
    )
    files = {
        "robots.txt": "User-agent: *\nAllow: /\nSitemap: {{origin}}/sitemap.xml\n",
        "sitemap.xml": (
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            "<url><loc>{{origin}}/</loc></url>"
            "<url><loc>{{origin}}/docs/guide.html</loc></url></urlset>"
        ),
        "index.html": _page("Harbor Queue", _prose(2) + f"<ul>{home_links}</ul>"),
        "docs/guide.html": _page("Guide", sections),
        "docs/install.html": _page(
            "Install", _prose(3) + "<pre><code>pip install harbor</code></pre>"
        ),
        "blog/news.html": _page("News", _prose(3)),
        "deep/1.html": _page("Deep one", _prose(2) + "<p><a href='/deep/2.html'>next</a></p>"),
        "deep/2.html": _page("Deep two", _prose(2) + "<p><a href='/deep/3.html'>next</a></p>"),
        "deep/3.html": _page("Deep three", _prose(2)),
    }
    return write_site(root, files)


def run_webmd(*args: str, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """``webmd ARGS`` as a user types it, in ``cwd`` (outside the checkout)."""
    env = {k: v for k, v in os.environ.items() if k != "SCRAPY_SETTINGS_MODULE"}
    return subprocess.run(
        [WEBMD, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
        check=False,
    )  # fmt: skip
