"""A crawl in a child process: ``scrapy crawl site`` with the project's settings module,
from any directory, its rows in a feed file and Scrapy's own lines in a log file.

Both front doors start crawls this way: ``webmd crawl`` waits for the child and then
prints the run's summary; the Python API (``webmd_spider.api.crawl``) reads the feed
as the child writes it. A child process, because Twisted's reactor cannot be started
twice in one process (a notebook runs many crawls).

Contract of :func:`start_crawl`: the options are validated here first, with the
spider's own messages (``webmd_spider.options.build_options`` raises
:class:`~webmd_spider.options.OptionsError`), so a bad value never starts a child.
They reach the child as a job file (``-a input=FILE``), one JSON object keyed by option
name: the spider reads it with the same validation. Settings (``-s NAME=VALUE``) pass
unchanged. Nothing here imports Scrapy.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from webmd_spider.options import JobOptions, OptionsError, build_options

#: feed formats by the output file's extension (Scrapy's exporters, ours for JSON lines)
FEED_FORMATS = {".jsonl": "jsonl", ".csv": "csv", ".json": "json"}
#: ``PROGRESS_DISPLAY`` values the child's progress extension knows
DISPLAYS = ("log", "bar", "line", "none")


@dataclass
class CrawlChild:
    """A started crawl: its process, and where its rows, summary and log go."""

    process: subprocess.Popen[bytes]
    feed: Path
    log_file: Path | None
    job_file: Path

    @property
    def summary_file(self) -> Path:
        """The run summary the child writes beside its feed."""
        return summary_path(self.feed)

    def cleanup(self) -> None:
        """Remove the job file (the options the child was given)."""
        self.job_file.unlink(missing_ok=True)


def summary_path(feed: Path) -> Path:
    """Where the run summary of a crawl writing ``feed`` goes (extensions/run_summary.py
    puts it beside the first local feed)."""
    return feed.with_name(feed.name + ".summary.json")


def feed_format(path: Path) -> str:
    """The feed format of an output file, by its extension; OptionsError otherwise."""
    found = FEED_FORMATS.get(path.suffix.lower())
    if found is None:
        raise OptionsError(
            f"out: {str(path)!r} must end in {', '.join(FEED_FORMATS)} (the format is "
            "chosen by the extension)"
        )
    return found


def job_values(options: JobOptions) -> dict[str, Any]:
    """The options that differ from the defaults, as a job file's JSON object."""
    defaults = JobOptions()
    return {
        f.name: getattr(options, f.name)
        for f in fields(JobOptions)
        if getattr(options, f.name) != getattr(defaults, f.name)
    }


def start_crawl(
    values: Mapping[str, Any],
    *,
    feed: Path,
    settings: Sequence[tuple[str, str]] = (),
    log_file: Path | None = None,
    display: str = "log",
    new_session: bool = False,
    stderr: int | None = None,
) -> CrawlChild:
    """Start ``scrapy crawl site`` with these option values (by option name, as given:
    validated here first) writing rows to ``feed``.

    ``display`` is how the child shows progress (``PROGRESS_DISPLAY``: the log, a bar
    or plain lines on its stderr, or nothing). With ``log_file``, Scrapy's lines go
    there and not to the screen. ``new_session`` puts the child in a process group of
    its own, so a terminal's Ctrl-C reaches only its parent (which stops it)."""
    if display not in DISPLAYS:
        raise ValueError(f"display must be one of {DISPLAYS}, got {display!r}")
    build_options({}, values)  # the spider's messages, before a process starts
    fmt = feed_format(feed)
    feed.parent.mkdir(parents=True, exist_ok=True)
    # A crawl that fails at start-up writes nothing: never leave an older file to read.
    feed.unlink(missing_ok=True)
    summary_path(feed).unlink(missing_ok=True)
    handle, name = tempfile.mkstemp(prefix="webmd-job-", suffix=".json")
    with os.fdopen(handle, "w", encoding="utf-8") as job:
        # default=str: a Path given as a folder option reads as its text
        json.dump(dict(values), job, default=str)
    command = [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"input={name}"]
    command += ["-O", f"{feed}:{fmt}", "-s", f"PROGRESS_DISPLAY={display}"]
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        command += ["-s", f"LOG_FILE={log_file}", "-s", "LOG_FILE_APPEND=False"]
    for key, value in settings:
        command += ["-s", f"{key}={value}"]
    # WEBMD_PARENT_PID: the child stops itself when we are gone (its own session keeps
    # our terminal's signals from it: extensions/parent_watch.py)
    env = dict(
        os.environ,
        SCRAPY_SETTINGS_MODULE="webmd_spider.settings",
        WEBMD_PARENT_PID=str(os.getpid()),
    )
    try:
        process = subprocess.Popen(command, env=env, start_new_session=new_session, stderr=stderr)
    except OSError:
        Path(name).unlink(missing_ok=True)
        raise
    return CrawlChild(process, feed, log_file, Path(name))
