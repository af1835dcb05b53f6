"""The ``webmd`` command: ``webmd demo [URL]`` and ``webmd crawl URL``.

``demo`` with no URL serves the bundled demo site on 127.0.0.1 and crawls it, so the
project can be tried offline; with a URL it crawls that site. Both run the real
``scrapy crawl site`` in a child process and print where the rows went. Nothing in the
project imports this module.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from webmd_spider.demo.server import SiteServer, demo_site_path


def _crawl(url: str, out: Path, extra: list[str]) -> int:
    """Run ``scrapy crawl site`` for ``url`` writing JSONL to ``out``; return its exit code."""
    env = dict(os.environ, SCRAPY_SETTINGS_MODULE="webmd_spider.settings")
    command = [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"start={url}"]
    command += ["-O", str(out), *extra]
    # A crawl that fails at start-up writes nothing: never report an older file.
    out.unlink(missing_ok=True)
    print(f"$ scrapy crawl site -a start={url} -O {out} {' '.join(extra)}".rstrip(), flush=True)
    return subprocess.call(command, env=env)


def _default_out(name: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Path("output") / f"{name}-{stamp}.jsonl"


def _report(out: Path, code: int) -> None:
    if out.exists():
        rows = out.read_text(encoding="utf-8").count("\n")
        print(f"\nWrote {rows} rows to {out} (run summary: {out}.summary.json)")
    else:
        print(f"\nNo output written (exit code {code})")


def cmd_demo(args: argparse.Namespace, extra: list[str]) -> int:
    """Crawl the bundled demo site (or ``args.url``) and print where the rows went."""
    if args.url:
        out = args.out or _default_out("crawl")
        code = _crawl(args.url, out, extra)
        _report(out, code)
        return code
    out = args.out or _default_out("demo")
    with SiteServer(demo_site_path()) as server:
        print(f"Serving the demo site at {server.base_url}/", flush=True)
        # Our own local server: no politeness delay needed.
        code = _crawl(server.base_url + "/", out, ["-s", "DOWNLOAD_DELAY=0", *extra])
    _report(out, code)
    return code


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``webmd`` console script."""
    parser = argparse.ArgumentParser(prog="webmd", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser(
        "demo",
        help="crawl the bundled demo site, or URL when given; arguments after -- go to scrapy",
    )
    demo.add_argument("url", nargs="?", default="", help="a site to crawl instead of the demo")
    demo.add_argument("--out", type=Path, help="JSONL file to write (default output/...)")
    crawl = sub.add_parser("crawl", help="crawl URL (same as scrapy crawl site -a start=URL)")
    crawl.add_argument("url")
    crawl.add_argument("--out", type=Path)
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything after `--` goes to `scrapy crawl` unchanged (-s NAME=VALUE, -a name=value).
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    if args.command == "crawl" and not args.url:
        parser.error("crawl needs a URL")
    return cmd_demo(args, extra)


if __name__ == "__main__":
    raise SystemExit(main())
