"""``webmd search INDEX "query"``: the best chunks of a search index built by
``webmd crawl URL --index INDEX``, with the URL to cite for each.

Flags: ``--k`` (results, 1..50, default 10), ``--mode hybrid|keyword|vector`` (default
hybrid: BM25 and the vectors fused by reciprocal rank), ``--json`` (one JSON document:
the query, the mode and the hits), and ``--embedder`` / ``--embed-url`` when the index
was built with a local model folder or an HTTP endpoint (the bundled wordllama model is
found again on its own).

Exit codes: 0 with results, 1 with none, 2 for a bad flag or query, 3 for an index that
cannot be searched (missing, damaged, built with another embedder): one line on stderr,
no traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

from webmd_spider.index.searching import (
    DEFAULT_K,
    MAX_K,
    MODES,
    EmbedderChoice,
    SearchError,
    search,
)

EXIT_NO_RESULTS = 1
EXIT_BAD_INPUT = 2
EXIT_UNUSABLE_INDEX = 3


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error and exit 2."""

    def error(self, message: str) -> Any:  # argparse's signature (NoReturn)
        sys.stderr.write(f"{self.prog}: {message} (see {self.prog} --help)\n")
        raise SystemExit(EXIT_BAD_INPUT)


def build_parser() -> argparse.ArgumentParser:
    """The ``webmd search`` argument parser."""
    parser = _Parser(
        prog="webmd search",
        description="Search an index built by webmd crawl URL --index FILE.",
    )
    parser.add_argument("index", metavar="INDEX", help="the index file")
    parser.add_argument("query", metavar="QUERY", help="what to look for")
    parser.add_argument("--k", type=int, default=DEFAULT_K, help=f"results (1..{MAX_K})")
    parser.add_argument("--mode", choices=MODES, default="hybrid", help="default: hybrid")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument(
        "--embedder", default=None, help="the index's embedder when it is not wordllama"
    )
    parser.add_argument("--embed-url", default="", help="the index's HTTP embedding endpoint")
    parser.add_argument("--embed-model", default="", help="the endpoint's model name")
    return parser


def format_hits(hits: Sequence[dict[str, Any]]) -> list[str]:
    """Hits as text: rank, title and heading path, the URL to cite with the score, and
    the snippet indented."""
    lines: list[str] = []
    for rank, hit in enumerate(hits, 1):
        path = " > ".join(hit["heading_path"][1:]) if hit["heading_path"] else ""
        head = hit["title"] or hit["url"]
        lines.append(f"{rank}. {head}" + (f" — {path}" if path else ""))
        lines.append(f"   {hit['fragment']}  (score {hit['score']:.4f})")
        snippet = " ".join(hit["snippet"].split())
        lines.extend(textwrap.wrap(snippet, 96, initial_indent="   ", subsequent_indent="   "))
    return lines


def main(argv: Sequence[str]) -> int:
    """Run ``webmd search``; returns the exit code."""
    args = build_parser().parse_args(list(argv))
    choice = EmbedderChoice(
        spec=("http" if args.embed_url and not args.embedder else args.embedder),
        embed_url=args.embed_url,
        embed_model=args.embed_model,
    )
    try:
        hits = search(args.index, args.query, args.k, mode=args.mode, embedder=choice)
    except ValueError as exc:
        sys.stderr.write(f"webmd search: {exc}\n")
        return EXIT_BAD_INPUT
    except SearchError as exc:
        sys.stderr.write(f"webmd search: {exc}\n")
        return EXIT_UNUSABLE_INDEX
    if args.json:
        document = {"query": args.query, "mode": args.mode, "k": args.k, "hits": hits}
        sys.stdout.write(json.dumps(document, ensure_ascii=False) + "\n")
    elif hits:
        sys.stdout.write("\n".join(format_hits(hits)) + "\n")
    else:
        sys.stderr.write("webmd search: no chunk matches\n")
    return 0 if hits else EXIT_NO_RESULTS
