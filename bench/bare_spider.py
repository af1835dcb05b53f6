"""Reference spiders for ``bench/crawl.py``: plain Scrapy, none of the project's code.

    python bench/bare_spider.py URL [--concurrent-items N] [--extract trafilatura] [-o FEED]

* no ``--extract``: a ``SitemapSpider`` that reads ``URL/robots.txt``, follows its
  ``Sitemap:`` lines (sitemap index and children) and fetches every listed page with a
  callback that does nothing: Scrapy's own ceiling on this machine;
* ``--extract items``: the same spider, and each page is one item, ``{"url", "html"}``
  (the decoded page), written to ``-o FEED``: what Scrapy's item path and feed export
  cost with no extraction at all (one item per page, as our crawl yields);
* ``--extract trafilatura``: the same spider, and each page goes through
  ``trafilatura.extract(html, url=..., output_format="markdown", with_metadata=True,
  include_tables=True)``; one JSONL row per page (url, markdown) goes to ``-o FEED``.
  Needs a Python with both Scrapy and trafilatura (``.bench-venv2``, never the
  project's ``.venv``).

Settings are the ones the project's ``site`` spider runs with when politeness floors
are off (``WEBMD_HOST_DELAY=0``, AutoThrottle off, 8 requests per website, so 8 in
all for one website): same concurrency, timeouts, retries, size limit, user agent and
the default (asyncio) reactor; Scrapy's own default components otherwise. The project's
settings module is never loaded (the script is not run through ``scrapy crawl``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# bench/ holds incremental.py, which would shadow Twisted's `incremental` dependency
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from scrapy.crawler import CrawlerProcess  # noqa: E402
from scrapy.http import Response  # noqa: E402
from scrapy.spiders import SitemapSpider  # noqa: E402

#: What the ``site`` spider runs with for one website with the benchmark's flag set.
BASE_SETTINGS: dict[str, Any] = {
    "USER_AGENT": "Mozilla/5.0 (compatible; webmd/0.1; +https://github.com/webmd-spider/webmd_spider)",
    "REMOTE_CONTROL_ENABLED": False,
    "TELNETCONSOLE_ENABLED": False,
    "ROBOTSTXT_OBEY": False,
    "CONCURRENT_REQUESTS": 8,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
    "DOWNLOAD_DELAY": 0,
    "AUTOTHROTTLE_ENABLED": False,
    "DOWNLOAD_MAXSIZE": 5 * 1024 * 1024,
    "DOWNLOAD_WARNSIZE": 2 * 1024 * 1024,
    "DOWNLOAD_TIMEOUT": 20,
    "RETRY_TIMES": 1,
    "REDIRECT_MAX_TIMES": 10,
    "COOKIES_ENABLED": False,
    "HTTPERROR_ALLOW_ALL": True,
    "FEED_EXPORT_ENCODING": "utf-8",
    "LOG_LEVEL": "INFO",
    "CONCURRENT_ITEMS": 16,
}


class BareSpider(SitemapSpider):
    """Every sitemap page fetched, nothing done with it."""

    name = "bare"

    def __init__(self, root: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sitemap_urls = [root.rstrip("/") + "/robots.txt"]

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Any]:
        return iter(())


class ItemSpider(BareSpider):
    """Every sitemap page as one item of about a page's size, nothing else."""

    name = "items"

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Any]:
        yield {"url": response.url, "html": response.text}


class TrafilaturaSpider(BareSpider):
    """Every sitemap page through trafilatura's Markdown extraction, one row each."""

    name = "trafilatura"

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Any]:
        import trafilatura  # only in the bench venv

        markdown = trafilatura.extract(
            response.text,
            url=response.url,
            output_format="markdown",
            with_metadata=True,
            include_tables=True,
        )
        yield {"url": response.url, "markdown": markdown}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", help="site root, e.g. http://127.0.0.1:8000/")
    parser.add_argument("--concurrent-items", type=int, default=16)
    parser.add_argument("--extract", choices=["none", "items", "trafilatura"], default="none")
    parser.add_argument("-o", "--output", help="JSONL feed (trafilatura rows)")
    parser.add_argument("--log-level", default="INFO")
    args = parser.parse_args(argv)
    settings = dict(BASE_SETTINGS, CONCURRENT_ITEMS=args.concurrent_items, LOG_LEVEL=args.log_level)
    if args.output:
        settings["FEEDS"] = {args.output: {"format": "jsonl", "overwrite": True}}
    spider = {"none": BareSpider, "items": ItemSpider, "trafilatura": TrafilaturaSpider}[
        args.extract
    ]
    process = CrawlerProcess(settings, install_root_handler=True)
    process.crawl(spider, root=args.root)
    process.start()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
