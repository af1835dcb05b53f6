"""``webmd crawl URL...``: the front door, from any directory.

Each flag is a view on one spider option (:data:`FLAGS`: the flag, the option it sets,
how it reads); its value goes through the spider's own validation
(``options.build_options``), so ``--max-pages 0`` and ``-a max_pages=0`` give the same
message. Every other option is ``-a name=value``, and Scrapy settings are
``-s NAME=VALUE``, as with ``scrapy crawl``.

What the user sees:

* on a terminal, a live progress bar (``rich``) on stderr, and Scrapy's own lines
  (banner, settings, stats) in a log file beside the rows (``output/<run>.log``);
* not on a terminal, one plain progress line every ``progress_secs`` instead of the bar;
* ``--quiet``: only the summary; ``--verbose``: Scrapy's lines on the screen, no log file;
* at the end, a short summary (:func:`summary_lines`): pages, diagnostics by type,
  rejected URLs by reason, the stop reason, the time and where the files went, and a
  hint naming the likely fix when no page was written (:func:`hints`).

Exit codes:

* 0: the crawl ran and at least one website gave a page row;
* 1: it could not start (an unusable start, a file that cannot be written) or failed;
* 2: a bad flag or option value (one line on stderr, no traceback);
* 3: the crawl ran but no website gave a page (every row is a diagnostic: no such
  host, nothing listening, robots.txt, the SSRF guard...); the summary's last lines
  are hints naming the cause (:func:`hints`). A script can tell "nothing to read"
  from success without reading the rows.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from webmd_spider.api import crawl_values, read_summary, start_refusal, stop
from webmd_spider.crawl_process import FEED_FORMATS, feed_format, start_crawl
from webmd_spider.options import DISCOVERY_MODES, SCOPE_MODES, OptionsError

# re-exported: the hints are this command's (``webmd crawl``'s last lines), shared with crawl()
from webmd_spider.rows.hints import hints as hints
from webmd_spider.rows.ledger import format_counts

#: the exit code of a run that ran but wrote no page on any website
EXIT_NO_PAGE = 3


@dataclass(frozen=True, slots=True)
class Flag:
    """A ``webmd crawl`` flag and the spider option it sets."""

    flag: str
    option: str
    help: str
    metavar: str = ""
    #: "value" (one value), "list" (repeatable, gathered), "switch" (sets True)
    kind: str = "value"


#: The flags users set most; everything else is ``-a name=value`` (same names).
FLAGS: tuple[Flag, ...] = (
    Flag("--max-pages", "max_pages", "pages per website (default 50)", "N"),
    Flag("--max-depth", "max_depth", "link hops from the start page (default 3)", "N"),
    Flag(
        "--include",
        "include_patterns",
        "only URLs matching (glob or /regex/); repeatable",
        "PATTERN",
        "list",
    ),
    Flag(
        "--exclude",
        "exclude_patterns",
        "skip URLs matching (glob or /regex/); repeatable",
        "PATTERN",
        "list",
    ),
    Flag(
        "--scope",
        "scope",
        f"which pages a start lets in: {', '.join(SCOPE_MODES)} (default auto: a start "
        "below the root keeps to its directory)",
        "SCOPE",
    ),
    Flag(
        "--skip-page-types",
        "skip_page_types",
        "write pages of these types (listing, collection...) as skipped rows, links "
        "still followed; repeatable",
        "TYPE",
        "list",
    ),
    Flag(
        "--chunk-tokens",
        "chunk_tokens",
        "split each page into chunks of about N tokens (default 400; 0: no chunks)",
        "N",
    ),
    Flag(
        "--overlap-tokens",
        "chunk_overlap_tokens",
        "tokens shared by neighbouring chunks (default 40)",
        "N",
    ),
    Flag("--out-dir", "out_dir", "also write one .md file per page under DIR", "DIR"),
    Flag("--llms-txt", "llms_txt", "also write llms.txt and llms-full.txt into DIR", "DIR"),
    Flag("--combined", "combined", "also write every page's Markdown into one FILE", "FILE"),
    Flag(
        "--incremental",
        "incremental",
        "recrawl: only new and changed pages get content",
        kind="switch",
    ),
    Flag("--state", "state", "name of the incremental state (default: from the start)", "NAME"),
    Flag(
        "--changes",
        "changes",
        "also write the chunk-level change feed (upserts, deletes) to FILE.jsonl; "
        "implies --incremental",
        "FILE",
    ),
    Flag(
        "--index",
        "index",
        "keep a local search index of the chunks in FILE (webmd search FILE QUERY); "
        "implies --incremental",
        "FILE",
    ),
    Flag(
        "--embed-url",
        "embed_url",
        "embed with this OpenAI-compatible endpoint (key in $WEBMD_EMBED_KEY) instead "
        "of the bundled model",
        "URL",
    ),
    Flag(
        "--allow-local",
        "allow_local",
        "let loopback and private addresses through the SSRF guard (your own servers)",
        kind="switch",
    ),
    Flag("--discovery", "discovery", f"how pages are found: {', '.join(DISCOVERY_MODES)}", "MODE"),
)


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (``webmd crawl: <what>``) and exit 2."""

    def error(self, message: str) -> Any:  # argparse's signature (NoReturn)
        sys.stderr.write(f"{self.prog}: {message} (see {self.prog} --help)\n")
        raise SystemExit(2)


def build_parser(prog: str = "webmd crawl") -> argparse.ArgumentParser:
    """The ``webmd crawl`` argument parser."""
    parser = _Parser(
        prog=prog,
        description="Crawl a website (or several) into Markdown rows: JSON lines by default.",
        epilog="Any other option: -a name=value (the names of `scrapy crawl site -a`); "
        "Scrapy settings: -s NAME=VALUE.",
    )
    parser.add_argument("urls", nargs="*", metavar="URL", help="start page(s)")
    parser.add_argument(
        "--out", type=Path, metavar="FILE",
        help=f"rows file; the format by extension: {', '.join(FEED_FORMATS)} "
        "(default output/crawl-<time>.jsonl)",
    )  # fmt: skip
    for flag in FLAGS:
        if flag.kind == "switch":
            parser.add_argument(flag.flag, dest=flag.option, action="store_true", help=flag.help)
        elif flag.kind == "list":
            parser.add_argument(
                flag.flag, dest=flag.option, action="append", metavar=flag.metavar, help=flag.help
            )
        else:
            parser.add_argument(flag.flag, dest=flag.option, metavar=flag.metavar, help=flag.help)
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--quiet", "-q", action="store_true", help="print only the summary")
    shown.add_argument(
        "--verbose", "-v", action="store_true", help="Scrapy's log on the screen, no log file"
    )
    parser.add_argument(
        "-a", dest="arguments", action="append", default=[], metavar="NAME=VALUE",
        help="any spider option, as with scrapy crawl site -a",
    )  # fmt: skip
    parser.add_argument(
        "-s", dest="settings", action="append", default=[], metavar="NAME=VALUE",
        help="a Scrapy setting",
    )  # fmt: skip
    return parser


def _pair(text: str, what: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise OptionsError(f"{what} takes NAME=VALUE, got {text!r}")
    return name.strip(), value


def option_values(args: argparse.Namespace) -> dict[str, Any]:
    """The spider option values the parsed flags give: ``-a`` pairs, then the flags
    (a flag given wins over the same ``-a``), then the URLs."""
    values: dict[str, Any] = dict(_pair(a, "-a") for a in args.arguments)
    for flag in FLAGS:
        given = getattr(args, flag.option)
        if given in (None, False):
            continue
        values[flag.option] = given
    if args.urls:
        values["start"] = list(args.urls)
    return values


def default_out(now: datetime | None = None) -> Path:
    """``output/crawl-<UTC time>.jsonl``."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return Path("output") / f"crawl-{stamp}.jsonl"


def run(argv: Sequence[str], *, extra_settings: Sequence[tuple[str, str]] = ()) -> int:
    """Parse ``argv`` (the words after ``webmd crawl``), crawl, print the summary;
    return the exit code (see the module docstring)."""
    args = build_parser().parse_args(list(argv))
    try:
        values = option_values(args)
        settings = [_pair(s, "-s") for s in args.settings]
        out: Path = args.out or default_out()
        feed_format(out)
        values = crawl_values(None, None, values)
    except OptionsError as exc:
        sys.stderr.write(f"webmd crawl: {exc}\n")
        return 2
    log = None if args.verbose else out.with_suffix(".log")
    if values.get("allow_local") in (True, "true", "1", "yes", "on"):
        sys.stderr.write(
            "webmd crawl: warning: --allow-local lets loopback and private addresses "
            "through the SSRF guard (link-local stays refused)\n"
        )
    display = "none" if args.quiet else "log" if args.verbose else _screen_display()
    try:
        child = start_crawl(
            values,
            feed=out,
            settings=[*extra_settings, *settings],
            log_file=log,
            display=display,
            new_session=True,  # Ctrl-C reaches us; we stop the child (below)
        )
    except OSError as exc:  # the output folder cannot be made, no Python to run...
        sys.stderr.write(f"webmd crawl: cannot start the crawl: {exc}\n")
        return 1
    # a closed terminal or a `kill` stops the crawl as Ctrl-C does
    previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        code = child.process.wait()
    except KeyboardInterrupt:
        sys.stderr.write("\nstopping: the pages in progress are finished and written...\n")
        try:
            stop(child)
        except KeyboardInterrupt:  # a second Ctrl-C: no more waiting
            child.process.kill()
            child.process.wait()
        code = 0 if child.process.returncode in (0, -2) else child.process.returncode
    finally:
        child.cleanup()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if code != 0:
        reason = start_refusal(log) if log is not None else None
        if reason:
            sys.stderr.write(f"webmd crawl: {reason}\n")
        elif log is not None:
            sys.stderr.write(f"webmd crawl: the crawl failed (exit code {code}); see {log}\n")
        return 1
    summary = read_summary(child.summary_file)
    files = output_files(out, child.summary_file, log, values)
    sys.stdout.write("\n".join(summary_lines(summary, files, diagnostics(out))) + "\n")
    sys.stdout.flush()
    return 0 if page_count(summary, out) else EXIT_NO_PAGE


def page_count(summary: dict[str, Any], feed: Path) -> int:
    """The page rows the run wrote: the summary's count, else (no summary) the JSON
    lines feed's page rows; 0 when neither can be read."""
    rows = summary.get("rows")
    if isinstance(rows, dict):
        return int(rows.get("page") or 0)
    if feed.suffix.lower() != ".jsonl":
        return 0
    try:
        with open(feed, encoding="utf-8") as handle:
            return sum('"row_type":"page"' in line for line in handle)
    except OSError:
        return 0


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM / SIGHUP: stop as Ctrl-C does."""
    raise KeyboardInterrupt


def _screen_display() -> str:
    return "bar" if sys.stderr.isatty() else "line"


def diagnostics(feed: Path) -> list[str]:
    """The error sentences of a JSON lines feed's diagnostic rows (for the hints); other
    formats give none."""
    if feed.suffix.lower() != ".jsonl":
        return []
    found: list[str] = []
    try:
        with open(feed, encoding="utf-8") as handle:
            for line in handle:
                if '"diagnostic"' not in line:
                    continue
                with_error = json.loads(line)
                if with_error.get("row_type") == "diagnostic" and with_error.get("error"):
                    found.append(str(with_error["error"]))
    except (OSError, ValueError):
        return found
    return found


def output_files(
    out: Path, summary: Path, log: Path | None, values: dict[str, Any]
) -> list[tuple[str, str]]:
    """(label, where) for every file the run wrote, in the order they are listed."""
    files = [("rows", str(out))]
    if summary.exists():
        files.append(("summary", str(summary)))
    if log is not None:
        files.append(("log", str(log)))
    if values.get("out_dir"):
        files.append(("markdown", f"{values['out_dir']}/"))
    if values.get("llms_txt"):
        folder = Path(values["llms_txt"])
        files.append(("llms.txt", f"{folder / 'llms.txt'}, {folder / 'llms-full.txt'}"))
    if values.get("combined"):
        files.append(("combined", str(values["combined"])))
    if values.get("changes"):
        files.append(("changes", str(values["changes"])))
    if values.get("index"):
        files.append(("index", str(values["index"])))
    return files


def _with_counts(total: int, counts: dict[str, int]) -> str:
    return f"{total}  ({format_counts(counts)})" if counts else str(total)


def summary_lines(
    summary: dict[str, Any], files: Iterable[tuple[str, str]], errors: Sequence[str] = ()
) -> list[str]:
    """The end-of-run summary as lines of text (see the module docstring)."""
    rows = summary.get("rows", {})
    pages, failed = rows.get("page", 0), rows.get("diagnostic", 0)
    by_type = summary.get("errors", {})
    rejected = summary.get("rejected_counts", {})
    not_fetched = summary.get("not_fetched_counts", {})
    elapsed = summary.get("elapsed_secs")
    took = f" in {elapsed:.1f}s" if isinstance(elapsed, int | float) else ""
    reason = str(summary.get("stop_reason") or "unknown")
    if reason == "finished":
        lines = [f"Crawl finished{took}"]
    else:
        lines = [f"Crawl stopped{took}: {reason.replace('_', ' ')}"]
    table: list[tuple[str, str]] = [("pages", str(pages))]
    table.append(
        ("diagnostics", f"{failed}" + (f"  ({format_counts(by_type)})" if by_type else ""))
    )
    if rejected:
        table.append(("rejected", f"{sum(rejected.values())}  ({format_counts(rejected)})"))
    if not_fetched:
        table.append(
            ("not fetched", f"{sum(not_fetched.values())}  ({format_counts(not_fetched)})")
        )
    lost = _removed_line(summary)
    if lost:
        table.append(("removed", lost))
    feed = _feed_line(summary.get("change_feed") or {})
    if feed:
        table.append(("change feed", feed))
    table.extend(files)
    width = max(len(label) for label, _ in table)
    lines += [f"  {label:<{width}}  {value}" for label, value in table]
    lines += [f"hint: {hint}" for hint in hints(summary, errors)]
    return lines


def _feed_line(feed: dict[str, Any]) -> str:
    """The change feed in one line: chunks upserted and deleted, embedded and reused,
    and what waits for the embedder and why; "" without a feed."""
    if not feed:
        return ""
    line = (
        f"{feed.get('upserts', 0)} chunks upserted, {feed.get('deletes', 0)} deleted "
        f"({feed.get('pages', 0)} pages); {feed.get('embedded', 0)} embedded, "
        f"{feed.get('reused', 0)} reused"
    )
    if feed.get("pending"):
        line += f"; {feed['pending']} wait for the embedder (the next run embeds them)"
    if feed.get("failure"):
        line += f"; failed: {feed['failure']}"
    return line


def _removed_line(summary: dict[str, Any]) -> str:
    """The loss audit of the run in one line: blocks removed from inside the content,
    the code blocks, tables and signatures among them, and the page that lost most of
    those; "" when nothing was removed."""
    totals: dict[str, int] = {}
    worst: list[tuple[int, str]] = []
    for site in summary.get("websites", {}).values():
        removed = site.get("removed") or {}
        for key in ("blocks", "code", "table", "signature"):
            totals[key] = totals.get(key, 0) + int(removed.get(key) or 0)
        for page in removed.get("pages") or []:
            lost = sum(int(page.get(k) or 0) for k in ("code", "table", "signature"))
            worst.append((lost, str(page.get("url"))))
    if not totals.get("blocks"):
        return ""
    line = (
        f"{totals['blocks']} blocks from inside the content (code {totals['code']}, "
        f"table {totals['table']}, signature {totals['signature']}; rows' removed column)"
    )
    if worst:
        lost, url = max(worst)
        line += f"; most code/tables/signatures: {url} ({lost})"
    return line
