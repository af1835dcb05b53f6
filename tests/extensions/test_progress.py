"""The progress bar's line (extensions/progress.py) as rich draws it, at the widths of
real terminals: the page count and the ETA are never cut (issue 31: at 80 columns
the ETA read ``0:00:…``)."""

from __future__ import annotations

import re

import pytest
from rich.console import Console

from webmd_spider.extensions.progress import Progress, bar_fields, eta_text, progress_bar

#: A large crawl: every figure as wide as it gets in practice.
BIG = Progress(pages=12_345, failed=1_234, queued=123_456, budget=50_000, elapsed=1_000.0)
SMALL = Progress(pages=3, failed=0, queued=12, budget=50, elapsed=2.0)


def drawn(now: Progress | None, width: int) -> str:
    """The bar's line for ``now`` as a terminal of ``width`` columns shows it."""
    console = Console(width=width, record=True, force_terminal=True, color_system=None)
    bar = progress_bar(console)
    bar.add_task("crawl", **bar_fields(now))
    console.print(bar.get_renderable())
    text = console.export_text()
    lines = text.splitlines()
    assert len(lines) == 1, text
    assert len(lines[0]) <= width
    return lines[0]


@pytest.mark.parametrize("width", [60, 80, 100, 200])
@pytest.mark.parametrize("now", [BIG, SMALL], ids=["big", "small"])
def test_count_and_eta_are_whole_at_any_common_width(now: Progress, width: int) -> None:
    line = drawn(now, width)
    eta = eta_text(now.eta_secs)
    assert re.fullmatch(r"ETA \d+:\d\d:\d\d", eta)
    assert line.rstrip().endswith(eta)
    assert line.startswith("crawling ")
    assert f" {now.pages}/{now.total} pages " in line


def test_the_details_give_way_with_an_ellipsis() -> None:
    wide, narrow = drawn(BIG, 200), drawn(BIG, 80)
    assert "123456 queued · 1234 failed · 12.3/s · budget 50000" in wide
    assert "…" in narrow and "123456 queued" in narrow


def test_eta_is_the_pages_left_at_the_rate_so_far() -> None:
    # 3 pages in 2 s, 12 more queued: 8 s left
    assert SMALL.eta_secs == 8.0
    assert eta_text(SMALL.eta_secs) == "ETA 0:00:08"
    assert eta_text(3_725.4) == "ETA 1:02:05"
    assert eta_text(None) == "ETA -:--:--"
    done = Progress(pages=5, failed=0, queued=0, budget=50, elapsed=1.0)
    assert eta_text(done.eta_secs) == "ETA 0:00:00"
    assert "ETA -:--:--" in drawn(None, 80) and "0 pages" in drawn(None, 80)
