"""Scrapy settings for webmd_spider, and every WEBMD_* default in one place.

Imports nothing from the project (only Scrapy's own defaults, to trim one of them).
Each ``WEBMD_*`` setting is also a spider argument with the lower-case name without the
prefix (``-s WEBMD_MAX_PAGES=10`` is ``-a max_pages=10``); ``webmd_spider.options``
validates both.
"""

from scrapy.settings import default_settings as _scrapy_defaults

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
COOKIES_ENABLED = False
# Names resolving to loopback/private/link-local... addresses are refused (SSRF guard).
TWISTED_DNS_RESOLVER = "webmd_spider.resolver.GuardedResolver"
METAREFRESH_ENABLED = True
# Scrapy's HTTP/1.1 handler with a cap on each response's header section (256 KiB,
# 1,000 lines): Twisted keeps every header line, so a server sending headers forever
# grew memory until DOWNLOAD_TIMEOUT. Over the cap: an `http-error` row.
DOWNLOAD_HANDLERS = {
    "http": "webmd_spider.http_handler.CappedHTTP11DownloadHandler",
    "https": "webmd_spider.http_handler.CappedHTTP11DownloadHandler",
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
REQUEST_FINGERPRINTER_CLASS = "webmd_spider.fingerprint.CanonicalUrlFingerprinter"
# Every response otherwise starts 100 item tasks on the asyncio reactor; a page yields
# a handful of items, and fewer tasks measurably cut CPU (scrapy/scrapy#5182).
CONCURRENT_ITEMS = 16

# --- components ------------------------------------------------------------------
# per-slot concurrency (a website's max_concurrency) enforced: see downloader.py
DOWNLOADER = "webmd_spider.downloader.SlotLimitedDownloader"
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
}
# Depth is ours (`max_depth`, the shortest link distance from the start URLs, in the
# request's `webmd_depth`); Scrapy's DepthMiddleware would only count it a second time,
# on every request the spider yields. So is URL length: TrapPolicy.max_url_length
# (2,000) refuses longer URLs as a counted rejection before UrlLengthMiddleware's 2,083
# would drop them without a trace. Off, it cannot drop a link a page of a resumable
# crawl waits for (completion.py).
SPIDER_MIDDLEWARES = {
    "scrapy.spidermiddlewares.depth.DepthMiddleware": None,
    "scrapy.spidermiddlewares.urllength.UrlLengthMiddleware": None,
}
EXTENSIONS = {
    "webmd_spider.extensions.progress.ProgressLog": 500,
    "webmd_spider.extensions.run_summary.RunSummary": 510,
    "webmd_spider.extensions.resume.ResumeJournal": 520,
}
# Scrapy's own extensions without the remote-control and telnet consoles: both are off
# above, and never wanted in this project (each runs code sent over a socket), but
# Scrapy imports every listed extension, even one set to None, to read its priority;
# aiohttp, which the remote control imports, alone costs every run ~110 ms of CPU.
EXTENSIONS_BASE = {
    name: priority
    for name, priority in _scrapy_defaults.EXTENSIONS_BASE.items()
    if name
    not in (
        "scrapy.extensions.remote_control.RemoteControl",
        "scrapy.extensions.telnet.TelnetConsole",
    )
}
# Rows reach the feed file as they are exported (no 8 KB buffer lost to a kill -9).
FEED_STORAGES = {
    "": "webmd_spider.feedstorage.DurableFileFeedStorage",
    "file": "webmd_spider.feedstorage.DurableFileFeedStorage",
}
# JSON lines rows written without Scrapy's per-field serializer calls, encoded by orjson.
FEED_EXPORTERS = {
    "jsonl": "webmd_spider.exporters.RowJsonLinesExporter",
    "jsonlines": "webmd_spider.exporters.RowJsonLinesExporter",
}
ITEM_PIPELINES = {
    "webmd_spider.pipelines.chunks.ChunkPipeline": 300,
    "webmd_spider.pipelines.markdown_tree.MarkdownTreePipeline": 400,
}

LOG_LEVEL = "INFO"

# --- webmd_spider options (each also a spider argument; see options.py) ------------
WEBMD_START = ""
WEBMD_START_FILE = ""
WEBMD_MAX_PAGES = 50
WEBMD_MAX_DEPTH = 3
WEBMD_MAX_RUN_SECS = 240
WEBMD_CRAWL_LINKS = True
WEBMD_DISCOVERY = "sitemaps+links"
WEBMD_MAX_CONCURRENCY = 8
WEBMD_MAX_SITEMAP_URLS = 5000
WEBMD_RESPECT_ROBOTS = True
WEBMD_INCLUDE_PATTERNS = ""
WEBMD_EXCLUDE_PATTERNS = ""
WEBMD_INCLUDE_HTML = False
WEBMD_KEEP_LINKS = True
WEBMD_KEEP_IMAGES = True
WEBMD_MAX_CHARS = 0
WEBMD_KEEP_FRAMES = False
# Spacing between two requests to one website, seconds ("low-high", jitter only upward;
# "0" turns the floor off for your own servers and benchmarks). AutoThrottle may widen it.
WEBMD_HOST_DELAY = "0.25-0.6"
# A robots.txt Crawl-delay above this fetches one page and stops the website.
WEBMD_MAX_CRAWL_DELAY = 10
# An unavailable robots.txt (5xx, network error) is asked again once after this long,
# when the run budget allows (0 = never).
WEBMD_ROBOTS_RETRY_SECS = 30
# The product token matched against robots.txt User-agent lines (before "*").
WEBMD_ROBOTS_TOKEN = "webmd"
# Destinations allowed despite the SSRF guard: CIDRs, host names or host:port, e.g.
# "127.0.0.1:8080" to crawl your own local server. Empty by default.
WEBMD_SSRF_ALLOWLIST = ""
WEBMD_CHUNK_SIZE = 0
WEBMD_CHUNK_TOKENS = 0
WEBMD_CHUNK_OVERLAP = 0
WEBMD_CHUNK_OVERLAP_TOKENS = 0
WEBMD_OUTPUT_DIR = "output"
WEBMD_PROGRESS_SECS = 5
# Incremental recrawls: page state (validators, content hash) per job in WEBMD_STATE_DIR.
WEBMD_INCREMENTAL = False
WEBMD_STATE = ""
WEBMD_STATE_DIR = ".webmd"
WEBMD_STATE_BACKEND = "sqlite"
# One .md file per page under this folder (empty: no folder tree).
WEBMD_OUT_DIR = ""
WEBMD_OUT_DIR_REMOVED = "delete"
# A distributed crawl on scrapy-redis: every worker started with this URL (and the same
# arguments) shares one frontier, politeness and budgets (see webmd_spider/distributed.py).
WEBMD_REDIS_URL = ""
# Convert pages in this many worker processes, off Scrapy's thread (0: in the crawl
# process). "auto": one per usable core beyond the crawl's own (none on one core, at
# most 4); pages are converted in the crawl process until the workers are ready.
WEBMD_EXTRACT_PROCESSES = "auto"
# Seconds an extraction process may spend on one page: past it the process is killed and
# replaced and the page is an `extraction-timeout` row (a hostile page can cost minutes).
WEBMD_EXTRACT_TIMEOUT_SECS = 30
# The garbage collector's young-generation threshold in the crawl process (while the
# crawl runs; restored at its close) and its extraction processes (Python's default is
# 700; 0 leaves the collector alone). With 10,000 and the start-up objects frozen, a
# crawl of 1,169 pages spends ~60 ms collecting instead of ~400 (webmd_spider/gc_tuning.py).
WEBMD_GC_THRESHOLD = 10000
