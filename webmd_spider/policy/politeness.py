"""Politeness arithmetic: per-host spacing, Crawl-delay floors, Retry-After and backoff.

Pure module (standard library only). Scrapy spaces requests to one download slot by
``slot.delay * (1 ± jitter)``; to keep a *floor* with jitter only upward we centre the
delay in the wanted range: delay = (low + high) / 2, jitter = (high - low) / (high + low),
so every interval lies in [low, high] and AutoThrottle (whose minimum is DOWNLOAD_DELAY)
can only widen it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

#: Default spacing between two requests to one host, seconds (WEBMD_HOST_DELAY).
DEFAULT_HOST_DELAY = "0.25-0.6"
#: Without Retry-After, waits double from this many seconds (1, 2, 4 ...).
BACKOFF_BASE_SECS = 1.0
#: A single wait (Retry-After or backoff) never exceeds this many seconds.
MAX_WAIT_SECS = 120.0
#: Refusals (429/503) of one URL before it is given up as `blocked`.
MAX_REFUSALS_PER_URL = 3
#: Refusals in a row from one website before the whole website is given up.
MAX_REFUSALS_PER_SITE = 8

#: Retry-After delay-seconds above this read as this (a 400-digit value would be float
#: inf); any such wait is past every budget and refused. Smaller values stay exact.
MAX_DELAY_SECONDS = 1e15
_DELAY_SECONDS = re.compile(r"[0-9]+", re.ASCII)
_RANGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:-\s*(\d+(?:\.\d+)?))?\s*$")


def parse_host_delay(text: str) -> tuple[float, float]:
    """``"0.25-0.6"`` → (0.25, 0.6); ``"1"`` → (1.0, 1.0); ``"0"`` → (0.0, 0.0).

    Raises ValueError with the accepted forms for anything else.
    """
    match = _RANGE.match(str(text))
    if not match:
        raise ValueError(
            f"host_delay must be seconds like '0.5' or a range like '0.25-0.6', got {text!r}"
        )
    low = float(match.group(1))
    high = float(match.group(2)) if match.group(2) is not None else low
    if high < low:
        raise ValueError(f"host_delay range must go up: {text!r}")
    return low, high


def delay_and_jitter(low: float, high: float) -> tuple[float, float]:
    """Scrapy's (DOWNLOAD_DELAY, DOWNLOAD_DELAY_JITTER) giving intervals in [low, high]."""
    if high <= 0:
        return 0.0, 0.0
    return (low + high) / 2, (high - low) / (high + low)


def delay_for_floor(floor: float, jitter: float) -> float:
    """The slot delay whose lowest jittered value is ``floor`` (Crawl-delay: jitter up only)."""
    return floor / (1 - jitter) if jitter < 1 else floor


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delay-seconds or HTTP-date, RFC 9110
    §10.2.3); None when absent or unreadable (the caller then backs off). Never negative,
    never raises: the value comes from the server.

    delay-seconds is ``1*DIGIT``: ASCII digits only (``"²".isdigit()`` is true, and
    ``"١٢"`` is an Arabic-Indic twelve; neither is a delay). A date whose year or zone
    does not fit a ``datetime`` is unreadable, not an error.
    """
    if not value:
        return None
    value = value.strip()
    if _DELAY_SECONDS.fullmatch(value):
        return min(float(value), MAX_DELAY_SECONDS)
    try:
        when = parsedate_to_datetime(value)
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        wait = (when - (now or datetime.now(UTC))).total_seconds()
    except (TypeError, ValueError, IndexError, OverflowError, AttributeError):
        return None
    return max(0.0, wait)


def backoff(attempt: int) -> float:
    """Exponential backoff for the n-th refusal (1-based) without Retry-After."""
    return min(MAX_WAIT_SECS, BACKOFF_BASE_SECS * (2 ** max(0, attempt - 1)))
