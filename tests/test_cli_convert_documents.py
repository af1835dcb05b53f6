"""``webmd convert`` on PDF and DOCX files, run as a subprocess the way a user runs it:
Markdown, text and the page row; a file that cannot be converted gets one clear line
and exit 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .documents.samples import PAGE_TWO_HEADING, PROSE, TITLE, report_docx, report_pdf

REPO = Path(__file__).resolve().parent.parent


def convert(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "webmd_spider.cli", "convert", *args]
    return subprocess.run(
        command, input=stdin, capture_output=True, timeout=120, check=False,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )  # fmt: skip


def test_a_pdf_file_prints_its_markdown(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(report_pdf())
    done = convert(str(path))
    assert done.returncode == 0 and done.stderr == b""
    markdown = done.stdout.decode()
    assert markdown.startswith(f"<!-- page 1 -->\n\n# {TITLE}\n\n## Tides and Queues\n\n")
    assert f"<!-- page 2 -->\n\n## {PAGE_TWO_HEADING}" in markdown
    assert PROSE in markdown.split("\n\n")
    # the same bytes on stdin, and as text
    assert convert("-", stdin=path.read_bytes()).stdout == done.stdout
    text = convert(str(path), "--format", "text").stdout.decode()
    assert text.startswith(f"{TITLE}\n\nTides and Queues\n\n") and "<!--" not in text


def test_a_docx_file_prints_its_markdown_and_its_row(tmp_path: Path) -> None:
    path = tmp_path / "notes.docx"
    path.write_bytes(report_docx())
    done = convert(str(path))
    assert done.returncode == 0
    markdown = done.stdout.decode()
    assert markdown.startswith(f"# {TITLE}\n\n# Tides and Queues\n\n{PROSE}")
    assert "| Pier | Berths | Depth |" in markdown
    row = json.loads(convert(str(path), "--format", "json").stdout)
    assert row["row_type"] == "page" and row["extraction_method"] == "docx"
    assert row["title"] == TITLE and row["page_count"] is None
    assert row["markdown"] + "\n" == markdown


def test_the_json_row_of_a_pdf_has_its_page_count(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(report_pdf(extra_pages=1))
    done = convert(str(path), "--format", "json", "--url", "https://harbor.example/r.pdf")
    row = json.loads(done.stdout)
    assert done.returncode == 0 and row["row_type"] == "page"
    assert row["page_count"] == 3 and row["title"] == TITLE
    assert row["final_url"] == "https://harbor.example/r.pdf"


def test_an_encrypted_pdf_gets_one_clear_line_and_exit_1(tmp_path: Path) -> None:
    path = tmp_path / "locked.pdf"
    path.write_bytes(report_pdf(user_password="s3cret"))
    done = convert(str(path))
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr.decode() == (
        f"webmd convert: {path}: the PDF is encrypted: it needs a password to open\n"
    )
    as_json = convert(str(path), "--format", "json")
    row = json.loads(as_json.stdout)
    assert as_json.returncode == 1
    assert (row["row_type"], row["error_type"]) == ("diagnostic", "unsupported")
    for run in (done, as_json):
        assert b"Traceback" not in run.stderr
