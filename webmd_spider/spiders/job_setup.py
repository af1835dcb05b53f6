"""What one crawl job is, decided once from the settings and the spider arguments:
the validated options, the start inputs, the URL filter, the SSRF policy, the pace,
the JOBDIR journal, a distributed crawl's fleet, the incremental state and the
extraction processes (``JobSetup``, built by ``configure``).

Contract: ``configure`` raises ``OptionsError`` (one plain sentence) when nothing can be
fetched or an option cannot be used; what is wrong with a single input or pattern is a
start-up diagnostic row instead (``JobSetup.startup_rows``), and the rest still runs.
It writes the Scrapy settings the options decide (the pace, the default feed, a
distributed crawl's scheduler) before Scrapy builds the downloader and feed exports.

Settings read: all ``WEBMD_*`` (through ``webmd_spider.options``), ``JOBDIR``."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scrapy.crawler import Crawler

from webmd_spider.crew import Crew, SoloCrew
from webmd_spider.extract import ExtractOptions
from webmd_spider.index.sync import ChunkSync
from webmd_spider.index.targets import FeedError, open_feed
from webmd_spider.items import Row, diagnostic_row
from webmd_spider.offload.pool import ExtractPool, default_processes
from webmd_spider.options import (
    EXTRACT_AUTO,
    EXTRACT_TIMEOUT_DEFAULT,
    JobOptions,
    OptionsError,
    build_options,
)
from webmd_spider.policy.netguard import LOCAL_ALLOWLIST, AddressPolicy
from webmd_spider.policy.politeness import parse_host_delay
from webmd_spider.policy.scope import StartScopes
from webmd_spider.policy.traps import TrapDetector, TrapPolicy
from webmd_spider.rows.ledger import RunLedger
from webmd_spider.rows.single_files import sidecar_paths
from webmd_spider.spiders.incremental_state import IncrementalState, state_name
from webmd_spider.spiders.startup import (
    discard_stale_queue,
    ensure_feed,
    read_start_file,
    set_pace,
)
from webmd_spider.state.journal import CrawlJournal
from webmd_spider.urls import (
    PatternError,
    StartInput,
    UrlFilter,
    compile_pattern,
    parse_start_inputs,
    split_patterns,
)

# the spider's own logger: its start-up lines read as they always did
logger = logging.getLogger("webmd_spider.spiders.site")


@dataclass
class JobSetup:
    """The job as ``configure`` decided it (the defaults are a spider before it)."""

    options: JobOptions = field(default_factory=JobOptions)
    inputs: list[StartInput] = field(default_factory=list)
    #: invalid inputs and patterns, written first (``invalid-input`` diagnostics)
    startup_rows: list[Row] = field(default_factory=list)
    url_filter: UrlFilter = field(default_factory=lambda: UrlFilter.from_strings([], []))
    #: calendar pages, session ids, endless query variants
    traps: TrapDetector = field(default_factory=TrapDetector)
    extract_options: ExtractOptions = field(default_factory=ExtractOptions)
    ssrf_policy: AddressPolicy = field(default_factory=lambda: AddressPolicy.from_allowlist(None))
    #: the lower host_delay bound, for the fleet's shared gate
    host_floor: float = 0.0
    #: the JOBDIR resume journal (None without JOBDIR)
    journal: CrawlJournal | None = None
    #: a distributed crawl's shared state (None when WEBMD_REDIS_URL is not set)
    fleet: Any = None
    #: who shares the crawl: alone (SoloCrew), or the fleet of a distributed crawl
    crew: Crew = field(default_factory=SoloCrew)
    incremental: IncrementalState = field(default_factory=IncrementalState)
    #: the extraction processes (``extract_processes``), started by the spider's start()
    pool: ExtractPool | None = None
    #: the chunk-level change feed (``--changes``, ``--index``), or None
    chunk_sync: ChunkSync | None = None

    def input_urls(self) -> list[str]:
        """The usable start URLs (what names this job's state and distributed crawl)."""
        return [i.url for i in self.inputs if i.url and i.kind != "invalid"]


def configure(crawler: Crawler, arguments: dict[str, Any], ledger: RunLedger) -> JobSetup:
    """Validate options and inputs and set the settings they decide; raise
    ``OptionsError`` when nothing can be fetched."""
    settings = crawler.settings
    job = JobSetup()
    job.options = opts = build_options(settings.copy_to_dict(), arguments)
    job.inputs = start_inputs(opts)
    for bad in (i for i in job.inputs if i.kind == "invalid"):
        job.startup_rows.append(
            diagnostic_row("invalid-input", bad.error or "unusable start URL", input=bad.raw)
        )
    job.url_filter = _compile_filter(opts, job.startup_rows)
    # a listing or product page (?id=N) legitimately has as many variants as the budget
    job.traps = TrapDetector(TrapPolicy(max_query_variants_per_path=max(50, 2 * opts.max_pages)))
    if not any(i.kind != "invalid" for i in job.inputs):
        problems = "; ".join(f"{i.raw!r}: {i.error}" for i in job.inputs) or "no start URL given"
        raise OptionsError(
            f"nothing to crawl ({problems}). Give -a start=URL (or a domain), "
            "-a start_file=PATH or -a input=job.json"
        )
    job.extract_options = opts.extract_options
    jobdir = settings.get("JOBDIR")
    if jobdir:
        job.journal = journal = CrawlJournal(jobdir)
        if journal.resumed and not journal.clean:
            discard_stale_queue(Path(jobdir))
        if journal.resumed:
            logger.info(
                "Resuming from %s: %d page URLs done, %d queued before",
                jobdir,
                len(journal.done),
                len(journal.queued),
            )
    allowlist = opts.ssrf_allowlist
    if opts.allow_local:
        allowlist = " ".join((allowlist, *LOCAL_ALLOWLIST)).strip()
        logger.warning(
            "allow_local: loopback and private addresses are let through the SSRF guard "
            "(link-local and other special addresses stay refused)"
        )
    try:
        job.ssrf_policy = AddressPolicy.from_allowlist(allowlist or None)
    except ValueError as exc:
        raise OptionsError(f"ssrf_allowlist: {exc}") from None
    try:
        low, high = parse_host_delay(opts.host_delay)
    except ValueError as exc:
        raise OptionsError(str(exc)) from None
    job.host_floor = low
    set_pace(settings, opts.max_concurrency, job.inputs, low, high)
    if opts.redis_url:
        if opts.follow_subdomains:
            # a website a link adds is known to the worker that found it only (its
            # robots.txt, its ledger entry): another worker could not take its pages
            raise OptionsError(
                "follow_subdomains cannot be used in a distributed crawl (redis_url) yet: "
                "give each subdomain as a start URL instead"
            )
        job.fleet = job.crew = _join_fleet(settings, opts, job.input_urls())
    ensure_feed(settings, opts.output_dir, job.inputs)
    if not opts.emit_unchanged:
        # issue 34: unchanged pages are counted, not written (feeds/filters.py)
        feeds = {
            uri: {**options, "item_filter": "webmd_spider.feeds.filters.ChangesOnly"}
            for uri, options in settings.getdict("FEEDS").items()
        }
        settings.set("FEEDS", feeds, priority=settings.getpriority("FEEDS") or "spider")
    # last: it takes the state's lock, which only spider_closed releases
    job.incremental = IncrementalState.open(opts, job.input_urls(), job.extract_options, ledger)
    manifest = Path(opts.out_dir) / ".webmd" / "manifest.json"
    unknown = [p for p in sidecar_paths(opts.llms_txt, opts.combined) if not p.exists()]
    if job.incremental.enabled and ((opts.out_dir and not manifest.exists()) or unknown):
        # a folder tree or single file added to an existing incremental job: unchanged
        # pages must still be fetched whole and written once
        job.incremental.fill_tree = True
    if opts.changes or opts.index:
        job.chunk_sync = _open_feed(opts, job)
    job.pool = _new_pool(opts, job.extract_options)
    return job


def _open_feed(opts: JobOptions, job: JobSetup) -> ChunkSync:
    """The run's change feed (``index.targets.open_feed``), with the incremental state
    made to agree with its target first (``IncrementalState.reconcile``)."""
    state = job.incremental
    ledger_path = Path(opts.state_dir) / f"{state.name or 'feed'}.chunks.sqlite"
    try:
        sync = open_feed(
            changes=opts.changes,
            index=opts.index,
            ledger_path=ledger_path,
            embedder=opts.embedder,
            embed_url=opts.embed_url,
            embed_model=opts.embed_model,
            key_env=opts.embed_key_env,
            lock_secs=opts.index_lock_secs,
        )
    except FeedError as exc:
        state.close()  # the state's lock: this run ends before it starts
        raise OptionsError(str(exc)) from None
    forgotten, asked = state.reconcile(sync.target.page_hashes())
    if forgotten or asked:
        logger.info(
            "Change feed: %d stored pages are not in its target and are fetched whole; "
            "%d pages of the target are asked for again",
            forgotten,
            asked,
        )
    return sync


def start_inputs(opts: JobOptions) -> list[StartInput]:
    """The start inputs the options give (``start``, then the lines of ``start_file``),
    classified, invalid ones included. Raises ``OptionsError`` when the start file
    cannot be read."""
    raw_inputs = list(opts.start)
    if opts.start_file:
        raw_inputs.extend(read_start_file(opts.start_file))
    return parse_start_inputs(" ".join(raw_inputs))


def start_scopes(opts: JobOptions, inputs: list[StartInput] | None = None) -> StartScopes:
    """The scope of each start website (``scope`` option, ``policy.scope``), from
    ``inputs`` or else the options' own inputs. A bare domain's scope is its whole
    website, whichever root the discovery ladder picks."""
    if inputs is None:
        inputs = start_inputs(opts) if (opts.start or opts.start_file) else []
    urls = [i.url for i in inputs if i.url and i.kind != "invalid"]
    return StartScopes.build(opts.scope, urls)


def _new_pool(opts: JobOptions, extract_options: ExtractOptions) -> ExtractPool | None:
    """The extraction processes (``extract_processes``), or None. Started in the
    spider's start(), from the event loop; pages are extracted in Scrapy's process until
    they are ready."""
    processes = opts.extract_processes
    if processes == EXTRACT_AUTO:
        processes = default_processes()
    if not processes:
        return None
    # the default timeout is left to the pool: its EXTRACT_DEADLINE_SECS, the same
    # 30 s (a constant tests can lower)
    timeout = opts.extract_timeout_secs
    return ExtractPool(
        processes,
        extract_options,
        opts.chunk_budget,
        opts.gc_threshold,
        deadline=None if timeout == EXTRACT_TIMEOUT_DEFAULT else timeout,
    )


def _join_fleet(settings: Any, opts: JobOptions, input_urls: list[str]) -> Any:
    """WEBMD_REDIS_URL: join a distributed crawl (see ``webmd_spider.distributed``)."""
    try:
        from webmd_spider import distributed
    except ImportError as exc:
        raise OptionsError(
            f"redis_url needs scrapy-redis: pip install 'webmd-spider[distributed]' ({exc})"
        ) from None
    name = state_name(opts, input_urls)
    try:
        fleet = distributed.Fleet(opts.redis_url, name)
    except Exception as exc:  # redis-py raises its own ConnectionError family
        raise OptionsError(f"redis_url: cannot reach {opts.redis_url!r}: {exc}") from None
    distributed.configure(settings, opts.redis_url, name)
    logger.info("Distributed crawl %r on %s (worker %s)", name, opts.redis_url, fleet.worker)
    return fleet


def _compile_filter(opts: JobOptions, rows: list[Row]) -> UrlFilter:
    """Compile each pattern; one that does not compile is a row (appended to ``rows``),
    the others still apply."""
    kept: dict[str, list[str]] = {"include": [], "exclude": []}
    for kind, values in (
        ("include", opts.include_patterns),
        ("exclude", opts.exclude_patterns),
    ):
        for pattern in (p for value in values for p in split_patterns(value)):
            try:
                compile_pattern(pattern)
            except PatternError as exc:
                rows.append(diagnostic_row("invalid-input", str(exc), input=pattern))
            else:
                kept[kind].append(pattern)
    return UrlFilter.from_strings(kept["include"], kept["exclude"])
