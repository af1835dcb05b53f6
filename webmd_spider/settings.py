"""Scrapy settings for webmd_spider.

The ``WEBMD_*`` settings are written from ``webmd_spider.options.setting_defaults()``,
the one place their defaults are defined. Each ``WEBMD_*`` setting is also a spider
argument with the lower-case name without the prefix (``-s WEBMD_MAX_PAGES=10`` is ``-a
max_pages=10``); ``webmd_spider.options`` validates both.
"""

from scrapy.settings import default_settings as _scrapy_defaults

from webmd_spider.options import setting_defaults

BOT_NAME = "webmd_spider"
SPIDER_MODULES = ["webmd_spider.spiders"]
NEWSPIDER_MODULE = "webmd_spider.spiders"

# --- identity ------------------------------------------------------------------
# An identifiable agent: the product token `webmd` is what robots.txt groups match.
USER_AGENT = "Mozilla/5.0 (compatible; webmd/0.1; +https://github.com/webmd-spider/webmd_spider)"

# --- safety and hygiene --------------------------------------------------------
# Scrapy 2.19 starts an HTTP server that executes Python unless this is off.
REMOTE_CONTROL_ENABLED = False
TELNETCONSOLE_ENABLED = False
FEED_EXPORT_ENCODING = "utf-8"
# The spider reads robots.txt itself (it is also the discovery probe) and filters
# every URL before scheduling it; Scrapy's middleware would fetch the file twice.
ROBOTSTXT_OBEY = False
# Error pages still become rows (`http-error` diagnostics), so let them through.
HTTPERROR_ALLOW_ALL = True
# Pages over 5 MB are `too-large` diagnostics; Scrapy checks Content-Length first and
# also caps decompression, so a gzip bomb costs at most this much.
DOWNLOAD_MAXSIZE = 5 * 1024 * 1024
DOWNLOAD_WARNSIZE = 2 * 1024 * 1024
# A page that has not arrived whole in 20 s is a `timeout` diagnostic (Scrapy's 180 s
# default lets a slow server hold a slot for minutes).
DOWNLOAD_TIMEOUT = 20
RETRY_TIMES = 1
REDIRECT_MAX_TIMES = 10
# robots.txt requests set redirect_ttl themselves (RFC 9309 section 2.3.1.2: follow at
# least five redirects, no more): not a key copied from a response by mistake, which
# is what Scrapy's MetaCopyDetectionMiddleware warns about. Inert while that middleware
# is off (SPIDER_MIDDLEWARES below); kept for a project that turns it back on.
META_COPY_WARN_SKIP_KEYS = ["redirect_ttl"]
COOKIES_ENABLED = False
# Names resolving to loopback/private/link-local... addresses are refused (SSRF guard).
TWISTED_DNS_RESOLVER = "webmd_spider.transport.resolver.GuardedResolver"
# The DNS servers it asks ("127.0.0.1:5353, 10.0.0.53"); empty: the system resolver.
# Not a WEBMD_* option: a resolver setting, read before any spider exists.
GUARDED_DNS_SERVERS = ""
METAREFRESH_ENABLED = True
# Scrapy's HTTP/1.1 handler with a cap on each response's header section (256 KiB,
# 1,000 lines): Twisted keeps every header line, so a server sending headers forever
# grew memory until DOWNLOAD_TIMEOUT. Over the cap: an `http-error` row.
DOWNLOAD_HANDLERS = {
    "http": "webmd_spider.transport.http_handler.CappedHTTP11DownloadHandler",
    "https": "webmd_spider.transport.http_handler.CappedHTTP11DownloadHandler",
}

# --- politeness ----------------------------------------------------------------
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 8
# DOWNLOAD_DELAY / DOWNLOAD_DELAY_JITTER are derived from WEBMD_HOST_DELAY by the spider
# (unless given on the command line); AutoThrottle never goes below DOWNLOAD_DELAY.
DOWNLOAD_DELAY = 0.425
DOWNLOAD_DELAY_JITTER = 0.41
# 429 and 503 are handled by the politeness middleware (Retry-After, backoff, give up).
RETRY_HTTP_CODES = [500, 502, 504, 522, 524, 408]
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 0.5
AUTOTHROTTLE_MAX_DELAY = 10.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 4.0

# --- scheduling: breadth-first, shallowest first ---------------------------------
# Requests carry priority -depth; FIFO queues inside one priority keep discovery order.
SCHEDULER_DISK_QUEUE = "scrapy.squeues.PickleFifoDiskQueue"
SCHEDULER_MEMORY_QUEUE = "scrapy.squeues.FifoMemoryQueue"
# Dedup on our canonical URL (tracking parameters, default port, fragment, query order).
REQUEST_FINGERPRINTER_CLASS = "webmd_spider.transport.fingerprint.CanonicalUrlFingerprinter"
# Every response otherwise starts 100 item tasks on the asyncio reactor; a page yields
# a handful of items, and fewer tasks measurably cut CPU (scrapy/scrapy#5182). Not
# fewer than 16: a callback's outputs reach those tasks through a queue of 2 x
# CONCURRENT_ITEMS, and the engine takes the next request between two fillings of it.
# With fewer, a page's links reach the scheduler in small batches (their priorities,
# content before index pages, no longer order them) and a large page's links are still
# being read when a budget ends the run (tests/spiders/test_index_order.py,
# test_content_checks.py). CONCURRENT_ITEMS = 1 would take 12 % of the instructions
# off an unchanged page's 304.
CONCURRENT_ITEMS = 16

# --- components ------------------------------------------------------------------
# per-slot concurrency (a website's max_concurrency) enforced: see transport/downloader.py
DOWNLOADER = "webmd_spider.transport.downloader.SlotLimitedDownloader"
# Gives back the requests waiting in its memory queues when a website stops
# (transport/scheduler.py); a distributed crawl uses distributed.FleetScheduler. With
# another scheduler or downloader, a stopped website's queued requests come out one by
# one and the budget middleware refuses each (the same rows, more work).
SCHEDULER = "webmd_spider.transport.scheduler.TakingScheduler"
DOWNLOADER_MIDDLEWARES = {
    "webmd_spider.downloadermiddlewares.budget.BudgetMiddleware": 50,
    "webmd_spider.downloadermiddlewares.ssrf.SsrfGuardMiddleware": 55,
    "webmd_spider.downloadermiddlewares.redirect_guard.RedirectGuardMiddleware": 60,
    # If-None-Match / If-Modified-Since for pages known to the incremental state
    "webmd_spider.downloadermiddlewares.conditional.ConditionalRequestMiddleware": 70,
    # below RetryMiddleware (550) so it sees 429/503 before Scrapy would retry them
    "webmd_spider.downloadermiddlewares.politeness.PolitenessMiddleware": 560,
    # Scrapy's, skipped for pages without the word "refresh" (see the module)
    "scrapy.downloadermiddlewares.redirect.MetaRefreshMiddleware": None,
    "webmd_spider.downloadermiddlewares.meta_refresh.FastMetaRefreshMiddleware": 580,
    # The spider has no allowed_domains: what is in scope is ours to decide
    # (policy/scope.py, before a request is made), and Scrapy's check would allow every
    # request, twice (on request_scheduled and here), parsing its URL each time.
    "scrapy.downloadermiddlewares.offsite.OffsiteMiddleware": None,
    # Scrapy's counts without re-serialising every request to count its bytes
    "scrapy.downloadermiddlewares.stats.DownloaderStats": None,
    "webmd_spider.transport.stats.CountingDownloaderStats": 850,
}
# Depth is ours (`max_depth`, the shortest link distance from the start URLs, in the
# request's `webmd_depth`); Scrapy's DepthMiddleware would only count it a second time,
# on every request the spider yields. So is URL length: TrapPolicy.max_url_length
# (2,000) refuses longer URLs as a counted rejection before UrlLengthMiddleware's 2,083
# would drop them without a trace. Off, it cannot drop a link a page of a resumable
# crawl waits for (state/completion.py).
# MetaCopyDetectionMiddleware compares the meta of every request a callback yields with
# its response's, to warn about meta copied wholesale: a development aid whose check
# runs per yielded request (about 1 % of an unchanged page's 304); the frontier builds
# every request's meta itself (spiders/frontier.py).
SPIDER_MIDDLEWARES = {
    "scrapy.spidermiddlewares.depth.DepthMiddleware": None,
    "scrapy.spidermiddlewares.urllength.UrlLengthMiddleware": None,
    "scrapy.spidermiddlewares.metacopy.MetaCopyDetectionMiddleware": None,
}
# plain attribute access on the stats (transport/stats.py)
STATS_CLASS = "webmd_spider.transport.stats.FastStatsCollector"
EXTENSIONS = {
    "webmd_spider.extensions.progress.ProgressLog": 500,
    "webmd_spider.extensions.run_summary.RunSummary": 510,
    "webmd_spider.extensions.resume.ResumeJournal": 520,
    "webmd_spider.extensions.parent_watch.ParentWatch": 530,
}
# Scrapy's own extensions without the remote-control and telnet consoles: both are off
# above, and never wanted in this project (each runs code sent over a socket), but
# Scrapy imports every listed extension, even one set to None, to read its priority;
# aiohttp, which the remote control imports, alone costs every run ~110 ms of CPU.
EXTENSIONS_BASE = {
    **{
        name: priority
        for name, priority in _scrapy_defaults.EXTENSIONS_BASE.items()
        if name
        not in (
            "scrapy.extensions.remote_control.RemoteControl",
            "scrapy.extensions.telnet.TelnetConsole",
        )
    },
    # RFC 9309 §2.5: a robots.txt of any size is read up to the parse limit. In the base
    # set, with the crawl's own machinery: a user's -s EXTENSIONS=... replaces EXTENSIONS
    # and must not take this away (a large robots.txt would make a website unreachable).
    "webmd_spider.extensions.robots_body.RobotsBodyLimit": 530,
}
# Rows reach the feed file as they are exported (no 8 KB buffer lost to a kill -9).
FEED_STORAGES = {
    "": "webmd_spider.feeds.storage.DurableFileFeedStorage",
    "file": "webmd_spider.feeds.storage.DurableFileFeedStorage",
}
# JSON lines rows written without Scrapy's per-field serializer calls, encoded by orjson.
FEED_EXPORTERS = {
    "jsonl": "webmd_spider.feeds.exporters.RowJsonLinesExporter",
    "jsonlines": "webmd_spider.feeds.exporters.RowJsonLinesExporter",
}
ITEM_PIPELINES = {
    "webmd_spider.pipelines.markdown_tree.MarkdownTreePipeline": 400,
    "webmd_spider.pipelines.single_files.SingleFilesPipeline": 410,
    "webmd_spider.pipelines.chunk_sync.ChunkSyncPipeline": 420,
}

LOG_LEVEL = "INFO"
# no per-page DEBUG records built only to be dropped at INFO (extensions/quiet_log.py)
LOG_FORMATTER = "webmd_spider.extensions.quiet_log.QuietLogFormatter"

# --- webmd_spider options -------------------------------------------------------
# Every WEBMD_* setting with its default, written from the one definition of the
# defaults, webmd_spider.options.JobOptions (where each option is described). Each is
# also a spider argument: -s WEBMD_MAX_PAGES=10 is -a max_pages=10.
globals().update(setting_defaults())
