"""The ``webmd`` command: ``webmd crawl URL...``, ``webmd demo [URL]``, ``webmd convert
FILE``, ``webmd state``, ``webmd serve`` (the HTTP API) and ``webmd mcp`` (the MCP
server).

``crawl`` is the front door (``webmd_spider.crawl_command``: flags, progress, summary).
``demo`` with no URL serves the bundled demo site on 127.0.0.1 and crawls it through
the same door, so the project can be tried offline; with a URL it crawls that site.
Either way it takes every flag of ``webmd crawl`` (``webmd demo URL --allow-local``).

``convert`` runs the extractor on HTML without crawling: one file (or stdin: ``-``, or
no FILE when a page is piped in) to Markdown, text or, with ``--format json``, the page
row (the crawl's row schema, ``webmd_spider.api.convert``). Without ``--url`` there is
no base: relative links stay as written. A PDF or DOCX file (known by its bytes) is
converted as the crawl converts one (``webmd_spider.documents``); Markdown (a ``.md``
file, or text without HTML tags) is passed through with its title read from its first
heading (``extraction_method: "markdown"``); or, with ``--jsonl``, a stream of
``{"id", "url", "html"}`` lines on stdin to ``{"id", "text", "markdown", "cpu_ms"}``
lines on stdout (the ``--cmd`` contract of the extraction quality harness).

``search`` searches an index that ``webmd crawl URL --index FILE`` keeps
(``webmd_spider.search_command``).

``state`` inspects the incremental-recrawl state (``.webmd/`` by default): ``list`` the
jobs, ``show`` what is stored for a URL, ``forget`` a job. Nothing in the project
imports this module.
"""

from __future__ import annotations

import argparse
import codecs
import dataclasses
import json
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from webmd_spider.demo.server import SiteServer, demo_site_path

if TYPE_CHECKING:
    from webmd_spider.extract import ExtractOptions


def cmd_demo(argv: list[str]) -> int:
    """``webmd demo [URL...] [OPTIONS]``: with a URL, exactly ``webmd crawl URL...
    OPTIONS`` (every flag of webmd crawl works: ``--allow-local``, ``--max-pages``,
    ``-a``, ``-s``); without one, serve the bundled demo site on 127.0.0.1 and crawl it
    through the same door (the same progress, summary and files) with OPTIONS.
    ``argv`` is the words after ``demo``; a ``--`` among them is dropped (``-s`` and
    ``-a`` are flags of webmd crawl). Returns the exit code."""
    from webmd_spider import crawl_command

    words = [a for a in argv if a != "--"]
    parser = crawl_command.build_parser(prog="webmd demo")
    parser.description = DEMO_HELP
    # parsed here for --help, bad flags and whether a URL is given; run() parses again
    if parser.parse_args(words).urls:
        return crawl_command.run(words)
    with SiteServer(demo_site_path()) as server:
        print(f"Serving the demo site at {server.base_url}/", flush=True)
        # Our own local server: no politeness delay, and only its port is let through
        # the SSRF guard (narrower than --allow-local).
        port = server.base_url.rsplit(":", 1)[1]
        own = [("WEBMD_HOST_DELAY", "0"), ("WEBMD_SSRF_ALLOWLIST", f"127.0.0.1:{port}")]
        return crawl_command.run([server.base_url + "/", *words], extra_settings=own)


DEMO_HELP = (
    "Serve the bundled demo site on 127.0.0.1 and crawl it, or crawl URL when given: the "
    "options are webmd crawl's (--out, --max-pages, --allow-local for a site on your "
    "own machine or network, -a NAME=VALUE, -s NAME=VALUE...)."
)


def _options(args: argparse.Namespace) -> ExtractOptions:
    """The options of a ``convert`` run (extract is imported lazily: demo/crawl skip it)."""
    from webmd_spider.extract import ExtractOptions

    return ExtractOptions(
        include_html=args.include_html,
        max_chars=args.max_chars,
        keep_links=not args.no_links,
        keep_images=not args.no_images,
        keep_captions=args.keep_captions,
    )


def _row_options(args: argparse.Namespace) -> dict[str, Any]:
    """The crawl options a ``convert --format json`` run sets (the same content options
    as the extractor's)."""
    return {
        "include_html": args.include_html,
        "max_chars": args.max_chars,
        "keep_links": not args.no_links,
        "keep_images": not args.no_images,
        "keep_captions": args.keep_captions,
    }


def _write(stream: IO[bytes], text: str) -> None:
    """Write `text` as UTF-8 (lone surrogates from odd input become U+FFFD) and flush."""
    stream.write(text.encode("utf-8", "replace"))
    stream.flush()


def _json_line(obj: dict[str, Any]) -> str:
    try:
        line = json.dumps(obj, ensure_ascii=False)
        line.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: escape them instead of mangling
        line = json.dumps(obj, ensure_ascii=True)
    return line + "\n"


def _convert_line(line: bytes, options: ExtractOptions) -> dict[str, Any]:
    """One ``--jsonl`` input line to one output object; never raises."""
    from webmd_spider.extract import extract

    try:
        obj = json.loads(line)
    except ValueError as exc:
        return {"id": None, "error": f"invalid JSON: {exc}"}
    if not isinstance(obj, dict):
        return {"id": None, "error": "a line must be a JSON object {id, url, html}"}
    doc_id = obj.get("id")
    html, url = obj.get("html"), obj.get("url") or ""
    if "id" not in obj:
        return {"id": None, "error": "missing 'id'"}
    if not isinstance(html, str):
        return {"id": doc_id, "error": "'html' must be a string"}
    if not isinstance(url, str):
        return {"id": doc_id, "error": "'url' must be a string"}
    start = time.process_time()
    doc = extract(html, url, options=options)
    cpu_ms = (time.process_time() - start) * 1000.0
    out: dict[str, Any] = {"id": doc_id, "text": doc.text, "markdown": doc.markdown}
    if options.include_html:
        out["html"] = doc.html
    if doc.error:
        out["error"] = doc.error
    out["cpu_ms"] = cpu_ms
    return out


def _convert_jsonl(lines: Iterable[bytes], out: IO[bytes], options: ExtractOptions) -> int:
    for line in lines:
        if line.strip():
            _write(out, _json_line(_convert_line(line, options)))
    return 0


def _read_input(args: argparse.Namespace) -> bytes | None:
    """The bytes ``webmd convert`` works on: FILE, or standard input when FILE is ``-``
    or when none is given and stdin is not a terminal (``cat page.html | webmd
    convert``). None, with the reason on stderr, when there is nothing to read: no FILE
    and stdin a terminal (or closed), no FILE and nothing piped, or FILE unreadable."""
    if args.source not in (None, "-"):
        try:
            return Path(args.source).read_bytes()
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            print(f"webmd convert: cannot read {args.source}: {reason}", file=sys.stderr)
            return None
    stdin = sys.stdin
    if args.source is None and (stdin is None or stdin.closed or stdin.isatty()):
        # a terminal: waiting for typed HTML would look like a hang
        print(
            "webmd convert: give an HTML, Markdown, PDF or DOCX FILE, or pipe a page to "
            "stdin (or use --jsonl)",
            file=sys.stderr,
        )
        return None
    body = stdin.buffer.read()
    if args.source is None and not body.strip():
        print("webmd convert: nothing on stdin: give a FILE, or pipe a page", file=sys.stderr)
        return None
    return body


def cmd_convert(args: argparse.Namespace) -> int:
    """``webmd convert``: see the module docstring. Exit 0 on success, 1 when the page
    gave nothing (extraction error), 2 on bad usage or an unreadable file."""
    from webmd_spider.documents import MARKDOWN, is_markdown, sniff
    from webmd_spider.extract import extract
    from webmd_spider.rows.page_rows import is_binary

    options = _options(args)
    out = sys.stdout.buffer
    url = args.url or ""  # no --url: no base, relative links stay as written
    if args.jsonl:
        if args.source not in (None, "-"):
            print("webmd convert: --jsonl reads stdin; give no FILE (or -)", file=sys.stderr)
            return 2
        return _convert_jsonl(sys.stdin.buffer, out, options)
    body = _read_input(args)
    if body is None:
        return 2
    name = args.source or "-"
    kind = sniff(body)
    if kind is None and is_binary(body):
        # mojibake of a binary file is no conversion (issue 16 item 5)
        shown = "stdin" if name == "-" else name
        print(f"webmd convert: {shown} is a binary file, not an HTML page", file=sys.stderr)
        return 2
    if kind is None:
        # Markdown is read as UTF-8: text of another declared charset is made UTF-8 first
        text = body.decode(args.encoding, "replace").encode("utf-8") if args.encoding else body
        if is_markdown(text, None if name == "-" else name):
            kind, body = MARKDOWN, text
    if kind == MARKDOWN and args.explain:
        _write(out, "removed: nothing (Markdown input is passed through as written)\n")
        return 0
    if kind is not None and args.format != "json":
        return _convert_document(body, kind, args, options)
    if args.format == "json":
        # the crawl's row schema: the same functions build it (webmd_spider.api.convert)
        from webmd_spider.api import convert

        encoding = None if kind == MARKDOWN else args.encoding
        row = convert(
            body, url, None, encoding=encoding, markdown=kind == MARKDOWN, **_row_options(args)
        )
        _write(out, json.dumps(row.to_dict(), ensure_ascii=False, indent=2) + "\n")
        if row.row_type != "page":
            print(f"webmd convert: {name}: {row.error}", file=sys.stderr)
            return 1
        return 0
    doc = extract(body, url, encoding=args.encoding, options=options)
    if args.explain:
        _write(out, _explain(doc))
        return 1 if doc.error else 0
    result = doc.markdown if args.format == "markdown" else doc.text
    _write(out, result + ("\n" if result and not result.endswith("\n") else ""))
    if doc.error:
        print(f"webmd convert: {name}: {doc.error}", file=sys.stderr)
        return 1
    return 0


def _explain(doc: Any) -> str:
    """``convert --explain``: one line per removed block (kind, rule, its first
    characters), then the page's totals per kind; the lines read in removal order."""
    lines = [f"{kind:<12} {rule:<18} {preview}" for kind, rule, preview in doc.removed_blocks]
    removed = doc.removed or {}
    counts = ", ".join(
        f"{kind} {removed[kind]}" for kind in removed if isinstance(removed[kind], int)
    )
    lines.append(f"removed: {counts or 'nothing (no content root)'}")
    return "\n".join(lines) + "\n"


def _convert_document(
    body: bytes, kind: str, args: argparse.Namespace, options: ExtractOptions
) -> int:
    """``webmd convert`` of a PDF, DOCX or Markdown input to Markdown or text: exit 0,
    or 1 with the reason on stderr when it cannot be converted (encrypted, damaged...)
    or holds no text."""
    from webmd_spider.documents import convert_document

    name = args.source or "-"
    converted = convert_document(body, args.url or "", kind, options)
    if converted.unsupported is not None:
        print(f"webmd convert: {name}: {converted.unsupported}", file=sys.stderr)
        return 1
    doc = converted.document
    result = doc.markdown if args.format == "markdown" else doc.text
    _write(sys.stdout.buffer, result + ("\n" if result and not result.endswith("\n") else ""))
    if doc.error:
        print(f"webmd convert: {name}: {doc.error}", file=sys.stderr)
        return 1
    return 0


def _add_convert(sub: Any) -> None:
    convert = sub.add_parser(
        "convert",
        help="print the Markdown (or text, or JSON) of an HTML, Markdown, PDF or DOCX "
        "file or stdin; --jsonl for batches",
        description="Convert one HTML page, Markdown, PDF or DOCX file without crawling: FILE, "
        "or stdin when FILE is - or is left out and a page is piped in. Markdown (a .md "
        "file, or text without HTML tags) is passed through, its title read from its "
        "first heading. Without --url, relative links stay as written. With "
        '--jsonl, read {"id","url","html"} JSON lines on stdin and write '
        '{"id","text","markdown","cpu_ms"} lines (a bad line gives {"id","error"}).',
    )
    convert.add_argument(
        "source",
        nargs="?",
        metavar="FILE",
        help="HTML, Markdown, PDF or DOCX file, or - for stdin (default: stdin when piped)",
    )
    convert.add_argument(
        "--format", choices=("markdown", "text", "json"), default="markdown",
        help="markdown (default), text, or json: the page row of a crawl",
    )  # fmt: skip
    convert.add_argument(
        "--url",
        default="",
        help="the page's URL: links resolve against it and it is the row's url "
        "(default: none; relative links stay as written)",
    )
    convert.add_argument(
        "--encoding", type=_encoding, help="charset of FILE if known (default: sniffed)"
    )
    convert.add_argument(
        "--include-html", action="store_true", help="also keep the content region's HTML"
    )
    convert.add_argument(
        "--max-chars", type=_non_negative, default=0, help="cut the Markdown (0 = no limit)"
    )
    convert.add_argument(
        "--no-links", action="store_true", help="link text only, no [text](url) in the Markdown"
    )
    convert.add_argument("--no-images", action="store_true", help="no ![alt](src) in the Markdown")
    convert.add_argument(
        "--keep-captions",
        action="store_true",
        help="keep image captions and photo credits in the Markdown and text",
    )
    convert.add_argument("--jsonl", action="store_true", help="batch mode on stdin/stdout")
    convert.add_argument(
        "--explain",
        action="store_true",
        help="instead of the Markdown, list each block extraction removed from the "
        "content: its kind, the rule that removed it and its first 80 characters",
    )


DEFAULT_STATE_DIR = ".webmd"


def _state_list(state_dir: str) -> int:
    from webmd_spider.state.store import list_jobs

    jobs = list_jobs(state_dir)
    if not jobs:
        print(f"no state in {state_dir}")
        return 0
    width = max(len(job.name) for job in jobs)
    for job in jobs:
        if job.error:
            print(f"{job.name:<{width}}  unreadable: {job.error} ({job.path})")
            continue
        pages = f"{job.pages} page" + ("" if job.pages == 1 else "s")
        line = f"{job.name:<{width}}  {pages:>12}  last run {job.last_run or 'never'}"
        print(line + (f"  {job.description}" if job.description else ""))
    return 0


def _state_show(url: str, state_dir: str, only: str | None) -> int:
    from webmd_spider.state.store import find_url
    from webmd_spider.urls import canonicalize

    # State is keyed by canonical URL; a raw key is still tried for URLs that were
    # stored before canonicalisation changed (or are not http(s) at all).
    keys = list(dict.fromkeys([canonicalize(url), url]))
    found = []
    for key in keys:
        found = [(job, state) for job, state in find_url(state_dir, key) if only in (None, job)]
        if found:
            break
    if not found:
        where = f"state '{only}'" if only else f"any state in {state_dir}"
        print(f"webmd state: {keys[0]} is not in {where}", file=sys.stderr)
        return 1
    for job, state in found:
        print(json.dumps({"state": job, **dataclasses.asdict(state)}, ensure_ascii=False))
    return 0


def _state_forget(name: str, state_dir: str) -> int:
    from webmd_spider.state.store import forget_job

    if not forget_job(state_dir, name):
        print(f"webmd state: no state '{name}' in {state_dir}", file=sys.stderr)
        return 1
    print(f"forgot state '{name}' ({state_dir})")
    return 0


def cmd_state(args: argparse.Namespace) -> int:
    """``webmd state list|show|forget``. Exit 0 on success, 1 when the URL or job is
    not there, the job is in use or the state cannot be read, 2 on an invalid name."""
    from webmd_spider.state.store import StateStoreError, validate_job_name

    try:
        for name in (getattr(args, "name", None), getattr(args, "state", None)):
            if name is not None:
                validate_job_name(name)
    except ValueError as exc:
        print(f"webmd state: {exc}", file=sys.stderr)
        return 2
    try:
        if args.state_command == "list":
            return _state_list(args.state_dir)
        if args.state_command == "show":
            return _state_show(args.url, args.state_dir, args.state)
        return _state_forget(args.name, args.state_dir)
    except StateStoreError as exc:  # includes StateLockedError: "in use by another run"
        print(f"webmd state: {exc}", file=sys.stderr)
        return 1


def _add_state(sub: Any) -> None:
    state = sub.add_parser(
        "state",
        help="list, show or forget the incremental-recrawl state",
        description="Inspect the per-job page state that incremental recrawls keep "
        f"(default directory {DEFAULT_STATE_DIR}/).",
    )
    actions = state.add_subparsers(dest="state_command", required=True)
    listing = actions.add_parser("list", help="one line per job: name, pages, last run")
    show = actions.add_parser("show", help="the stored state of URL, as JSON (one per job)")
    show.add_argument("url", metavar="URL")
    show.add_argument("--state", metavar="NAME", help="only this job")
    forget = actions.add_parser("forget", help="delete a job's state")
    forget.add_argument("name", metavar="NAME")
    for action in (listing, show, forget):
        action.add_argument(
            "--state-dir", default=DEFAULT_STATE_DIR, metavar="DIR",
            help=f"where the state lives (default {DEFAULT_STATE_DIR})",
        )  # fmt: skip


def _non_negative(value: str) -> int:
    """argparse type: a whole number >= 0 (argparse names the option in its message)."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {value!r}")
    return number


def _encoding(value: str) -> str:
    """argparse type: a charset Python can decode."""
    try:
        codecs.lookup(value)
    except LookupError:
        raise argparse.ArgumentTypeError(
            f"unknown encoding {value!r} (for example utf-8, windows-1252, shift_jis)"
        ) from None
    return value


#: ``webmd --help``'s description: plain text (the module docstring's reStructuredText
#: double backticks would show as they are).
DESCRIPTION = (
    "Turn websites into Markdown rows for LLMs and RAG: webmd crawl URL crawls a site, "
    "webmd demo tries it on the bundled demo site, webmd convert FILE converts one page "
    "or file, webmd state inspects the incremental-recrawl state, webmd serve and webmd "
    "mcp run the HTTP API and the MCP server."
)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``webmd`` console script."""
    parser = argparse.ArgumentParser(prog="webmd", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True)
    # `webmd demo` and `webmd crawl` have their own parsers (cmd_demo,
    # crawl_command.build_parser); these entries are for `webmd --help` only
    sub.add_parser(
        "demo",
        help="crawl the bundled demo site, or URL when given (webmd crawl's options)",
    )
    sub.add_parser("crawl", help="crawl URL... into Markdown rows (see webmd crawl --help)")
    # own parsers too (webmd serve --help, webmd mcp --help); listed here for webmd --help
    sub.add_parser("serve", help="the POST /web/crawl HTTP API (the serve extra)")
    sub.add_parser("mcp", help="the MCP server for agents (the mcp extra)")
    sub.add_parser("search", help="search an index built by webmd crawl --index (see --help)")
    _add_convert(sub)
    _add_state(sub)
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["state"]:
        return cmd_state(parser.parse_args(argv))
    if argv[:1] == ["convert"]:
        args = parser.parse_args(argv)
        try:
            return cmd_convert(args)
        except BrokenPipeError:  # `webmd convert page.html | head`
            sys.stderr.close()
            return 1
    if argv[:1] == ["serve"]:
        from webmd_spider.service import serve

        return serve.main(argv[1:])
    if argv[:1] == ["search"]:
        from webmd_spider import search_command

        return search_command.main(argv[1:])
    if argv[:1] == ["mcp"]:
        from webmd_spider.service import mcp_server

        return mcp_server.main(argv[1:])
    if argv[:1] == ["crawl"]:
        from webmd_spider import crawl_command

        # `--` is optional: -a name=value and -s NAME=VALUE are flags of webmd crawl
        return crawl_command.run([a for a in argv[1:] if a != "--"])
    if argv[:1] == ["demo"]:
        return cmd_demo(argv[1:])
    parser.parse_args(argv)  # --help, or an unknown command: argparse's message, exit 2
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
