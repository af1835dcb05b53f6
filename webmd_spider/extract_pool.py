"""Extraction in worker processes, driven from the crawl's asyncio event loop.

``ExtractPool(n, options, chunk_budget)`` starts ``n`` worker processes (forkserver,
with the extraction modules preloaded in the fork server, so each worker starts with
lxml and the extractor imported) and hands them pages; each worker runs
``page_work.extract_page`` and sends back a ``PageWork``.

Why not ``concurrent.futures.ProcessPoolExecutor``: it moves every job and result
through two helper threads of the crawl process (a manager thread and a queue feeder),
with a wake-up pipe write per job and a thread hand-off per result; measured on the
PostgreSQL documentation that cost the crawl process about 1.4 ms of CPU per page,
half of everything else it does. Here each worker has one job pipe and one result
pipe, both non-blocking and watched by the event loop itself: one ``write`` per job,
one or two ``read`` per result, no threads after start-up.

Contract:

* :meth:`ExtractPool.start` returns at once: the workers start in a background thread
  (starting the fork server takes about a second the first time), and each says when
  it is ready. :meth:`ExtractPool.submit` returns None whenever no worker can take the
  page now (none ready yet, each holding ``MAX_IN_FLIGHT`` pages already, or all gone):
  the caller extracts the page itself, so nothing ever waits for the pool to warm up.
* A worker that dies (crash, killed) fails its pages with :class:`WorkerGone`; the
  caller extracts them itself, so no page is lost. The other workers go on.
* :meth:`ExtractPool.close` (idempotent) fails the pages still out with
  :class:`WorkerGone`, closes the pipes (a worker exits when its job pipe ends), and
  waits at most ``CLOSE_WAIT_SECS`` before terminating, then killing, a worker still
  running: it never hangs the process. Workers are daemon processes and ignore SIGINT
  (Ctrl-C reaches the whole process group; the crawl process decides what stops).

Frames on the pipes use ``multiprocessing.connection``'s format (a signed 32-bit
big-endian length, or -1 and an unsigned 64-bit length), so the worker side is plain
``Connection.recv_bytes`` / ``send_bytes``. No Scrapy or Twisted here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import pickle
import signal
import struct
import threading
import time
from collections import deque
from multiprocessing.connection import Connection
from typing import Any

from webmd_spider.extract import ExtractOptions
from webmd_spider.page_work import PageWork, extract_page

logger = logging.getLogger(__name__)

#: Pages queued at one worker at most; past that the crawl process extracts the page
#: itself. A queue keeps the worker busy (its next page waits in its pipe, so it never
#: idles until the crawl process notices a result); the bound lets an idle-enough crawl
#: process share the extraction when the workers fall behind. Measured on the PostgreSQL
#: docs, 2 cores, 1 worker: 227 pages/s and 90 MB with 8, 226 with 64, 215 pages/s and
#: 131 MB with no bound (every page to the worker, whatever the queue).
MAX_IN_FLIGHT = 8
#: "auto" never starts more workers than this: the crawl process spends about as much
#: CPU on a page as a worker does, so it cannot keep more of them busy.
MAX_AUTO_PROCESSES = 4
#: close(): how long workers get to finish their current page before being terminated.
CLOSE_WAIT_SECS = 1.0
#: Modules the fork server imports once, so that every worker starts ready.
PRELOAD = ["webmd_spider.extract_pool"]
_READY = b"ready"
_READ_SIZE = 1 << 20


class WorkerGone(Exception):
    """The worker holding a page died, or the pool closed: extract the page elsewhere."""


def default_processes(cpu_count: int | None = None) -> int:
    """The ``extract_processes`` "auto" value: one worker per core beyond the crawl
    process's own (:func:`usable_cpus`), none on a single core (the worker would only
    take turns with the crawl process), at most ``MAX_AUTO_PROCESSES``."""
    cores = cpu_count if cpu_count is not None else usable_cpus()
    return max(0, min(cores - 1, MAX_AUTO_PROCESSES))


def usable_cpus() -> int:
    """The cores this process may use: its CPU affinity, lowered to a container's CPU
    quota (cgroup v2 ``cpu.max``, v1 ``cpu.cfs_quota_us``) when one is set, since
    ``os.cpu_count()`` reports the host's cores inside a container."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    for quota_file, period_file in (
        ("/sys/fs/cgroup/cpu.max", None),
        ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "/sys/fs/cgroup/cpu/cpu.cfs_period_us"),
    ):
        try:
            with open(quota_file, encoding="ascii") as handle:
                fields = handle.read().split()
            if period_file is not None:
                with open(period_file, encoding="ascii") as handle:
                    fields.append(handle.read().strip())
            quota, period = int(fields[0]), int(fields[1])
        except (OSError, ValueError, IndexError):
            continue  # no such file, or "max" / -1: no quota
        if quota > 0 and period > 0:
            cores = min(cores, max(1, -(-quota // period)))
        break
    return max(1, cores)


def _frame(payload: bytes) -> bytes:
    """``payload`` with the ``multiprocessing.connection`` length header."""
    if len(payload) > 0x7FFFFFFF:
        return struct.pack("!iQ", -1, len(payload)) + payload
    return struct.pack("!i", len(payload)) + payload


def _serve(jobs: Connection, results: Connection, options: ExtractOptions, budget: Any) -> None:
    """A worker's life: say ready, then extract every page that comes until the job
    pipe ends (the pool closed, or the crawl process is gone)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    size, overlap = budget
    results.send_bytes(_READY)
    while True:
        try:
            body, url, encoding = pickle.loads(jobs.recv_bytes())
        except (EOFError, OSError):
            return
        try:
            result = pickle.dumps(
                extract_page(body, url, encoding, options, size, overlap), pickle.HIGHEST_PROTOCOL
            )
        except Exception:  # None: the crawl process extracts the page, as it would alone
            result = pickle.dumps(None)
        try:
            results.send_bytes(result)
        except OSError:  # the crawl process went away
            return


class _Worker:
    """One worker process and the crawl process's ends of its two pipes."""

    def __init__(self, process: Any, jobs: Connection, results: Connection) -> None:
        self.process = process
        self.jobs = jobs
        self.results = results
        self.job_fd = jobs.fileno()
        self.result_fd = results.fileno()
        self.ready = False
        self.alive = True
        self.waiting: deque[asyncio.Future[PageWork]] = deque()  # in job order
        self.inbox = bytearray()  # result bytes read, not yet a whole frame
        self.outbox = bytearray()  # job bytes the pipe did not take yet


class ExtractPool:
    """Worker processes for ``extract_page`` (see the module docstring)."""

    def __init__(
        self, processes: int, options: ExtractOptions, chunk_budget: tuple[int, int] = (0, 0)
    ) -> None:
        self.processes = processes
        self.options = options
        self.chunk_budget = chunk_budget
        self.workers: list[_Worker] = []
        self.closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._buffer = bytearray(_READ_SIZE)
        self._started_at = 0.0
        self._starter: threading.Thread | None = None

    # -- start ---------------------------------------------------------------------
    def start(self) -> None:
        """Start the workers in the background; call from the running event loop."""
        self._loop = asyncio.get_running_loop()
        self._started_at = time.monotonic()
        self._starter = threading.Thread(
            target=self._start_workers, name="webmd-extract-start", daemon=True
        )
        self._starter.start()

    def _start_workers(self) -> None:
        # forkserver: the crawl process runs threads (DNS, the reactor's pool); a fork of
        # it could inherit a held lock. Process.start() waits for the fork server, which
        # first imports PRELOAD: hence this thread.
        try:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(PRELOAD)
        except ValueError as exc:  # no fork server on this platform
            logger.warning("no extraction processes (%s); extracting in the crawl process", exc)
            return
        for number in range(self.processes):
            if self.closed:
                return
            try:
                jobs_r, jobs_w = context.Pipe(duplex=False)
                results_r, results_w = context.Pipe(duplex=False)
                process = context.Process(
                    target=_serve,
                    args=(jobs_r, results_w, self.options, self.chunk_budget),
                    name=f"webmd-extract-{number + 1}",
                    daemon=True,
                )
                process.start()
            except Exception as exc:  # no worker: pages are extracted in the crawl process
                logger.warning("could not start an extraction process: %s", exc)
                return
            jobs_r.close()  # the worker's ends: a dead worker then reads as end of file
            results_w.close()
            worker = _Worker(process, jobs_w, results_r)
            try:
                assert self._loop is not None
                self._loop.call_soon_threadsafe(self._attach, worker)
            except RuntimeError:  # the event loop is closed: the crawl is over
                self._stop_worker(worker, time.monotonic())
                return

    def _attach(self, worker: _Worker) -> None:
        """In the event loop: watch a started worker's result pipe."""
        if self.closed:
            self._stop_worker(worker, time.monotonic())
            return
        assert self._loop is not None
        os.set_blocking(worker.job_fd, False)
        os.set_blocking(worker.result_fd, False)
        self.workers.append(worker)
        self._loop.add_reader(worker.result_fd, self._on_readable, worker)

    # -- jobs ----------------------------------------------------------------------
    @property
    def ready(self) -> int:
        """How many workers are ready for pages."""
        return sum(1 for w in self.workers if w.ready and w.alive)

    def submit(
        self, body: bytes, url: str, encoding: str | None
    ) -> asyncio.Future[PageWork] | None:
        """Hand a page to the least busy ready worker: a future of its ``PageWork``
        (failing with :class:`WorkerGone` if that worker dies), or None when no worker
        can take it now."""
        best: _Worker | None = None
        for worker in self.workers:
            load = len(worker.waiting)
            if not (worker.ready and worker.alive) or load >= MAX_IN_FLIGHT:
                continue
            if best is None or load < len(best.waiting):
                best = worker
        if best is None or self._loop is None:
            return None
        future: asyncio.Future[PageWork] = self._loop.create_future()
        best.waiting.append(future)
        self._send(best, _frame(pickle.dumps((body, url, encoding), pickle.HIGHEST_PROTOCOL)))
        return future

    def _send(self, worker: _Worker, data: bytes) -> None:
        if worker.outbox:
            worker.outbox += data  # the writer callback is already waiting for room
            return
        try:
            written = os.write(worker.job_fd, data)
        except BlockingIOError:
            written = 0
        except OSError as exc:
            self._lose(worker, f"job pipe: {exc}")
            return
        if written < len(data):
            worker.outbox += data[written:]
            assert self._loop is not None
            self._loop.add_writer(worker.job_fd, self._on_writable, worker)

    def _on_writable(self, worker: _Worker) -> None:
        try:
            written = os.write(worker.job_fd, worker.outbox)
        except BlockingIOError:
            return
        except OSError as exc:
            self._lose(worker, f"job pipe: {exc}")
            return
        del worker.outbox[:written]
        if not worker.outbox and self._loop is not None:
            self._loop.remove_writer(worker.job_fd)

    def _on_readable(self, worker: _Worker) -> None:
        try:
            # into one reused buffer: a fresh 1 MB bytes object per read costs an mmap
            count = os.readv(worker.result_fd, [self._buffer])
        except BlockingIOError:
            return
        except OSError as exc:
            self._lose(worker, f"result pipe: {exc}")
            return
        if not count:
            code = worker.process.exitcode
            self._lose(worker, "exited" if code is None else f"exit code {code}")
            return
        inbox = worker.inbox
        with memoryview(self._buffer) as view:
            inbox += view[:count]
        while len(inbox) >= 4 and worker.alive:
            (size,) = struct.unpack_from("!i", inbox)
            start = 4
            if size == -1:
                if len(inbox) < 12:
                    return
                (size,) = struct.unpack_from("!Q", inbox, 4)
                start = 12
            if len(inbox) < start + size:
                return
            with memoryview(inbox) as view, view[start : start + size] as frame:
                self._on_frame(worker, frame)
            del inbox[: start + size]

    def _on_frame(self, worker: _Worker, payload: memoryview) -> None:
        if not worker.ready:
            worker.ready = payload == _READY
            if worker.ready and self.ready == self.processes:
                logger.info(
                    "%d extraction process%s ready, %.1f s after start",
                    self.processes,
                    "" if self.processes == 1 else "es",
                    time.monotonic() - self._started_at,
                )
            return
        if not worker.waiting:
            self._lose(worker, "a result for no page")
            return
        future = worker.waiting.popleft()
        if future.done():  # the awaiting side gave up (cancelled)
            return
        try:
            work = pickle.loads(payload)
        except Exception as exc:
            work = None
            logger.warning("unreadable result from %s: %s", worker.process.name, exc)
        if work is None:  # the page failed there: the crawl process extracts it
            future.set_exception(WorkerGone("the page failed in the extraction process"))
        else:
            future.set_result(work)

    def _lose(self, worker: _Worker, why: str) -> None:
        """A worker died: its pages fail over to the crawl process; the rest go on."""
        if worker not in self.workers:
            return
        self.workers.remove(worker)
        logger.warning(
            "extraction process %s stopped (%s); its %d pages are extracted in the crawl process",
            worker.process.name,
            why,
            len(worker.waiting),
        )
        self._detach(worker)
        self._stop_worker(worker, time.monotonic() + CLOSE_WAIT_SECS)

    def _detach(self, worker: _Worker) -> None:
        """Stop watching the worker's pipes (before they are closed: a closed descriptor
        number may soon belong to a socket) and fail its pages over."""
        worker.alive = False
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(worker.result_fd)
            self._loop.remove_writer(worker.job_fd)
        while worker.waiting:
            future = worker.waiting.popleft()
            if not future.done():
                future.set_exception(WorkerGone(f"{worker.process.name} stopped"))

    @staticmethod
    def _stop_worker(worker: _Worker, deadline: float) -> None:
        """Close the pipes (the worker exits at the end of its job pipe), then make sure
        it is gone by ``deadline``."""
        _close_pipes(worker)
        _reap(worker, deadline)

    # -- close ---------------------------------------------------------------------
    def close(self) -> None:
        """Stop every worker (see the module docstring); safe to call twice."""
        if self.closed:
            return
        self.closed = True
        workers, self.workers = self.workers, []
        for worker in workers:
            self._detach(worker)
        for worker in workers:
            _close_pipes(worker)  # all first: the workers wind down side by side
        deadline = time.monotonic() + CLOSE_WAIT_SECS
        for worker in workers:
            _reap(worker, deadline)


def _close_pipes(worker: _Worker) -> None:
    worker.alive = False
    for conn in (worker.jobs, worker.results):
        with contextlib.suppress(OSError):
            conn.close()


def _reap(worker: _Worker, deadline: float) -> None:
    """Wait for the worker until ``deadline``, then terminate it, and kill it as a
    last resort: a worker stuck in a page never holds the crawl process open."""
    process = worker.process
    process.join(max(0.0, deadline - time.monotonic()))
    if process.exitcode is None:
        process.terminate()
        process.join(0.5)
    if process.exitcode is None:
        process.kill()
        process.join(0.5)
