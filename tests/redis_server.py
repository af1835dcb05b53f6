"""A real ``redis-server`` for tests: ``with RedisServer() as server: server.url``.

The server listens on 127.0.0.1 on a free port, keeps nothing on disk (``--save ""
--appendonly no``, ``--dir`` a private temporary directory) and is stopped (terminate,
wait, kill) on exit. ``redis-server`` must be on PATH: if it is not, starting fails
with a message telling to run ``make system-deps`` (tests that need Redis never skip).
Speaks RESP over a plain socket, so it needs no Redis client library.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Self

__all__ = ["RedisServer", "RedisServerError"]

START_TIMEOUT = 10.0
STOP_TIMEOUT = 5.0


class RedisServerError(RuntimeError):
    """redis-server is missing, did not start, or did not answer."""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _encode(*args: str) -> bytes:
    out = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = arg.encode("utf-8")
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


class RedisServer:
    """One ``redis-server`` process. ``start()``/``stop()``, or use it as a context
    manager. ``url`` is ``redis://127.0.0.1:PORT/0``."""

    def __init__(self, executable: str | None = None) -> None:
        self.executable = executable
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self._dir: Path | None = None

    @property
    def url(self) -> str:
        return self.url_for(0)

    def url_for(self, db: int) -> str:
        if not self.port:
            raise RedisServerError("the Redis server is not started")
        return f"redis://127.0.0.1:{self.port}/{db}"

    @property
    def log(self) -> str:
        """What the server wrote to stdout/stderr so far."""
        if self._dir is None:
            return ""
        try:
            return (self._dir / "redis.log").read_text(errors="replace")
        except OSError:
            return ""

    # -- lifecycle --------------------------------------------------------- #

    def start(self) -> Self:
        if self.process is not None:
            return self
        executable = self.executable or shutil.which("redis-server")
        if not executable:
            raise RedisServerError(
                "redis-server is not installed (not found on PATH); the tests start a real "
                "Redis server: run `make system-deps` (apt-get install redis-server)"
            )
        self._dir = Path(tempfile.mkdtemp(prefix="webmd-redis-"))
        last_error = ""
        for _ in range(3):  # the free port may be taken between probing and binding
            self.port = _free_port()
            with (self._dir / "redis.log").open("wb") as log:
                self.process = subprocess.Popen(
                    [
                        executable,
                        "--port", str(self.port),
                        "--bind", "127.0.0.1",
                        "--save", "",
                        "--appendonly", "no",
                        "--dir", str(self._dir),
                        "--daemonize", "no",
                        "--loglevel", "warning",
                    ],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                )  # fmt: skip
            try:
                self._wait_ready()
                return self
            except RedisServerError as exc:
                last_error = str(exc)
                self._kill()
        self.stop()
        raise RedisServerError(last_error)

    def _wait_ready(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.process.poll() is not None:
                raise RedisServerError(
                    f"redis-server exited with {self.process.returncode} on port {self.port}:\n"
                    + self.log
                )
            with contextlib.suppress(OSError):
                if self.command("PING") == b"+PONG":
                    return
            if time.monotonic() > deadline:
                raise RedisServerError(
                    f"redis-server on port {self.port} did not answer PING within "
                    f"{START_TIMEOUT:g} s:\n" + self.log
                )
            time.sleep(0.02)

    def _kill(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def stop(self) -> None:
        self._kill()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
        self.port = 0

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- talking to it ----------------------------------------------------- #

    def command(self, *args: str, db: int = 0) -> bytes:
        """Send one command (after ``SELECT db``); return the first line of the reply
        (e.g. ``b"+OK"``, ``b":3"``, ``b"$5"``). OSError if the server is unreachable."""
        if not self.port:
            raise RedisServerError("the Redis server is not started")
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
            payload = _encode(*args)
            if db:
                payload = _encode("SELECT", str(db)) + payload
            sock.sendall(payload)
            data = b""
            lines_needed = 2 if db else 1
            while data.count(b"\r\n") < lines_needed:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        lines = data.split(b"\r\n")
        return lines[lines_needed - 1] if len(lines) >= lines_needed else b""

    def flushall(self) -> None:
        reply = self.command("FLUSHALL")
        if reply != b"+OK":
            raise RedisServerError(f"FLUSHALL answered {reply!r}")
