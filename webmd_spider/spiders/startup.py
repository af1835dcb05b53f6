"""What the site spider does once, when it starts: read a start file, set the Scrapy
settings its options decide (the pace, the default feed), discard a stale JOBDIR queue,
quiet two misleading log records, and schedule calls on the reactor.

The settings are set as the spider is built, before Scrapy builds the downloader and
the feed exports from them; they depend on spider arguments (``-a max_concurrency``),
which a Scrapy add-on (it sees settings only) could not read."""

from __future__ import annotations

import logging
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scrapy.settings import SETTINGS_PRIORITIES, Settings
from twisted.internet.base import DelayedCall

from webmd_spider.options import OptionsError
from webmd_spider.policy.politeness import delay_and_jitter
from webmd_spider.urls import StartInput, site_key

# the spider's own logger: its start-up warnings read as they always did
logger = logging.getLogger("webmd_spider.spiders.site")


def call_later(delay: float, func: Any) -> DelayedCall:
    # Imported here: importing the reactor at module level would install the default
    # reactor before Scrapy installs the asyncio one.
    from twisted.internet import reactor

    clock: Any = reactor
    call: DelayedCall = clock.callLater(delay, func)
    return call


def discard_stale_queue(jobdir: Path) -> None:
    """The previous run with this JOBDIR was killed: Scrapy's queue on disk is stale
    (see ``journal``) and would hand out old requests; the journal re-queues what was
    pending. Removed before the scheduler opens it."""
    queue = jobdir / "requests.queue"
    if queue.exists():
        logger.warning(
            "The previous run with JOBDIR %s did not stop cleanly: its saved request queue "
            "is discarded and the pending pages are queued again from the resume journal",
            jobdir,
        )
        shutil.rmtree(queue, ignore_errors=True)


def _probe_failure_as_info(record: logging.LogRecord) -> bool:
    """A logging filter: RetryMiddleware's "Gave up retrying" for a robots.txt probe
    that has a next candidate (``https://host`` first, then ``http://``) is INFO, not
    ERROR: a failed TLS probe of a plain-HTTP server is expected (issue 16 item 12)."""
    args = record.args
    request = args.get("request") if isinstance(args, dict) else None
    meta = getattr(request, "meta", None)
    if (
        record.levelno > logging.INFO
        and meta is not None
        and meta.get("webmd_kind") == "robots"
        and len(meta.get("webmd_candidates") or ()) > 1
    ):
        record.levelno, record.levelname = logging.INFO, "INFO"
    return True


def quiet_probe_failures() -> None:
    retry_logger = logging.getLogger("scrapy.downloadermiddlewares.retry")
    if _probe_failure_as_info not in retry_logger.filters:
        retry_logger.addFilter(_probe_failure_as_info)


def quiet_asyncio_about(exc: BaseException) -> None:
    """Drop asyncio's log record of ``exc`` (its never-retrieved task): the user was
    told in one line, a traceback would only bury it (issue 16 item 5)."""

    def keep(record: logging.LogRecord) -> bool:
        return not (record.exc_info and record.exc_info[1] is exc)

    logging.getLogger("asyncio").addFilter(keep)


def read_start_file(path: str) -> list[str]:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise OptionsError(f"cannot read start_file {path!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        # never echo the file's bytes (a binary file printed 575 KB of stderr)
        raise OptionsError(
            f"start_file {path!r} is not a UTF-8 text file (byte 0x{exc.object[exc.start]:02x} "
            f"at offset {exc.start}): give one start URL or domain per line"
        ) from None
    return [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


def default_feed_path(output_dir: str, inputs: list[StartInput]) -> Path:
    keys = {site_key(i.url) for i in inputs if i.url}
    name = keys.pop() if len(keys) == 1 else "crawl"
    safe = "".join(c if c.isalnum() or c in "-._" else "-" for c in name)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Path(output_dir) / f"{safe}-{stamp}.jsonl"


def set_pace(
    settings: Settings, max_concurrency: int, inputs: list[StartInput], low: float, high: float
) -> None:
    """The download delay and concurrency of a job: ``host_delay`` (`low`..`high`
    seconds) becomes DOWNLOAD_DELAY and its jitter, unless DOWNLOAD_DELAY was given on
    the command line; ``max_concurrency`` is per website (requests carry
    ``download_slot = website``), and CONCURRENT_REQUESTS is that times the websites,
    at most 64."""
    if settings.getpriority("DOWNLOAD_DELAY") != SETTINGS_PRIORITIES["cmdline"]:
        delay, jitter = delay_and_jitter(low, high)
        settings.set("DOWNLOAD_DELAY", delay, priority="spider")
        settings.set("DOWNLOAD_DELAY_JITTER", jitter, priority="spider")
    settings.set("CONCURRENT_REQUESTS_PER_DOMAIN", max_concurrency, priority="spider")
    # The downloader takes up to CONCURRENT_REQUESTS out of the priority queue and
    # serves each slot's share first-in first-out; a cap near the per-site
    # concurrency keeps the order shallowest-first and little work queued past a budget.
    websites = len({site_key(i.url) for i in inputs if i.url})
    total = min(max(max_concurrency * websites, max_concurrency), 64)
    settings.set("CONCURRENT_REQUESTS", total, priority="spider")


def ensure_feed(settings: Settings, output_dir: str, inputs: list[StartInput]) -> None:
    """A JSONL feed under `output_dir` when the job names none (no ``-O FILE``)."""
    if not settings.getdict("FEEDS"):
        path = default_feed_path(output_dir, inputs)
        settings.set("FEEDS", {str(path): {"format": "jsonl"}}, priority="spider")
        logger.info("No feed given (-O FILE); writing rows to %s", path)
