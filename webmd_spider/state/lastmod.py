"""When a sitemap's ``<lastmod>`` may stand in for a request (issue 34): the rules of
"trust, but verify", as pure functions.

An incremental run may skip a known page without asking the server when the website's
sitemap dates it no later than the time we last fetched it. The sitemap protocol
(sitemaps.org) defines ``<lastmod>`` as the date of last modification in W3C Datetime
format, and says search engines may use it to skip unchanged pages; many generators get
it wrong, so it is only trusted

* when it is not in the future and not one value stamped on every entry of a large
  sitemap (a generator writing its build time): :func:`distrust_reason`;
* while a random sample of the pages it lets us skip, fetched anyway, shows no change
  (:func:`sample_size`, :func:`pick_sample`); one sampled page that changed under an
  old ``lastmod`` distrusts the website for this run and the next ones.

PURE: standard library only.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta

#: ``trust_lastmod`` values: auto (trust, sample, and distrust on evidence), always
#: (skip on lastmod whatever the evidence; the sample still runs and reports), never
TRUST_MODES = ("auto", "always", "never")
#: the sample: at least this many pages ...
SAMPLE_MIN = 5
#: ... or this share of the pages lastmod lets us skip, whichever is more (capped by the
#: ``lastmod_sample_max`` option and by the pages themselves)
SAMPLE_SHARE = 0.02
#: a sitemap listing at least this many pages with one single lastmod value is stamped
#: with its build time, not with each page's modification
UNIFORM_MIN = 20
#: clock skew allowed between the server and us before a lastmod is "in the future"
FUTURE_SLACK = timedelta(days=1)

_W3C = re.compile(
    r"^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?"
    r"\s*(Z|[+-]\d{2}:?\d{2})?)?)?)?$"
)


def parse_lastmod(text: str | None) -> datetime | None:
    """A ``<lastmod>`` (W3C Datetime: ``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD``, with
    ``Thh:mm[:ss[.s]]TZD``) as an aware UTC datetime; a date without a time is the end of
    that day (a page dated today may have changed after our fetch this morning), a time
    without a zone is UTC. None when it does not parse."""
    match = _W3C.match((text or "").strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, zone = match.groups()
    try:
        if hour is None:
            start = datetime(int(year), int(month or 1), int(day or 1), tzinfo=UTC)
            if day is None and month is None:
                return start.replace(year=start.year + 1) - timedelta(seconds=1)
            if day is None:
                nxt = start.replace(day=28) + timedelta(days=4)
                return nxt.replace(day=1) - timedelta(seconds=1)
            return start + timedelta(days=1) - timedelta(seconds=1)
        moment = datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second or 0), tzinfo=UTC
        )
    except ValueError:
        return None
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        moment -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return moment


def parse_seen(text: str | None) -> datetime | None:
    """A state's ``last_seen`` (``2026-11-30T12:00:00Z``) as an aware datetime."""
    try:
        return datetime.strptime((text or "").strip(), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None


def skips(lastmod: str | None, last_seen: str | None, now: datetime) -> bool:
    """Whether a page dated `lastmod` by the sitemap need not be asked for, having been
    fetched at `last_seen`: the date parses, is not in the future, and is no later than
    that fetch."""
    modified, seen = parse_lastmod(lastmod), parse_seen(last_seen)
    if modified is None or seen is None:
        return False
    return modified <= seen and modified <= now + FUTURE_SLACK


def distrust_reason(lastmods: Iterable[str], now: datetime) -> str | None:
    """Why a website's sitemap dates cannot be trusted at all, or None: one value on
    every one of UNIFORM_MIN or more entries (a build time), or most dates in the
    future (a wrong clock)."""
    values = [value for value in lastmods if value]
    if len(values) >= UNIFORM_MIN and len(set(values)) == 1:
        return f"every one of its {len(values)} sitemap entries has lastmod {values[0]}"
    dates = [parse_lastmod(v) for v in values]
    future = sum(1 for d in dates if d is not None and d > now + FUTURE_SLACK)
    if values and future * 2 > len(values):
        return f"{future} of its {len(values)} sitemap lastmod dates are in the future"
    return None


def sample_size(candidates: int, bound: int) -> int:
    """How many of `candidates` pages skipped by lastmod are fetched anyway: at least
    SAMPLE_MIN or SAMPLE_SHARE of them, at most `bound` and `candidates`."""
    wanted = max(SAMPLE_MIN, math.ceil(candidates * SAMPLE_SHARE))
    return max(0, min(candidates, bound, wanted))


def pick_sample(urls: Sequence[str], size: int, seed: str) -> set[str]:
    """A random `size` of `urls`, seeded (by the run's id: each run draws anew, a run's
    draw can be replayed)."""
    if size >= len(urls):
        return set(urls)
    return set(random.Random(seed).sample(sorted(urls), size))
