"""trafilatura's own command line, with ``*.localhost`` host names resolving to 127.0.0.1.

    .bench-venv2/bin/python bench/trafilatura_cli.py --explore http://docs.localhost:PORT/ ...

The peer crawler of ``bench/crawl.py``. trafilatura (courlan) finds no domain in
``http://127.0.0.1:PORT/``: its sitemap search stops with "invalid URL" and finds no
page, so the benchmark serves
the site under ``docs.localhost`` (RFC 6761: ``.localhost`` names are loopback) and this
shim makes such names resolve here, where the system resolver does not know them. Name
resolution is the only thing changed: everything else is ``trafilatura.cli.main()``.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Any

# bench/ holds incremental.py, which would shadow a package of that name
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

_getaddrinfo = socket.getaddrinfo


def _loopback_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if isinstance(host, str) and (host == "localhost" or host.endswith(".localhost")):
        host = "127.0.0.1"
    return _getaddrinfo(host, *args, **kwargs)


socket.getaddrinfo = _loopback_getaddrinfo

if __name__ == "__main__":
    from trafilatura.cli import main

    sys.argv[0] = "trafilatura"
    main()
