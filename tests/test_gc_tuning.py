"""The crawl's garbage-collector settings (webmd_spider/gc_tuning.py)."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from webmd_spider.gc_tuning import tune_gc
from webmd_spider.options import OptionsError, build_options


def _in_fresh_interpreter(code: str) -> str:
    """Run ``code`` in a new Python (the collector is process-wide: never tune the
    test process itself) and return what it printed."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.strip()


def test_threshold_set_and_start_up_objects_frozen() -> None:
    out = _in_fresh_interpreter(
        "import gc\n"
        "from webmd_spider.gc_tuning import tune_gc\n"
        "middle, old = gc.get_threshold()[1:]\n"
        "changed = tune_gc(5000)\n"
        "frozen = gc.get_freeze_count()\n"
        "print(changed, gc.get_threshold() == (5000, middle, old), frozen > 1000)\n"
        "junk = [[] for _ in range(100)]\n"
        "tune_gc(6000)  # a second crawl in the same process: nothing more frozen\n"
        "print(gc.get_freeze_count() == frozen, gc.get_threshold()[0])\n"
    )
    assert out == "True True True\nTrue 6000"


def test_zero_leaves_the_collector_alone() -> None:
    before = (gc.get_threshold(), gc.get_freeze_count())
    assert tune_gc(0) is False
    assert (gc.get_threshold(), gc.get_freeze_count()) == before


def test_the_option_is_checked() -> None:
    assert build_options({}, {"gc_threshold": "20000"}).gc_threshold == 20000
    assert build_options({}, {}).gc_threshold == 10_000
    with pytest.raises(OptionsError, match=r"gc_threshold must be in the range 0\.\.10000000"):
        build_options({}, {"gc_threshold": "-5"})
