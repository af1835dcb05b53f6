"""PDF text layer: our reader (pypdf plus paragraph and heading rebuilding,
``webmd_spider.documents.pdf``) against pdfminer.six's layout analysis, side by side on
the same files, CPU time and the shape of what each gives.

    .venv/bin/python bench/pdf_libraries.py [PDF ...]

Without arguments it reads the PDF manuals Debian ships in /usr/share/doc (installed
with apt-get when missing: camlidl, libtasn1-doc, shared-mime-info,
docbook-xsl-doc-pdf). pdfminer.six is not a project dependency: it is installed into
``.bench-venv`` when missing and run from there in a child process, so that both are
measured on the same machine in one run.

Per file: pages, CPU ms per page (``time.process_time`` around the conversion only),
blocks of text (our paragraphs and headings; pdfminer's text boxes), the mean block
length in characters (hard-wrapped lines give short blocks), and headings found.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH_VENV = REPO / ".bench-venv"
DEBIAN_PACKAGES = ("camlidl", "libtasn1-doc", "shared-mime-info", "docbook-xsl-doc-pdf")
DEFAULT_FILES = (
    "/usr/share/doc/camlidl/camlidl-1.04.doc.pdf",
    "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
    "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
    "/usr/share/doc/docbook-xsl-doc-pdf/doc/reference.pdf.gz",
)

#: run in .bench-venv: pdfminer.six's layout analysis, one JSON line per file
PDFMINER = r"""
import io, json, sys, time
from pdfminer.high_level import extract_pages
from pdfminer.layout import LTTextContainer
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    start = time.process_time()
    pages = blocks = chars = 0
    for page in extract_pages(io.BytesIO(data)):
        pages += 1
        for element in page:
            if isinstance(element, LTTextContainer):
                text = element.get_text().strip()
                if text:
                    blocks += 1
                    chars += len(text)
    cpu = (time.process_time() - start) * 1000
    print(json.dumps({"file": path, "pages": pages, "cpu_ms": cpu, "blocks": blocks,
                      "chars": chars, "headings": 0}))
"""


def _files(arguments: list[str]) -> list[Path]:
    if arguments:
        return [Path(a) for a in arguments]
    if not all(Path(f).exists() for f in DEFAULT_FILES):
        subprocess.run(["apt-get", "install", "-y", "-qq", *DEBIAN_PACKAGES], check=True)
    found = []
    for name in DEFAULT_FILES:
        path = Path(name)
        if path.suffix == ".gz":  # Debian compresses some manuals
            plain = Path("/tmp") / path.stem
            plain.write_bytes(gzip.decompress(path.read_bytes()))
            path = plain
        found.append(path)
    return found


def ours(path: Path) -> dict[str, object]:
    """Our reader on one file."""
    from webmd_spider.documents.pdf import convert_pdf

    data = path.read_bytes()
    start = time.process_time()
    converted = convert_pdf(data, f"http://127.0.0.1/{path.name}")
    cpu = (time.process_time() - start) * 1000
    markdown = converted.document.markdown or ""
    blocks = [b for b in markdown.split("\n\n") if b.strip() and not b.startswith("<!--")]
    return {
        "file": str(path),
        "pages": converted.page_count or 0,
        "cpu_ms": cpu,
        "blocks": len(blocks),
        "chars": sum(len(b) for b in blocks),
        "headings": sum(1 for b in blocks if b.startswith("#")),
    }


def pdfminer(paths: list[Path]) -> list[dict[str, object]]:
    """pdfminer.six on the files, in .bench-venv."""
    python = BENCH_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(BENCH_VENV)], check=True)
    check = subprocess.run([python, "-c", "import pdfminer"], capture_output=True)
    if check.returncode != 0:
        subprocess.run([python, "-m", "pip", "install", "-q", "pdfminer.six"], check=True)
    done = subprocess.run(
        [python, "-c", PDFMINER, *map(str, paths)], capture_output=True, text=True, check=True
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def main() -> int:
    paths = _files(sys.argv[1:])
    theirs = {r["file"]: r for r in pdfminer(paths)}
    print(
        "| file | pages | ours ms/page | pdfminer ms/page | ratio | ours blocks (mean chars)"
        " | pdfminer blocks (mean chars) | ours headings |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in paths:
        mine, other = ours(path), theirs[str(path)]
        pages = max(int(mine["pages"]), 1)  # type: ignore[call-overload]
        per_page = float(mine["cpu_ms"]) / pages  # type: ignore[arg-type]
        their_page = float(other["cpu_ms"]) / max(int(other["pages"]), 1)  # type: ignore[call-overload, arg-type]
        mean = int(mine["chars"]) / max(int(mine["blocks"]), 1)  # type: ignore[call-overload]
        their_mean = int(other["chars"]) / max(int(other["blocks"]), 1)  # type: ignore[call-overload]
        print(
            f"| {path.name} | {mine['pages']} | {per_page:.1f} | {their_page:.1f} | "
            f"{their_page / max(per_page, 1e-9):.2f}x | {mine['blocks']} ({mean:.0f}) | "
            f"{other['blocks']} ({their_mean:.0f}) | {mine['headings']} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
