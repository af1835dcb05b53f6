"""An extraction worker process: ``python -m webmd_spider.offload.worker JOBS_FD RESULTS_FD``.

``offload.pool.ExtractPool`` starts each worker as a fresh interpreter running this
module, with the read end of a job pipe and the write end of a result pipe. Not through
``multiprocessing``: its start methods run the parent's main script again in every
worker (as ``__mp_main__``), so a crawl started from a script without an
``if __name__ == "__main__":`` guard would run a second whole crawl in each worker, and
under ``scrapy crawl`` every worker would import Scrapy and Twisted for nothing.

Frames use ``multiprocessing.connection``'s format. The first job frame is the pickled
``(ExtractOptions, (chunk_size, chunk_overlap), gc_threshold)`` (see ``gc_tuning``); the
worker then answers ``READY`` and, for every later job frame (a pickled
``(body, url, encoding)``), one result frame: the pickled ``page_work.PageWork``, or a
pickled None when the page failed here (the crawl process then extracts it itself).
The worker ends when its job pipe ends (the pool closed, or the crawl process is
gone). It ignores SIGINT: the crawl process decides what stops.

Test-only hook, never set by the product: when the environment variable
``WEBMD_TEST_SLOW_PAGE_MARKER`` is set (read once, when the worker starts), a page whose
body contains its value makes the worker sleep ``WEBMD_TEST_SLOW_PAGE_SECS`` seconds
(default 60) before extracting it. The tests of the extraction deadline and of the
close use it for a page that holds a worker for a known time, rather than a page made
slow by a parser's cost (issue 35). Unset, it costs one comparison per page.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import time
from dataclasses import replace
from multiprocessing.connection import Connection

from webmd_spider.extract.page_type import warm_up
from webmd_spider.offload.gc_tuning import tune_gc
from webmd_spider.offload.page_work import extract_page

READY = b"ready"
#: the test-only hook (see the module docstring): the marker and the sleep
SLOW_PAGE_MARKER_ENV = "WEBMD_TEST_SLOW_PAGE_MARKER"
SLOW_PAGE_SECS_ENV = "WEBMD_TEST_SLOW_PAGE_SECS"
_SLOW_PAGE_SECS = 60.0


def _slow_page_hook() -> tuple[bytes, float] | None:
    """The test-only slow-page marker and sleep from the environment, or None (unset)."""
    marker = os.environ.get(SLOW_PAGE_MARKER_ENV)
    if not marker:
        return None
    return marker.encode("utf-8"), float(os.environ.get(SLOW_PAGE_SECS_ENV) or _SLOW_PAGE_SECS)


def serve(jobs: Connection, results: Connection) -> None:
    """A worker's life (see the module docstring)."""
    slow = _slow_page_hook()
    try:
        options, (size, overlap), gc_threshold = pickle.loads(jobs.recv_bytes())
        tune_gc(gc_threshold)
        warm_up()  # before "ready": the first page is not the one that pays for it
        results.send_bytes(READY)
    except (EOFError, OSError):  # the pool closed before this worker was ready
        return
    while True:
        try:
            body, url, encoding, repeated = pickle.loads(jobs.recv_bytes())
        except (EOFError, OSError):
            return
        if slow is not None and isinstance(body, bytes) and slow[0] in body:  # test-only hook
            time.sleep(slow[1])
        try:
            own = options if repeated is None else replace(options, repeated_paragraphs=repeated)
            work = extract_page(body, url, encoding, own, size, overlap)
            result = pickle.dumps(work, pickle.HIGHEST_PROTOCOL)
        except Exception:  # None: the crawl process extracts the page, as it would alone
            result = pickle.dumps(None)
        try:
            results.send_bytes(result)
        except OSError:  # the crawl process went away
            return


def main(argv: list[str] | None = None) -> int:
    """Entry point: ``JOBS_FD RESULTS_FD`` (inherited pipe descriptors)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    args = sys.argv[1:] if argv is None else argv
    jobs_fd, results_fd = (int(a) for a in args)
    serve(Connection(jobs_fd, writable=False), Connection(results_fd, readable=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
