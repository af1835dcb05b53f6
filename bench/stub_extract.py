"""Our full crawl with the extraction cost taken out: a measuring stick, not a product.

    python bench/stub_extract.py build SITE_DIR ORIGIN OUT.pickle
    python bench/stub_extract.py run OUT.pickle crawl site -a start=ORIGIN/ ...
    python bench/stub_extract.py run-workers OUT.pickle crawl site -a start=ORIGIN/ ...

``build`` runs the real ``extract_page`` (``webmd_spider.offload.page_work``: extraction,
row columns, chunks of 512 tokens) on every ``*.html`` file of a served site folder,
with the URLs the crawl will see (``ORIGIN`` + path), and pickles the ``PageWork``
results (``OUT.pickle.work``).
``run`` loads them (its CPU is charged to the run), replaces the ``extract_page`` name
the ``site`` spider calls with a dictionary lookup by URL path (unknown paths, or other
options than the build's, still get the real extraction), and runs
``scrapy`` with the remaining arguments, adding ``-s WEBMD_EXTRACT_PROCESSES=0`` (the
lookup exists in this process only). Everything else (Scrapy, our middlewares,
page rows, links, chunks, the JSONL feed) runs as shipped, so ``bench/crawl.py``'s
``webmd-noextract`` variant shows how fast the crawl could go if extraction were free.

``run-workers`` leaves the crawl as shipped, extraction processes included, but starts
``bench/stub_worker.py`` as the worker: it answers each page with the ``PageWork`` that
``build`` also computed (``OUT.pickle.work``: the real ``extract_page`` with a chunk
budget of 512 tokens, as ``bench/crawl.py`` crawls). The crawl process does all it
does when workers extract (jobs out, results in, rows, links, chunks kept, feed)
while the workers cost next to nothing: ``bench/crawl.py``'s ``webmd-stubworker``
variant is the crawl process's own ceiling, i.e. the pages/s of a machine with enough
cores for its workers. It is a projection, measured on this machine, not a crawl.
"""

from __future__ import annotations

import pickle
import runpy
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

# bench/ holds incremental.py, which would shadow Twisted's `incremental` dependency
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]


def _pages(site_dir: Path, origin: str) -> Iterator[tuple[str, str, bytes]]:
    """(URL path, URL, body) of every page of the served site folder."""
    for path in sorted(site_dir.rglob("*.html")):
        url_path = "/" + path.relative_to(site_dir).as_posix()
        yield url_path, origin + url_path, path.read_bytes()


def _by_path(results: dict[str, Any]) -> dict[str, Any]:
    """``results`` with the site root "/" answered like "/index.html"."""
    if "/index.html" in results:
        results["/"] = results["/index.html"]
    return results


def build(site_dir: Path, origin: str, out: Path) -> None:
    """The answers of both run modes: ``OUT.work`` (``run`` and ``run-workers`` read it)."""
    build_work(site_dir, origin, Path(f"{out}.work"))


def build_work(site_dir: Path, origin: str, out: Path) -> None:
    """The pickled ``PageWork`` of every page, as an extraction process sends it."""
    from webmd_spider.chunking.markdown_chunks import chunk_budget
    from webmd_spider.extract import ExtractOptions
    from webmd_spider.offload.page_work import extract_page

    options = ExtractOptions()
    size, overlap = chunk_budget(chunk_tokens=512)
    answers = _by_path(
        {
            url_path: pickle.dumps(
                extract_page(body, url, "utf-8", options, size, overlap), pickle.HIGHEST_PROTOCOL
            )
            for url_path, url, body in _pages(site_dir, origin)
        }
    )
    with out.open("wb") as handle:
        # the setup they were computed with: bench/stub_worker.py answers from them only
        # when the crawl sends the same one
        setup = (options, (size, overlap))
        pickle.dump({"setup": setup, "answers": answers}, handle, pickle.HIGHEST_PROTOCOL)


def run_workers(pickled: Path, scrapy_args: list[str]) -> None:
    """The shipped crawl with ``bench/stub_worker.py`` as its extraction processes."""
    import webmd_spider.offload.pool as pool_module

    stub = Path(__file__).resolve().parent / "stub_worker.py"
    pool_module.WORKER_ARGV = [str(stub), f"{pickled}.work"]
    if not any(a.startswith("WEBMD_EXTRACT_PROCESSES=") for a in scrapy_args):
        scrapy_args = [*scrapy_args, "-s", "WEBMD_EXTRACT_PROCESSES=1"]
    sys.argv = ["scrapy", *scrapy_args]
    runpy.run_module("scrapy", run_name="__main__", alter_sys=True)


def run(pickled: Path, scrapy_args: list[str]) -> None:
    started = time.process_time()
    with Path(f"{pickled}.work").open("rb") as handle:
        built = pickle.load(handle)
    # unpickled here, before the crawl: the lookup below then costs a dict access
    answers = {path: pickle.loads(data) for path, data in built["answers"].items()}
    print(
        f"stub_extract: {len(answers)} pages loaded in {time.process_time() - started:.2f} s CPU",
        file=sys.stderr,
    )
    # the module whose page answers call extract_page in-process
    import webmd_spider.spiders.page_answers as site_module

    real_extract_page = site_module.extract_page

    def lookup(
        body: bytes, url: str, encoding: str | None, options: Any, size: int = 0, overlap: int = 0
    ) -> Any:
        if (options, (size, overlap)) == built["setup"]:
            work = answers.pop(urlsplit(url).path, None)
            if work is not None:
                return work
        # other options than the build's, or an unknown path: the real extraction
        return real_extract_page(body, url, encoding, options, size, overlap)

    site_module.extract_page = lookup  # type: ignore[assignment]
    if not any(a.startswith("WEBMD_EXTRACT_PROCESSES=") for a in scrapy_args):
        # the lookup replaces extraction in this process only: no extraction processes
        scrapy_args = [*scrapy_args, "-s", "WEBMD_EXTRACT_PROCESSES=0"]
    sys.argv = ["scrapy", *scrapy_args]
    runpy.run_module("scrapy", run_name="__main__", alter_sys=True)


def main() -> None:
    if sys.argv[1:2] == ["build"]:
        build(Path(sys.argv[2]), sys.argv[3].rstrip("/"), Path(sys.argv[4]))
    elif sys.argv[1:2] == ["run"]:
        run(Path(sys.argv[2]), sys.argv[3:])
    elif sys.argv[1:2] == ["run-workers"]:
        run_workers(Path(sys.argv[2]), sys.argv[3:])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
