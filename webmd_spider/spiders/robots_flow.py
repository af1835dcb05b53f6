"""robots.txt of each website: the request, its answer or failure, the retry of an
unavailable file, and the website's Crawl-delay.

For a bare domain the robots.txt request is also the probe of the discovery ladder
(https://host, https://www.host, http://host: ``urls.discovery_candidates``). Its body
is read up to the parse limit (``MAX_ROBOTS_BYTES``, ``extensions/robots_body.py``) and
cut there, whatever its size; a redirect to another website gives the rules (RFC 9309
§2.3.1.2), while the website, its root and its sitemaps stay on the input's host
(``responses.robots_root``). Once the rules are known the website begins (the
``begin`` callable: the spider schedules its pages and starts discovery). A website
that joined the crawl through a link (``follow_subdomains``, ``added``) begins the same
way; when it cannot be crawled, the links that waited for it are counted as not fetched
(``SubdomainSites.drop``).

Failing fast (issue 31): a probe that fails below HTTP names its cause
(``downloadermiddlewares/network_causes.py``: no such host, nothing listening on the
port, plain HTTP answering TLS). The ladder then skips the candidates that cannot
answer either (the same unresolvable name, the same refusing port) and moves on, so a
start typed without a scheme on a plain-HTTP port is crawled over ``http://`` (the
scheme used is logged and kept in the run summary's warnings). When no candidate
answers the website stops at once with a diagnostic row naming the cause: RFC 9309
§2.3.1.4 makes a robots.txt unreachable through network errors complete disallow, and a
host that does not resolve or refuses connections is down for this run. Only a
robots.txt that answers 5xx (or 429) is asked again later in the run (``_retry_later``):
the server is there and may recover.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.http import Response
from twisted.internet.base import DelayedCall
from twisted.python.failure import Failure

from webmd_spider.downloadermiddlewares.network_causes import network_cause
from webmd_spider.items import Row, diagnostic_row
from webmd_spider.options import JobOptions
from webmd_spider.policy.robots import RobotsRules
from webmd_spider.rows.ledger import RunLedger, SiteState
from webmd_spider.spiders.failures import classify_fetch_failure
from webmd_spider.spiders.recorder import RowRecorder
from webmd_spider.spiders.responses import robots_root, root_of
from webmd_spider.spiders.sitemap_discovery import ROBOTS_MAX_REDIRECTS
from webmd_spider.spiders.startup import call_later
from webmd_spider.spiders.subdomains import SubdomainSites
from webmd_spider.urls import StartInput, moved_to_root

logger = logging.getLogger("webmd_spider.spiders.site")

PRIORITY_ROBOTS = 1000
#: A robots.txt retry is only worth it when the site then still has this long to crawl.
ROBOTS_RETRY_MARGIN_SECS = 10.0

#: ``begin(site, rules, pages)``: the website's rules are known, start crawling it
Begin = Callable[[SiteState, RobotsRules, list[StartInput]], Iterator[Any]]


class RobotsFlow:
    """Fetches each website's robots.txt and begins the website with its rules."""

    def __init__(
        self,
        options: JobOptions,
        ledger: RunLedger,
        recorder: RowRecorder,
        robots: dict[str, RobotsRules],
        crawl_delays: dict[str, float],
        callbacks: tuple[Callable[..., Any], Callable[..., Any]],
        begin: Begin,
        crawler: Crawler | None,
        subdomains: SubdomainSites | None = None,
    ) -> None:
        self.options = options
        self.ledger = ledger
        self.recorder = recorder
        #: the rules per website (the run context's, read by the middlewares)
        self.robots = robots
        #: robots.txt Crawl-delay per website, read by the politeness middleware
        self.crawl_delays = crawl_delays
        # spider methods, which a JOBDIR queue stores by name
        self._callback, self._errback = callbacks
        self._begin = begin
        self.crawler = crawler
        #: follow_subdomains (else None): the links waiting for a website's rules
        self.subdomains = subdomains
        #: robots.txt files to be asked again later in the run (their timers)
        self.retries: set[DelayedCall] = set()

    def request(
        self,
        site: SiteState,
        candidates: list[str],
        pages: list[StartInput],
        tried: list[str] | None = None,
    ) -> Request:
        """The robots.txt request of ``site`` at the first of its root ``candidates``;
        ``tried`` says why the candidates before it failed (``root: cause``)."""
        return Request(
            candidates[0] + "robots.txt",
            callback=self._callback,
            errback=self._errback,
            dont_filter=True,
            priority=PRIORITY_ROBOTS,
            # uncompressed, so that a file past the parse limit is cut on the wire: a
            # compressed one may inflate only to DOWNLOAD_MAXSIZE (then `too-large`)
            headers={"Accept-Encoding": "identity"},
            meta={
                "webmd_site": site.website,
                "webmd_kind": "robots",
                "webmd_candidates": candidates,
                "webmd_pages": pages,
                "webmd_tried": tried or [],
                "download_slot": site.website,
                # RFC 9309 §2.3.1.2: follow at least five consecutive redirects
                "redirect_ttl": ROBOTS_MAX_REDIRECTS,
                # the body is cut at MAX_ROBOTS_BYTES (extensions/robots_body.py): no warning
                # for a large one
                "download_warnsize": 0,
            },
        )

    def added(self, site: SiteState) -> None:
        """Ask the robots.txt of a website a link added to the crawl (follow_subdomains)
        at its root: the scheme of that link, no probe. Handed to the engine, not
        yielded from the page's callback: Scrapy's MetaCopyDetectionMiddleware (off in
        settings.py, but a project may turn it on) warns about a callback's request
        carrying ``redirect_ttl``, set here on purpose."""
        assert site.root is not None
        assert self.crawler is not None and self.crawler.engine is not None
        self.crawler.engine.crawl(self.request(site, [site.root], []))

    def answered(self, response: Response) -> Iterator[Any]:
        """robots.txt answered: record the rules and the site root, then begin the site."""
        site = self.ledger.sites[response.meta["webmd_site"]]
        pages: list[StartInput] = response.meta["webmd_pages"]
        site.root = robots_root(site.website, response)
        tried: list[str] = response.meta.get("webmd_tried") or []
        if tried:
            # the ladder moved on: say which scheme (and host) the website is crawled at
            message = f"{site.website}: crawling {site.root} ({'; '.join(tried)})"
            logger.info(message)
            self.ledger.warn(message)
        if self.options.respect_robots:
            rules = RobotsRules.from_response(
                response.status, response.body, self.options.robots_token
            )
        else:
            rules = RobotsRules.allow_all()
        if rules.policy == "disallow-all":
            # RFC 9309 §2.3.1.4: an unreachable robots.txt (5xx) means complete disallow,
            # for now: it is asked again once later in the run.
            why = f"HTTP {response.status}"
            if self._retry_later(site, site.root + "robots.txt", pages, why):
                return
            site.stop_reason = "robots_unavailable"
            message = (
                f"robots.txt answered HTTP {response.status}; RFC 9309 treats the whole "
                "website as disallowed until it answers"
            )
            yield from self._fail_site(
                site, response.url, pages, "blocked", message, response.status
            )
            return
        yield from self._rules_known(site, rules, pages)

    def failed(self, failure: Failure) -> Iterator[Any]:
        """robots.txt fetch failed: try the next ladder candidate, else report the site."""
        request = failure.request  # type: ignore[attr-defined]
        site = self.ledger.sites[request.meta["webmd_site"]]
        pages: list[StartInput] = request.meta["webmd_pages"]
        if request.meta.get("webmd_rejected"):
            for page in pages:
                self.ledger.skip(page.url or page.raw, request.meta["webmd_rejected"], site.website)
            if self.subdomains is not None:
                self.subdomains.drop(site, request.meta["webmd_rejected"])
            return
        stats = self.crawler.stats if self.crawler is not None else None
        error_type, message = classify_fetch_failure(failure, stats)
        if error_type == "http-error" and "redirects" in message:
            # RFC 9309 §2.3.1.2: past five redirects the file may be taken as unavailable,
            # which §2.3.1.3 treats like a 4xx: everything is allowed.
            site.root = root_of(request.meta.get("redirect_urls", [request.url])[0])
            yield from self._rules_known(
                site, RobotsRules.allow_all(self.options.robots_token), pages
            )
            return
        candidates: list[str] = request.meta["webmd_candidates"][1:]
        tried: list[str] = [
            *request.meta.get("webmd_tried", ()),
            f"{root_of(request.url)}: {message}",
        ]
        cause = network_cause(failure.value, request.url)
        if cause is not None:
            # a name that does not resolve, a port that refuses: the same elsewhere
            candidates = [c for c in candidates if not cause.rules_out(c + "robots.txt")]
        if candidates:
            yield self.request(site, candidates, pages, tried)
            return
        # No robots.txt retry later: the host did not answer at all (RFC 9309 §2.3.1.4:
        # unreachable means complete disallow), so the website stops now, its row naming
        # the cause; only an answered 5xx is asked again (`answered`).
        site.stop_reason = "unreachable"
        if len(tried) > 1:
            others = ", ".join(t.split(": ", 1)[0] for t in tried[:-1])
            message = f"{message} (also tried {others})"
        logger.warning("%s: could not reach the website: %s", site.website, message)
        yield from self._fail_site(
            site, request.url, pages, error_type, f"could not reach the website: {message}"
        )

    def cancel(self) -> None:
        """The spider closes: no robots.txt is asked again."""
        for timer in self.retries:
            if timer.active():
                timer.cancel()
        self.retries.clear()

    def _rules_known(
        self, site: SiteState, rules: RobotsRules, pages: list[StartInput]
    ) -> Iterator[Any]:
        self.robots[site.website] = rules
        if site.root is not None:
            # pages typed without a scheme go where the website answered (http:// when
            # its https:// probe met plain HTTP)
            pages = [moved_to_root(page, site.root) for page in pages]
        yield from self._apply_crawl_delay(site, rules)
        yield from self._begin(site, rules, pages)

    def _apply_crawl_delay(self, site: SiteState, rules: RobotsRules) -> Iterator[Row]:
        """Crawl-delay (not in RFC 9309, widely used) becomes the website's minimum
        interval; one over max_crawl_delay allows a single page, with a diagnostic."""
        delay = rules.crawl_delay()
        if not delay:
            return
        limit = self.options.max_crawl_delay
        self.crawl_delays[site.website] = min(delay, limit)
        if delay > limit:
            site.page_limit = 1
            message = (
                f"robots.txt asks for {delay:g} s between requests (max_crawl_delay is "
                f"{limit:g} s): one page is fetched, the rest of the website is skipped"
            )
            logger.warning("%s: %s", site.website, message)
            self.ledger.warn(f"{site.website}: {message}")
            yield self.recorder.record(
                diagnostic_row(
                    "blocked", message, input=site.input, website=site.website, url=site.root
                )
            )

    def _retry_later(
        self, site: SiteState, robots_url: str, pages: list[StartInput], why: str
    ) -> bool:
        """Ask an unavailable robots.txt once more later in the run (RFC 9309 §2.3.1.4:
        disallow all while unreachable); False when that does not fit the budget."""
        wait = self.options.robots_retry_secs
        remaining = self.options.max_run_secs - self.ledger.elapsed()
        if site.robots_retries >= 1 or wait <= 0 or wait + ROBOTS_RETRY_MARGIN_SECS > remaining:
            return False
        site.robots_retries += 1
        if self.crawler is not None and self.crawler.stats is not None:
            self.crawler.stats.inc_value("webmd/robots_retries")  # counted: tests read it
        root = root_of(robots_url)
        message = f"{site.website}: robots.txt unavailable ({why}); asking again in {wait:g} s"
        logger.warning(message)
        self.ledger.warn(message)

        def again() -> None:
            self.retries.discard(timer)
            assert self.crawler is not None and self.crawler.engine is not None
            self.crawler.engine.crawl(self.request(site, [root], pages))

        timer = call_later(wait, again)
        self.retries.add(timer)
        return True

    def _fail_site(
        self,
        site: SiteState,
        url: str,
        pages: list[StartInput],
        error_type: str,
        message: str,
        status: int | None = None,
    ) -> Iterator[Row]:
        """One diagnostic for the website and one for each page the user typed on it;
        the links that waited for it are not fetched."""
        if self.subdomains is not None:
            self.subdomains.drop(site, site.stop_reason or error_type)
        yield self.recorder.record(
            diagnostic_row(
                error_type,
                message,
                input=site.input,
                website=site.website,
                url=url,
                status_code=status,
            )
        )
        for page in pages:
            yield self.recorder.record(
                diagnostic_row(
                    error_type,
                    message,
                    input=page.raw,
                    website=site.website,
                    url=page.url,
                    depth=0,
                    discovered_via="input",
                )
            )
