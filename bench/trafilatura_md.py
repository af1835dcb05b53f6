#!/usr/bin/env python3
"""trafilatura's Markdown output with metadata and tables, as an ``eval.py --cmd`` runner.

The speed peer of ``webmd convert --jsonl``: trafilatura 2.x
``extract(html, url=url, output_format="markdown", with_metadata=True,
include_tables=True, include_comments=False)``: Markdown plus the page metadata
(title, author, date...), which is the work webmd does per page too. The harness's
built-in ``trafilatura-md`` has no ``with_metadata``, hence this runner.

Contract (see eval.py in the shared harness): JSON lines {"id", "url", "html"} on
stdin, JSON lines {"id", "text", "markdown", "cpu_ms"} on stdout, flushed per line;
cpu_ms is time.process_time() around the extract call only. The YAML front matter
that with_metadata adds (``---\\ntitle: ...\\n---``) is metadata, not main content: it
is cut from "text" and "markdown" before they are scored, like webmd keeps its
metadata out of the Markdown. A bad line gives {"id": ..., "error": ...}.

Run it with the bench venv's Python (trafilatura is not a project dependency):
    .bench-venv/bin/python bench/trafilatura_md.py < docs.jsonl
"""

from __future__ import annotations

import json
import re
import sys
import time

import trafilatura

FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n*", re.DOTALL)


def convert(html: str, url: str) -> tuple[str, float]:
    start = time.process_time()
    out = trafilatura.extract(
        html, url=url or None, output_format="markdown", with_metadata=True,
        include_tables=True, include_comments=False,
    )  # fmt: skip
    cpu_ms = (time.process_time() - start) * 1000.0
    return FRONT_MATTER.sub("", out or "", count=1), cpu_ms


def main() -> int:
    for line in sys.stdin:
        if not line.strip():
            continue
        doc_id = None
        try:
            obj = json.loads(line)
            doc_id = obj["id"]
            md, cpu_ms = convert(obj["html"], obj.get("url") or "")
            answer = {"id": doc_id, "text": md, "markdown": md, "cpu_ms": cpu_ms}
        except Exception as exc:  # one bad document must not end the run
            answer = {"id": doc_id, "error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
