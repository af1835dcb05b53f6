"""Extraction in worker processes, driven from the crawl's asyncio event loop.

``ExtractPool(n, options, chunk_budget, gc_threshold)`` starts ``n`` worker processes
(``python -m webmd_spider.offload.worker``, see that module for why not
``multiprocessing``) and hands them pages; each worker runs ``page_work.extract_page``
and sends back a ``PageWork``.

Why not ``concurrent.futures.ProcessPoolExecutor``: it moves every job and result
through two helper threads of the crawl process (a manager thread and a queue feeder),
with a wake-up pipe write per job and a thread hand-off per result; measured on the
PostgreSQL documentation that cost the crawl process about 1.4 ms of CPU per page,
half of everything else it does. Here each worker has one job pipe and one result
pipe, both non-blocking and watched by the event loop itself: one ``write`` per job,
one or two ``read`` per result, no threads.

Contract:

* :meth:`ExtractPool.start` returns at once: each worker says when it is ready (about
  0.2 s later: a fresh interpreter importing lxml and the extractor).
  :meth:`ExtractPool.submit` returns None whenever no worker can take the page now
  (none ready yet, each holding ``MAX_IN_FLIGHT`` pages already, or all gone): the
  caller extracts the page itself, so nothing ever waits for the pool to warm up.
* A worker that dies (crash, killed) fails its pages with :class:`WorkerGone`; the
  caller extracts them itself, so no page is lost. The other workers go on.
* :meth:`ExtractPool.close` (idempotent) fails the pages still out with
  :class:`PoolClosed` (a :class:`WorkerGone`), closes the pipes (an idle worker exits
  when its job pipe ends), kills at once the workers that held a page, and waits at
  most ``CLOSE_WAIT_SECS`` before terminating, then killing, a worker still running:
  it never hangs the process. Workers run in a session of their own and
  ignore SIGINT (Ctrl-C is the crawl process's to handle); a worker whose crawl
  process is killed reads the end of its job pipe and exits.

Frames on the pipes use ``multiprocessing.connection``'s format (a signed 32-bit
big-endian length, or -1 and an unsigned 64-bit length), so the worker side is plain
``Connection.recv_bytes`` / ``send_bytes``. No Scrapy or Twisted here.

A worker that dies (a crash, an out-of-memory kill) is replaced, up to
``RESTARTS_PER_WORKER`` times per worker over the pool's life (a worker that cannot
start at all must not be started forever); past that the crawl goes on with the others,
and extracts in its own process when none is left.

Hostile pages: a page can cost a worker far more CPU than its size suggests (libxml2 is
quadratic in the attributes of one element: 80,000 attributes in 0.87 MB took ~35 s
before ``extract.parse`` cut such tags; the deadline is for what no guard foresaw).
Each worker's current page has a deadline (``deadline``, :data:`EXTRACT_DEADLINE_SECS`
by default): past it, the page's future fails with :class:`ExtractionTimeout` (the
caller writes a diagnostic, it must not extract the page itself), and the worker is
killed and replaced (a timeout does not use up ``RESTARTS_PER_WORKER``: the worker
did start); the other pages it held fail with :class:`WorkerGone`. A watchdog on the
event loop checks the deadlines (every second at most, nothing per page but a clock
read). :meth:`ExtractPool.extract` is the whole contract for a caller in one call: it
submits, waits for a worker when a large page (:data:`WAIT_FOR_WORKER_BYTES`) finds
none free (starting, or all busy) instead of handing it back, and submits once more
when the page's worker was lost to something else. :meth:`ExtractPool.close` kills at
once the workers still holding a page (whatever they were doing is thrown away) and
bounds its total wait (about ``CLOSE_WAIT_SECS`` + 1 s, whatever the number of
workers); pages still out then fail with :class:`PoolClosed`.

Why one file of over 500 lines: the pipes, the workers' life and the close are one
protocol; the close and a worker's death must both see every page still out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import struct
import subprocess
import sys
import time
from collections import deque

from webmd_spider.documents.detect import sniff
from webmd_spider.extract import ExtractOptions
from webmd_spider.offload.page_work import PageWork
from webmd_spider.offload.worker import READY

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
#: How many replacements of dead workers a pool starts, per worker it was asked for.
RESTARTS_PER_WORKER = 3
#: close(): how long idle workers get to exit by themselves (they read the end of their
#: job pipe) before being terminated; a worker still holding a page is killed at once.
CLOSE_WAIT_SECS = 1.0
#: After SIGTERM, and again after SIGKILL, close() waits this long for the stragglers.
_SIGNAL_WAIT_SECS = 0.5
#: A worker still on one page after this many seconds is killed and replaced, and the
#: page fails with ExtractionTimeout. Ordinary pages take milliseconds (~10 ms for the
#: golden pages; 0.3 s for a 0.9 MB page of 3,000 paragraphs), so 30 s is only reached
#: by a page built to be slow.
EXTRACT_DEADLINE_SECS = 30.0
#: extract(): a page at least this large is never handed back to the caller (to extract
#: in the crawl process, blocking its event loop) while a worker is alive or starting:
#: it waits for one. Under 64 KiB even the worst case known (one element with ~6,000
#: attributes, before ``extract.parse`` cut tags of over 500) cost the crawl process
#: ~0.3 s.
WAIT_FOR_WORKER_BYTES = 64 * 1024
#: extract(): a large page waits for a free worker at most the deadline plus this.
ROOM_WAIT_EXTRA_SECS = 5.0
_READ_SIZE = 1 << 20
#: What a worker runs: ``sys.executable`` + this + the two pipe descriptors. A module
#: attribute so that a benchmark can put a stand-in worker there (bench/stub_extract.py).
WORKER_ARGV: list[str] = ["-m", "webmd_spider.offload.worker"]


class WorkerGone(Exception):
    """The worker holding a page died, or the pool closed: extract the page elsewhere."""


class PageFailed(WorkerGone):
    """The page raised in the extraction process (extract it in the crawl process)."""


class PoolClosed(WorkerGone):
    """The pool closed while the page was out: the run is ending. A subclass of
    WorkerGone for callers that only know that one; a caller that knows it should not
    extract the page in the crawl process now (that could hold the close)."""


class ExtractionTimeout(Exception):
    """The page took its worker past the pool's deadline; the worker was killed. Not a
    WorkerGone: the page must not be extracted anywhere else (it would block there)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"converting the page took longer than {seconds:g} s")
        self.seconds = seconds


def default_processes(cpu_count: int | None = None) -> int:
    """The ``extract_processes`` "auto" value: one worker per core beyond the crawl
    process's own (:func:`usable_cpus`), none on a single core (the worker would only
    take turns with the crawl process), at most ``MAX_AUTO_PROCESSES``. Two workers on
    two cores were measured too (PostgreSQL docs, five invocations of bench/crawl.py):
    ahead of one in three, behind in two, inside the noise; the simpler rule stays."""
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
            cores = min(cores, max(1, quota // period))  # 1.5 CPUs: one worker would crowd
        break
    return max(1, cores)


def _frame(payload: bytes) -> bytes:
    """``payload`` with the ``multiprocessing.connection`` length header."""
    if len(payload) > 0x7FFFFFFF:
        return struct.pack("!iQ", -1, len(payload)) + payload
    return struct.pack("!i", len(payload)) + payload


class _Worker:
    """One worker process and the crawl process's ends of its two pipes."""

    def __init__(self, process: subprocess.Popen[bytes], name: str, job_fd: int, result_fd: int):
        self.process = process
        self.name = name
        self.job_fd = job_fd
        self.result_fd = result_fd
        self.pipes_open = True
        self.ready = False
        self.alive = True
        #: time.monotonic() when the worker began its current page (the first of waiting)
        self.busy_since = 0.0
        self.waiting: deque[asyncio.Future[PageWork]] = deque()  # in job order
        self.inbox = bytearray()  # result bytes read, not yet a whole frame
        self.outbox = bytearray()  # job bytes the pipe did not take yet


class ExtractPool:
    """Worker processes for ``extract_page`` (see the module docstring)."""

    def __init__(
        self,
        processes: int,
        options: ExtractOptions,
        chunk_budget: tuple[int, int] = (0, 0),
        gc_threshold: int = 0,
        deadline: float | None = None,
    ) -> None:
        self.processes = processes
        self.options = options
        self.chunk_budget = chunk_budget
        self.gc_threshold = gc_threshold  # the workers' (gc_tuning.tune_gc; 0: Python's)
        self.workers: list[_Worker] = []
        self.closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._buffer = bytearray(_READ_SIZE)
        self._started_at = 0.0
        self._spawned = 0
        self._announced = False
        self._restarts_left = RESTARTS_PER_WORKER * processes
        self._env: dict[str, str] = {}
        self._setup = b""
        #: seconds a worker may spend on one page (see the module docstring); None:
        #: EXTRACT_DEADLINE_SECS as it is when the pool is made
        self.deadline = EXTRACT_DEADLINE_SECS if deadline is None else deadline
        #: pages that ran past the deadline (their workers were killed)
        self.timeouts = 0
        self._watch_every = min(1.0, max(0.05, self.deadline / 4))
        self._watch_handle: asyncio.TimerHandle | None = None
        #: extract() calls waiting for a worker to have room
        self._waiters: deque[asyncio.Future[None]] = deque()
        #: killed or lost workers not reaped yet (polled by the watchdog, waited by close)
        self._dying: list[subprocess.Popen[bytes]] = []

    # -- start ---------------------------------------------------------------------
    def start(self) -> None:
        """Start the workers; call from the running event loop (RuntimeError otherwise)."""
        self._loop = asyncio.get_running_loop()
        self._started_at = time.monotonic()
        # the crawl process's import path, for a project that is not installed (a
        # Scrapyd egg put on sys.path at run time, a checkout run from its folder)
        self._env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        options = (self.options, self.chunk_budget, self.gc_threshold)
        self._setup = _frame(pickle.dumps(options, pickle.HIGHEST_PROTOCOL))
        self._watch_handle = self._loop.call_later(self._watch_every, self._watch)
        for _ in range(self.processes):
            if not self._spawn():
                return

    def _spawn(self) -> bool:
        """Start one worker and watch its pipes; False when it could not be started."""
        self._spawned += 1
        jobs_r, jobs_w = os.pipe()
        results_r, results_w = os.pipe()
        command = [sys.executable, *WORKER_ARGV, str(jobs_r), str(results_w)]
        try:
            process = subprocess.Popen(
                command,
                pass_fds=(jobs_r, results_w),
                stdin=subprocess.DEVNULL,
                env=self._env,
                start_new_session=True,  # Ctrl-C at a terminal is the crawl's to handle
            )
        except (OSError, ValueError, TypeError) as exc:
            # no worker (no interpreter path in an embedded Python, no pass_fds on
            # Windows, out of processes): pages are extracted in the crawl process
            for fd in (jobs_r, jobs_w, results_r, results_w):
                os.close(fd)
            logger.warning("could not start an extraction process: %s", exc)
            return False
        # the worker's ends: a dead worker then reads as end of file
        os.close(jobs_r)
        os.close(results_w)
        os.set_blocking(jobs_w, False)
        os.set_blocking(results_r, False)
        worker = _Worker(process, f"webmd-extract-{self._spawned}", jobs_w, results_r)
        self.workers.append(worker)
        assert self._loop is not None
        self._loop.add_reader(results_r, self._on_readable, worker)
        self._send(worker, self._setup)
        return True

    # -- jobs ----------------------------------------------------------------------
    @property
    def ready(self) -> int:
        """How many workers are ready for pages."""
        return sum(1 for w in self.workers if w.ready and w.alive)

    def submit(
        self,
        body: bytes,
        url: str,
        encoding: str | None,
        repeated: frozenset[str] | None = None,
    ) -> asyncio.Future[PageWork] | None:
        """Hand a page to the least busy ready worker: a future of its ``PageWork``
        (failing with :class:`WorkerGone` if that worker dies), or None when no worker
        can take it now. `repeated`: its website's repeated paragraphs
        (``ExtractOptions.repeated_paragraphs``), sent with the page."""
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
        if not best.waiting:
            best.busy_since = time.monotonic()  # its clock starts now
        best.waiting.append(future)
        job = (body, url, encoding, repeated)
        self._send(best, _frame(pickle.dumps(job, pickle.HIGHEST_PROTOCOL)))
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
            code = worker.process.poll()
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
            worker.ready = payload == READY
            if worker.ready and self._waiters:
                self._wake()
            if worker.ready and not self._announced and self.ready == self.processes:
                self._announced = True
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
        if worker.waiting:
            worker.busy_since = time.monotonic()  # the next page's clock starts now
        if self._waiters:
            self._wake()  # room at this worker
        if future.done():  # the awaiting side gave up (cancelled)
            return
        try:
            work = pickle.loads(payload)
        except Exception as exc:
            work = None
            logger.warning("unreadable result from %s: %s", worker.name, exc)
        if work is None:  # the page failed there: the crawl process extracts it
            future.set_exception(PageFailed("the page failed in the extraction process"))
        else:
            future.set_result(work)

    def _lose(self, worker: _Worker, why: str, timed_out: bool = False) -> None:
        """A worker died, or is killed: its pages fail with WorkerGone (the caller
        submits them again or extracts them); a replacement is started; the rest go on.
        Never blocks: the process is killed and reaped later."""
        if worker not in self.workers:
            return
        self.workers.remove(worker)
        logger.warning(
            "extraction process %s stopped (%s); its %d pages still out go elsewhere",
            worker.name,
            why,
            len(worker.waiting),
        )
        self._detach(worker)
        self._discard(worker)
        # a worker killed over a page had started fine: replacing it costs no restart
        if not self.closed and (timed_out or self._restarts_left > 0):
            if not timed_out:
                self._restarts_left -= 1
            self._spawn()
        self._wake()  # waiters look again (a replacement, or nothing left to wait for)

    def _detach(self, worker: _Worker, gone: type[WorkerGone] = WorkerGone) -> None:
        """Stop watching the worker's pipes (before they are closed: a closed descriptor
        number may soon belong to a socket) and fail its pages over."""
        worker.alive = False
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(worker.result_fd)
            self._loop.remove_writer(worker.job_fd)
        while worker.waiting:
            future = worker.waiting.popleft()
            if not future.done():
                future.set_exception(gone(f"{worker.name} stopped"))

    def _discard(self, worker: _Worker) -> None:
        """Close the worker's pipes and kill it if it still runs (its pages are failed
        over already; a dead one is only reaped). Reaped by the watchdog or close()."""
        _close_pipes(worker)
        if worker.process.poll() is None:
            with contextlib.suppress(OSError):
                worker.process.kill()
            self._dying.append(worker.process)

    # -- deadlines -------------------------------------------------------------------
    def _watch(self) -> None:
        """The watchdog: kill a worker past its page's deadline; reap the dead."""
        self._watch_handle = None
        if self.closed or self._loop is None:
            return
        now = time.monotonic()
        for worker in list(self.workers):
            if worker.waiting and now - worker.busy_since > self.deadline:
                # its result may be in the pipe, unread (the loop was held up): read first
                self._on_readable(worker)
                if worker.alive and worker.waiting and now - worker.busy_since > self.deadline:
                    self._time_out(worker)
        if self._dying:
            self._dying = [p for p in self._dying if p.poll() is None]
        self._watch_handle = self._loop.call_later(self._watch_every, self._watch)

    def _time_out(self, worker: _Worker) -> None:
        """The worker's current page ran past the deadline: fail it with
        ExtractionTimeout, kill the worker, start another."""
        future = worker.waiting.popleft()
        if not future.done():
            future.set_exception(ExtractionTimeout(self.deadline))
        self.timeouts += 1
        self._lose(worker, f"a page took longer than {self.deadline:g} s", timed_out=True)

    # -- one call for callers --------------------------------------------------------
    async def extract(
        self,
        body: bytes,
        url: str,
        encoding: str | None,
        repeated: frozenset[str] | None = None,
    ) -> PageWork | None:
        """The page's ``PageWork`` from a worker, or None: extract it in the crawl
        process (no worker can take it now and the page is small, no worker is left,
        or the page failed in its worker).

        A page of at least :data:`WAIT_FOR_WORKER_BYTES` waits (at most the deadline
        plus :data:`ROOM_WAIT_EXTRA_SECS`) for a worker while one is alive or starting.
        A page whose worker was lost for another reason (killed over another page's
        deadline, crashed) is submitted once more. Raises :class:`ExtractionTimeout`
        when the page ran past the deadline, :class:`PoolClosed` when the pool closed
        meanwhile (or was closed already).
        """
        # a PDF or DOCX waits for a worker whatever its size: a few kilobytes of one can
        # cost minutes of CPU (shared content streams, inflated XML), and only a
        # worker has a deadline
        large = len(body) >= WAIT_FOR_WORKER_BYTES or sniff(body) is not None
        give_up = time.monotonic() + self.deadline + ROOM_WAIT_EXTRA_SECS
        resubmitted = False
        while True:
            if self.closed:
                raise PoolClosed("the extraction processes were stopped")
            future = self.submit(body, url, encoding, repeated)
            if future is None:
                remaining = give_up - time.monotonic()
                if not large or not self.workers or remaining <= 0:
                    return None
                await self._room(remaining)
                continue
            try:
                return await future
            except PoolClosed:
                raise
            except PageFailed:
                return None
            except WorkerGone:
                if resubmitted:
                    return None
                resubmitted = True

    async def _room(self, timeout: float) -> None:
        """Wait until a worker may have room (one got ready, finished a page, was lost
        or replaced, or the pool closed), at most ``timeout`` seconds."""
        assert self._loop is not None
        waiter: asyncio.Future[None] = self._loop.create_future()
        self._waiters.append(waiter)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(waiter, timeout)

    def _wake(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)

    # -- close ---------------------------------------------------------------------
    def close(self) -> None:
        """Stop every worker (see the module docstring); safe to call twice. Waits at
        most about CLOSE_WAIT_SECS + 1 s in all."""
        if self.closed:
            return
        self.closed = True
        if self._watch_handle is not None:
            self._watch_handle.cancel()
            self._watch_handle = None
        workers, self.workers = self.workers, []
        busy = [w for w in workers if w.waiting]
        for worker in workers:
            self._detach(worker, PoolClosed)
        for worker in workers:
            _close_pipes(worker)  # all first: the idle workers wind down side by side
        for worker in busy:
            # whatever it is doing is thrown away; it may be stuck in a hostile page
            with contextlib.suppress(OSError):
                worker.process.kill()
        self._wake()
        _reap_all([w.process for w in workers] + self._dying)
        self._dying = []


def _close_pipes(worker: _Worker) -> None:
    worker.alive = False
    if worker.pipes_open:
        worker.pipes_open = False
        for fd in (worker.job_fd, worker.result_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


def _reap_all(processes: list[subprocess.Popen[bytes]]) -> None:
    """Wait for the processes until CLOSE_WAIT_SECS from now, then terminate the ones
    left and wait _SIGNAL_WAIT_SECS, then kill those and wait as long again: a worker
    stuck in a page never holds the crawl process open, and the total wait is bounded
    whatever the number of workers."""
    waits = (CLOSE_WAIT_SECS, _SIGNAL_WAIT_SECS, _SIGNAL_WAIT_SECS)
    stops = (None, "terminate", "kill")
    left = processes
    for stop, wait in zip(stops, waits, strict=True):
        left = [p for p in left if p.poll() is None]
        if not left:
            return
        for process in left:
            if stop is not None:
                with contextlib.suppress(OSError):
                    getattr(process, stop)()
        deadline = time.monotonic() + wait
        for process in left:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(max(0.0, deadline - time.monotonic()))
