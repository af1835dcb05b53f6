"""``webmd serve``: run the ``POST /web/crawl`` HTTP API (``service.http_api``) under
uvicorn, and ``POST /search`` over an index with ``--index``.

::

    webmd serve [--host 127.0.0.1] [--port 8000] [--token T] [--allow-local]
                [--state-dir DIR] [--index FILE [--embedder SPEC] [--embed-url URL]]

Bound to 127.0.0.1 by default. Any other address needs a bearer token (``--token``, or
the ``WEBMD_API_TOKEN`` environment variable, which keeps it out of the process list):
the endpoint fetches URLs for whoever calls it. Bad flags are one line on stderr and
exit code 2; a missing ``serve`` extra is one line and exit code 1.

This module imports neither Starlette nor uvicorn until :func:`main` runs, so the
``webmd`` command loads without the extra.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from webmd_spider.extras import install_hint
from webmd_spider.service.binding import is_loopback

logger = logging.getLogger(__name__)

#: the environment variable holding the token when --token is not given
TOKEN_ENV = "WEBMD_API_TOKEN"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_STATE_DIR = ".webmd"
#: the shortest token accepted: a short one is guessed
MIN_TOKEN_CHARS = 16
#: what to install when Starlette or uvicorn is missing
EXTRA_HINT = install_hint("serve")


class FlagError(Exception):
    """A flag ``webmd serve`` cannot use; the message says why."""


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing its usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise FlagError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="webmd serve",
        description="Serve the POST /web/crawl HTTP API, and POST /search with --index "
        "(docs/HTTP_API.md).",
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help="address to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="port to bind (8000)")
    parser.add_argument(
        "--token", default=None, help=f"bearer token every request must carry (or ${TOKEN_ENV})"
    )
    parser.add_argument(
        "--allow-local",
        action="store_true",
        help="let crawls reach loopback and private addresses (your own sites only)",
    )
    parser.add_argument(
        "--state-dir",
        default=DEFAULT_STATE_DIR,
        help=f"folder of the answer cache (maxAgeMs) ({DEFAULT_STATE_DIR})",
    )
    parser.add_argument(
        "--index",
        default=None,
        help="serve POST /search over this index (built by webmd crawl URL --index FILE)",
    )
    parser.add_argument(
        "--embedder",
        default=None,
        help="with --index: the index's embedder when it is not wordllama "
        "(sentence-transformers:DIR, fastembed:DIR)",
    )
    parser.add_argument(
        "--embed-url", default="", help="with --index: the index's HTTP embedding endpoint"
    )
    parser.add_argument("--embed-model", default="", help="with --embed-url: the model name")
    return parser


def _settings(argv: Sequence[str]) -> argparse.Namespace:
    """The parsed flags, checked; raises FlagError."""
    args = _parser().parse_args(list(argv))
    if not 0 <= args.port <= 65535:
        raise FlagError(f"--port must be from 0 to 65535, got {args.port}")
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV) or None
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        raise FlagError(f"the token must be at least {MIN_TOKEN_CHARS} characters")
    if token is None and not is_loopback(args.host):
        raise FlagError(
            f"--host {args.host} is reachable from other machines: give a bearer token "
            f"with --token or {TOKEN_ENV}"
        )
    if args.index is None and (args.embedder or args.embed_url or args.embed_model):
        raise FlagError("--embedder, --embed-url and --embed-model go with --index")
    args.token = token
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``webmd serve ARGV`` until interrupted; returns the exit code."""
    try:
        args = _settings(sys.argv[1:] if argv is None else argv)
    except FlagError as exc:
        sys.stderr.write(f"webmd serve: error: {exc}\n")
        return 2
    try:
        import uvicorn

        from webmd_spider.index.searching import EmbedderChoice
        from webmd_spider.service.http_api import LOOPBACK_HOSTS, ServiceConfig, create_app
    except ImportError as exc:
        sys.stderr.write(f"webmd serve needs Starlette and uvicorn ({exc}): {EXTRA_HINT}\n")
        return 1
    config = ServiceConfig(
        state_dir=Path(args.state_dir),
        allow_local=args.allow_local,
        token=args.token,
        # on loopback only loopback names: no DNS-rebinding page reaches it
        allowed_hosts=LOOPBACK_HOSTS if is_loopback(args.host) else None,
        index=Path(args.index).resolve() if args.index else None,
        # an --embed-url alone means the http embedder, as in webmd search
        embedder=EmbedderChoice(
            spec="http" if args.embed_url and not args.embedder else args.embedder,
            embed_url=args.embed_url,
            embed_model=args.embed_model,
        ),
    )
    try:
        app = create_app(config)
    except ValueError as exc:
        sys.stderr.write(f"webmd serve: error: {exc}\n")
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.allow_local:
        logger.warning("--allow-local: crawls may reach loopback and private addresses")
    if config.index is not None and not config.index.is_file():
        # not fatal: a crawl may build it later; until then POST /search answers 503
        logger.warning("--index %s: no such file yet; POST /search will say so", config.index)
    logger.info(
        "Serving POST /web/crawl%s on http://%s:%d/ (token %s)",
        f" and POST /search ({config.index})" if config.index is not None else "",
        args.host,
        args.port,
        "required" if args.token else "not required",
    )
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    except OSError as exc:  # uvicorn logs a bind error and exits; a few paths raise
        sys.stderr.write(f"webmd serve: error: cannot serve on {args.host}:{args.port}: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
