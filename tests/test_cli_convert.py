"""``webmd convert``: one file or stdin to Markdown/text/JSON, and the ``--jsonl`` batch
contract of the extraction harness, run as a subprocess the way a user (or the harness)
runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from webmd_spider.items import COLUMNS

REPO = Path(__file__).resolve().parent.parent

PROSE = (
    "The river valley was settled late, because the spring floods reached far into the "
    "plain and no one trusted the ground until the first levees were finished. "
) * 4
PAGE = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Valley notes</title>
<meta name="author" content="Ada Field"></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About us</a></nav>
<article>
<h1>Valley notes</h1>
<p>{PROSE}</p>
<h2>Levees</h2>
<p>{PROSE} See <a href="levees.html">the levee map</a>.</p>
<ul><li>North levee, built first</li><li>South levee, built later</li></ul>
<pre><code class="language-python">print("flood level")</code></pre>
<p>Café crème and naïve façades: non-ASCII text survives.</p>
</article>
<footer>Copyright 2026 Valley Society</footer>
</body></html>
"""


def convert(
    *args: str, stdin: bytes | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    """``webmd convert ARGS`` with ``stdin`` piped in (none: an empty stdin, never the
    test runner's own, which may be a terminal or a pipe that stays open)."""
    command = [sys.executable, "-m", "webmd_spider.cli", "convert", *args]
    feed: dict[str, Any] = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run(
        command, capture_output=True, timeout=120, check=False, cwd=cwd, **feed,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )  # fmt: skip


def page_file(tmp_path: Path) -> Path:
    path = tmp_path / "page.html"
    path.write_text(PAGE, encoding="utf-8")
    return path


def test_file_to_markdown(tmp_path: Path) -> None:
    done = convert(str(page_file(tmp_path)), "--url", "https://valley.example/notes/")
    assert done.returncode == 0, done.stderr.decode()
    md = done.stdout.decode("utf-8")
    assert "# Valley notes" in md
    assert "## Levees" in md
    assert "```python" in md and 'print("flood level")' in md
    assert "[the levee map](https://valley.example/notes/levees.html)" in md
    assert "Café crème" in md
    assert "About us" not in md and "Copyright 2026" not in md


def test_no_links_and_no_images_keep_the_text(tmp_path: Path) -> None:
    page = tmp_path / "pic.html"
    page.write_text(PAGE.replace("<h2>", '<p><img src="map.png" alt="Levee map"></p><h2>'))
    done = convert(str(page), "--url", "https://valley.example/notes/")
    assert "![Levee map](https://valley.example/notes/map.png)" in done.stdout.decode()
    done = convert(str(page), "--no-links", "--no-images", "--url", "https://valley.example/")
    assert done.returncode == 0, done.stderr.decode()
    md = done.stdout.decode("utf-8")
    assert "See the levee map." in md
    assert "](" not in md and "![" not in md


def test_stdin_and_no_url_keeps_relative_links_as_written() -> None:
    done = convert("-", stdin=PAGE.encode("utf-8"))
    assert done.returncode == 0, done.stderr.decode()
    md = done.stdout.decode("utf-8")
    assert "## Levees" in md
    # issue 31 item 5: no made-up http://localhost/ base
    assert "[the levee map](levees.html)" in md and "localhost" not in md


def test_a_piped_page_is_read_without_a_dash(tmp_path: Path) -> None:
    """``cat page.html | webmd convert``: stdin is a file here, not a terminal."""
    page = tmp_path / "docs" / "library" / "pickle.html"
    page.parent.mkdir(parents=True)
    page.write_text(PAGE.replace("levees.html", "marshal.html#module-marshal"), "utf-8")
    command = [sys.executable, "-m", "webmd_spider.cli", "convert"]
    with page.open("rb") as piped:
        done = subprocess.run(
            command, stdin=piped, capture_output=True, timeout=120, check=False,
            env=dict(os.environ, PYTHONPATH=str(REPO)),
        )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    md = done.stdout.decode("utf-8")
    assert md.startswith("# Valley notes") and "## Levees" in md
    assert "[the levee map](marshal.html#module-marshal)" in md
    with page.open("rb") as piped:
        row = subprocess.run(
            [*command, "--format", "json"], stdin=piped, capture_output=True, timeout=120,
            check=False, env=dict(os.environ, PYTHONPATH=str(REPO)),
        )  # fmt: skip
    doc = json.loads(row.stdout)
    assert doc["row_type"] == "page" and doc["url"] is None
    assert "[the levee map](marshal.html#module-marshal)" in doc["markdown"]
    # no base: a relative link is listed as written, on the page's own site
    assert {"text": "the levee map", "url": "marshal.html", "internal": True} in doc["links"]


def test_url_gives_the_base_links_resolve_against(tmp_path: Path) -> None:
    base = "https://docs.example.org/3/library/pickle.html"
    done = convert(str(page_file(tmp_path)), "--url", base, "--format", "json")
    doc = json.loads(done.stdout)
    assert "[the levee map](https://docs.example.org/3/library/levees.html)" in doc["markdown"]
    assert doc["url"] == base
    assert "https://docs.example.org/3/library/levees.html" in [x["url"] for x in doc["links"]]


def test_a_terminal_on_stdin_is_not_read() -> None:
    """No FILE and stdin a terminal: a usage message at once, not a wait for typing."""
    primary, secondary = os.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "webmd_spider.cli", "convert"], stdin=secondary,
            capture_output=True, timeout=120, check=False,
            env=dict(os.environ, PYTHONPATH=str(REPO)),
        )  # fmt: skip
    finally:
        os.close(secondary)
        os.close(primary)
    assert done.returncode == 2 and done.stdout == b""
    assert b"give an HTML, Markdown, PDF or DOCX FILE, or pipe a page to stdin" in done.stderr


def test_format_text_has_no_markdown_syntax(tmp_path: Path) -> None:
    done = convert(str(page_file(tmp_path)), "--format", "text")
    assert done.returncode == 0, done.stderr.decode()
    text = done.stdout.decode("utf-8")
    assert "Levees" in text and "North levee" in text
    assert "## " not in text and "```" not in text and "](" not in text


def test_format_json_is_the_crawl_page_row(tmp_path: Path) -> None:
    done = convert(str(page_file(tmp_path)), "--format", "json", "--include-html")
    assert done.returncode == 0, done.stderr.decode()
    doc = json.loads(done.stdout)
    # the crawl's row schema, column for column (README: one schema)
    assert list(doc) == list(COLUMNS) and doc["row_type"] == "page"
    assert doc["title"] == "Valley notes"
    assert doc["author"] == "Ada Field"
    assert doc["language"] == "en"
    assert "## Levees" in doc["markdown"]
    assert {"level": 2, "text": "Levees", "anchor": None} in doc["headings"]
    assert doc["html"] and "<h2>" in doc["html"]
    assert doc["error"] is None and doc["truncated"] is False
    assert doc["status_code"] is None  # crawl-only columns stay empty


def test_max_chars_truncates(tmp_path: Path) -> None:
    done = convert(str(page_file(tmp_path)), "--format", "json", "--max-chars", "200")
    doc = json.loads(done.stdout)
    assert doc["truncated"] is True
    assert len(doc["markdown"]) <= 200


def test_jsonl_round_trip_with_a_broken_line() -> None:
    lines = [
        json.dumps({"id": "one", "url": "https://valley.example/a", "html": PAGE}),
        "{this is not json",
        json.dumps({"id": 3, "url": "", "html": "<p>Ünïcode short page</p>"}),
        json.dumps({"id": "no-html", "url": ""}),
        "",
    ]
    done = convert("--jsonl", stdin="\n".join(lines).encode("utf-8"))
    assert done.returncode == 0, done.stderr.decode()
    out = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert len(out) == 4  # the blank line is skipped, every other line answers
    first, broken, third, no_html = out
    assert first["id"] == "one"
    assert "## Levees" in first["markdown"] and "Levees" in first["text"]
    assert "## " not in first["text"]
    assert isinstance(first["cpu_ms"], float) and first["cpu_ms"] >= 0
    assert broken["id"] is None and "invalid JSON" in broken["error"]
    assert "text" not in broken
    assert third["id"] == 3 and "Ünïcode short page" in third["text"]
    assert no_html == {"id": "no-html", "error": "'html' must be a string"}


def test_jsonl_flushes_each_line() -> None:
    """The harness may read lines as they come: every answer is written and flushed
    before the next input line is read."""
    command = [sys.executable, "-m", "webmd_spider.cli", "convert", "--jsonl"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write((json.dumps({"id": "x", "url": "", "html": PAGE}) + "\n").encode())
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())  # would hang without the flush
        assert answer["id"] == "x"
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0


def test_missing_file_exits_non_zero_with_a_clear_message(tmp_path: Path) -> None:
    done = convert(str(tmp_path / "nope.html"))
    assert done.returncode == 2
    assert done.stdout == b""
    assert f"cannot read {tmp_path / 'nope.html'}: No such file" in done.stderr.decode()


def test_usage_errors(tmp_path: Path) -> None:
    nothing = convert()  # no FILE, and nothing piped
    assert nothing.returncode == 2 and b"nothing on stdin" in nothing.stderr
    bad_format = convert(str(page_file(tmp_path)), "--format", "pdf")
    assert bad_format.returncode == 2 and b"invalid choice" in bad_format.stderr
    jsonl_with_file = convert("--jsonl", str(page_file(tmp_path)))
    assert jsonl_with_file.returncode == 2 and b"--jsonl reads stdin" in jsonl_with_file.stderr


def test_empty_input_reports_the_extraction_error() -> None:
    done = convert("-", stdin=b"")
    assert done.returncode == 1
    assert b"webmd convert: -:" in done.stderr


def test_bad_input_gets_one_clear_line_and_a_non_zero_exit(tmp_path: Path) -> None:
    # issue 16 item 5: a binary file printed 245 KB of mojibake and exited 0; a bogus
    # encoding was ignored; "--max-chars abc" said "invalid _non_negative value"
    binary = tmp_path / "image.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 400)
    done = convert(str(binary))
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == f"webmd convert: {binary} is a binary file, not an HTML page\n"
    encoding = convert(str(page_file(tmp_path)), "--encoding", "bogus")
    assert encoding.returncode == 2 and b"unknown encoding 'bogus'" in encoding.stderr
    chars = convert(str(page_file(tmp_path)), "--max-chars", "abc")
    assert chars.returncode == 2
    assert b"argument --max-chars: must be a whole number >= 0, got 'abc'" in chars.stderr
    for done in (encoding, chars):
        assert b"Traceback" not in done.stderr


README = """---
title: Front matter title
---
# Valley handbook

Read [the levee map](maps/levees.md) and the [glossary][terms] first.

## Levees

* North levee, built first
* South levee, *built later*

| Levee | Year |
| --- | --- |
| North | 1891 |

```python
print("# not a heading")
```

[terms]: ../glossary.md
"""


def test_a_markdown_file_is_passed_through_with_its_first_heading_as_title(
    tmp_path: Path,
) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(README, encoding="utf-8")
    done = convert(str(readme))
    assert done.returncode == 0, done.stderr.decode()
    md = done.stdout.decode("utf-8")
    # the Markdown itself, not one escaped paragraph (issue 31 item 5)
    assert md == README.split("---\n", 2)[2]
    text = convert(str(readme), "--format", "text").stdout.decode("utf-8")
    assert text.startswith("Valley handbook") and "North levee, built first" in text
    assert "## " not in text and "](" not in text and "```" not in text
    row = json.loads(convert(str(readme), "--format", "json").stdout)
    assert list(row) == list(COLUMNS) and row["row_type"] == "page"
    assert row["extraction_method"] == "markdown"
    assert row["title"] == "Valley handbook"  # the first heading, not the front matter
    assert row["markdown"] == md.rstrip("\n")
    assert {"level": 2, "text": "Levees", "anchor": None} in row["headings"]
    assert row["tables"] and row["tables"][0]["rows"] == [["North", "1891"]]
    assert row["word_count"] > 20 and row["content_hash"].startswith("sha256:")
    explained = convert(str(readme), "--explain")
    assert explained.stdout == b"removed: nothing (Markdown input is passed through as written)\n"


def test_markdown_from_a_pipe_is_known_by_having_no_html_tags() -> None:
    piped = convert(stdin=b"# Notes\n\nPlain text, with List<String> and <me@example.org>.\n")
    assert piped.returncode == 0, piped.stderr.decode()
    assert piped.stdout == b"# Notes\n\nPlain text, with List<String> and <me@example.org>.\n"
    row = json.loads(convert("--format", "json", stdin=b"# Notes\n\nJust text.\n").stdout)
    assert row["extraction_method"] == "markdown" and row["title"] == "Notes"
    # a page with tags is HTML, piped or not
    html = convert(stdin=PAGE.encode("utf-8"))
    assert "About us" not in html.stdout.decode() and "## Levees" in html.stdout.decode()
