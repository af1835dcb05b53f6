"""Run one command and report its wall time, CPU time and peak RSS as JSON.

    python bench/measure.py --json OUT.json [--stdout FILE] [--sample-secs S] -- CMD ARGS...

Why a separate small process: the peak RSS that ``wait4``/``getrusage`` report for a
child (``ru_maxrss``) is floored by the memory of the process that started it.
Linux copies the old address space's high-water mark into the child's ``maxrss`` at
``execve`` (and with ``vfork``, which Python's ``subprocess`` uses, the old address space
is the parent's), and ``RUSAGE_CHILDREN`` is the maximum over every child reaped so
far. This wrapper is a fresh, small Python (about 10 MB), starts exactly one child and
reads that child's own figures with ``os.wait4``: CPU = user + system of the child (and
of any process it waited for), peak RSS = its ``ru_maxrss``. It also polls
``/proc/<pid>/status`` (``VmHWM``, the child's own high-water mark, and ``VmRSS``) every
``--poll-secs``: the two peaks must agree, which checks the figure; the polled RSS
series (one point every ``--sample-secs``) shows how memory grows over a long run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time


def _status_kb(pid: int) -> tuple[int, int] | None:
    """(VmRSS, VmHWM) in kB of a live process, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            text = handle.read()
    except OSError:
        return None
    values = {}
    for line in text.splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            key, rest = line.split(":", 1)
            values[key] = int(rest.split()[0])
    if "VmRSS" not in values:  # a zombie has no memory lines
        return None
    return values["VmRSS"], values.get("VmHWM", 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", required=True, help="where to write the result")
    parser.add_argument("--stdout", help="file for the child's stdout (default: ours)")
    parser.add_argument("--stderr", help="file for the child's stderr (default: ours)")
    parser.add_argument("--cwd", default=None)
    parser.add_argument("--poll-secs", type=float, default=0.05)
    parser.add_argument("--sample-secs", type=float, default=1.0)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")
    out = open(args.stdout, "wb") if args.stdout else None  # noqa: SIM115
    err = open(args.stderr, "wb") if args.stderr else None  # noqa: SIM115
    started = time.monotonic()
    child = subprocess.Popen(command, stdout=out, stderr=err, cwd=args.cwd)
    peak = {"hwm": 0, "rss": 0}
    series: list[tuple[float, int]] = []
    done = threading.Event()

    def poll() -> None:
        next_sample = 0.0
        while not done.is_set():
            status = _status_kb(child.pid)
            if status is not None:
                rss, hwm = status
                peak["hwm"] = max(peak["hwm"], hwm)
                peak["rss"] = max(peak["rss"], rss)
                now = time.monotonic() - started
                if now >= next_sample:
                    series.append((round(now, 2), rss))
                    next_sample = now + args.sample_secs
            done.wait(args.poll_secs)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - started
    done.set()
    poller.join()
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    result = {
        "command": command,
        "returncode": child.returncode,
        "wall_s": wall,
        "user_s": usage.ru_utime,
        "sys_s": usage.ru_stime,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "maxrss_mb": usage.ru_maxrss / 1024,
        "vmhwm_polled_mb": peak["hwm"] / 1024,
        "rss_series_mb": [(t, round(kb / 1024, 1)) for t, kb in series],
    }
    with open(args.json, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return 0 if child.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
