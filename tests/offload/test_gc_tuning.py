"""The crawl's garbage-collector settings (webmd_spider/offload/gc_tuning.py)."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest
from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer
from webmd_spider.offload.gc_tuning import restore_gc, tune_gc
from webmd_spider.options import OptionsError, build_options

from ..crawling import by_type, crawl


def _in_fresh_interpreter(code: str) -> str:
    """Run ``code`` in a new Python (the collector is process-wide) and return what it
    printed."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.strip()


def test_tune_then_restore() -> None:
    out = _in_fresh_interpreter(
        "import gc\n"
        "from webmd_spider.offload.gc_tuning import restore_gc, tune_gc\n"
        "before = gc.get_threshold()\n"
        "state = tune_gc(5000)\n"
        "print(gc.get_threshold() == (5000, *before[1:]), gc.get_freeze_count() > 1000)\n"
        "restore_gc(state)\n"
        "print(gc.get_threshold() == before, gc.get_freeze_count())\n"
    )
    assert out == "True True\nTrue 0"


def test_zero_leaves_the_collector_alone() -> None:
    before = (gc.get_threshold(), gc.get_freeze_count())
    assert tune_gc(0) is None
    restore_gc(None)
    assert (gc.get_threshold(), gc.get_freeze_count()) == before


@deferred_f_from_coro_f
async def test_a_crawl_leaves_the_collector_as_it_found_it(
    basic_site: SiteServer, tmp_path: Path
) -> None:
    before = (gc.get_threshold(), gc.get_freeze_count())
    rows = await crawl(tmp_path, start=basic_site.base_url + "/", max_pages="3")
    assert by_type(rows, "page")
    # nothing of the finished crawl stays frozen (it would never be collected)
    assert (gc.get_threshold(), gc.get_freeze_count()) == before


def test_the_option_is_checked() -> None:
    assert build_options({}, {"gc_threshold": "20000"}).gc_threshold == 20000
    assert build_options({}, {}).gc_threshold == 10_000
    with pytest.raises(OptionsError, match=r"gc_threshold must be in the range 0\.\.100000"):
        build_options({}, {"gc_threshold": "-5"})
