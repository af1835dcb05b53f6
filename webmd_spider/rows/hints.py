"""What to try when a run wrote no page: one line per likely fix, read off the run
summary and the error sentences of its diagnostic rows.

Pure module: shared by ``webmd crawl`` (and so ``webmd demo`` / ``make run``), which
prints the hints under its summary, and the Python API's ``crawl()``, which returns them
in the summary and logs them. A failure below HTTP is named by its row
(``downloadermiddlewares/network_causes.py``: "no such host: NAME", "nothing listening
on HOST:PORT", "plain HTTP on this port: ... use http://HOST:PORT/"); the hint repeats
that cause with its fix, so that the last line a user reads says what went wrong.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

#: error sentence pattern -> the hint it gives (``{0}`` is the pattern's group)
_CAUSES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"no such host: (\S+)"),
        "no such host: {0}: check the spelling of the address (the name does not resolve)",
    ),
    (
        re.compile(r"nothing listening on (\S+)"),
        "nothing listening on {0}: check the port, and that the server is running",
    ),
    (
        re.compile(r"plain HTTP on this port: .*?use (http://\S+)"),
        "plain HTTP on this port: use {0}",
    ),
    (
        re.compile(r"the TLS handshake with (\S+) failed"),
        "the TLS handshake with {0} failed: check the scheme (http:// or https://) and port",
    ),
)
#: at most this many cause hints (a start file of many dead hosts gives a few, not all)
MAX_CAUSE_HINTS = 5


def cause_hints(errors: Sequence[str]) -> list[str]:
    """The causes named in ``errors`` (diagnostic rows' ``error``), each once, in the
    order first met, at most :data:`MAX_CAUSE_HINTS`."""
    found: list[str] = []
    for error in errors:
        for pattern, hint in _CAUSES:
            match = pattern.search(error)
            if match is None:
                continue
            text = hint.format(match.group(1).rstrip(".,;)"))
            if text not in found:
                found.append(text)
    return found[:MAX_CAUSE_HINTS]


def hints(summary: dict[str, Any], errors: Sequence[str] = ()) -> list[str]:
    """What to try when the run wrote no page: the cause a failure named (no such host,
    nothing listening, plain HTTP), the SSRF allowlist, robots.txt, the budgets, the
    address. Empty when pages were written."""
    rows = summary.get("rows", {})
    if rows.get("page", 0):
        return []
    found = cause_hints(errors)
    text = " ".join(errors).lower()
    if "ssrf guard" in text:
        found.append(
            "the address is loopback or private, which the SSRF guard refuses: add "
            "--allow-local for your own machine or network (or -a ssrf_allowlist=HOST:PORT)"
        )
    if "robots.txt" in text:
        found.append(
            "robots.txt disallows these pages for our user agent; crawl what it allows "
            "(-a respect_robots=false only on a site you own)"
        )
    stop_reason = str(summary.get("stop_reason", ""))
    if "budget" in stop_reason:
        found.append(
            f"the run stopped on its {stop_reason.replace('_', ' ')}: raise --max-pages or "
            "-a max_run_secs"
        )
    by_type = summary.get("errors", {})
    if not found and (by_type.get("unreachable") or by_type.get("timeout")):
        found.append("the server did not answer: check the URL and that the site is up")
    if not found and by_type.get("http-error"):
        found.append("the start page answered with an HTTP error: check the URL")
    if not found and not rows.get("diagnostic", 0):
        found.append("nothing was found to crawl: check the start URL and --include/--exclude")
    return found
