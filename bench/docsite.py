"""Serve a folder of real documentation (a Debian doc package) on 127.0.0.1 as a
website: a copy with a generated robots.txt and sitemap index, served by the project's
own SiteServer (which sends ETag/Last-Modified and answers conditional requests).

Used by the crawl benchmarks; run alone it prints the URL and serves until Ctrl-C::

    .venv/bin/python bench/docsite.py /usr/share/doc/postgresql-doc-15/html
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from webmd_spider.demo.server import SiteServer

POSTGRES_DOCS = Path("/usr/share/doc/postgresql-doc-15/html")
SITEMAP_CHUNK = 500  # URLs per child sitemap: exercises the sitemap index


def prepare_site(source: Path, dest: Path) -> list[str]:
    """Copy ``source``'s HTML (and its CSS/images) into ``dest`` with a robots.txt and a
    sitemap index; return the page paths (``/name.html``)."""
    shutil.copytree(source, dest, dirs_exist_ok=True, symlinks=False)
    pages = sorted("/" + p.relative_to(dest).as_posix() for p in dest.rglob("*.html"))
    children = []
    for number, start in enumerate(range(0, len(pages), SITEMAP_CHUNK)):
        name = f"sitemap-{number}.xml"
        body = "".join(
            f"<url><loc>{{{{origin}}}}{path}</loc></url>"
            for path in pages[start : start + SITEMAP_CHUNK]
        )
        (dest / name).write_text(
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</urlset>'
        )
        children.append(name)
    index = "".join(f"<sitemap><loc>{{{{origin}}}}/{c}</loc></sitemap>" for c in children)
    (dest / "sitemap.xml").write_text(
        f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{index}</sitemapindex>'
    )
    (dest / "robots.txt").write_text("User-agent: *\nAllow: /\nSitemap: {{origin}}/sitemap.xml\n")
    if not (dest / "index.html").exists() and pages:
        (dest / "index.html").write_text(
            "<html><body>" + "".join(f'<a href="{p}">{p}</a>' for p in pages) + "</body></html>"
        )
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", nargs="?", type=Path, default=POSTGRES_DOCS)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        pages = prepare_site(args.source, Path(tmp))
        with SiteServer(Path(tmp)) as server:
            print(f"{len(pages)} pages at {server.base_url}/", file=sys.stderr)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
