"""A stand-in extraction worker for ``bench/stub_extract.py run-workers``: a measuring
stick, not a product.

    python bench/stub_worker.py WORK.pickle JOBS_FD RESULTS_FD

Speaks the protocol of ``webmd_spider.offload.worker`` (setup frame, ``READY``, one
result frame per job frame) but answers each page with the pickled ``PageWork`` that
``stub_extract.py build`` computed before the run with the real ``extract_page``
(looked up by URL path; a page it does not know, or every page when the crawl sends
other extraction options or another chunk budget than the build used, is extracted
for real). The crawl
process therefore does everything it does in a shipped crawl with extraction
processes (jobs out, results in, rows, links, feed) while the extraction itself costs
next to nothing: what the crawl process alone allows when the workers have cores of
their own.
"""

from __future__ import annotations

import pickle
import signal
import sys
from multiprocessing.connection import Connection
from urllib.parse import urlsplit

from webmd_spider.offload.page_work import extract_page


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with open(sys.argv[1], "rb") as handle:
        built = pickle.load(handle)
    answers: dict[str, bytes] = built["answers"]
    jobs = Connection(int(sys.argv[2]), writable=False)
    results = Connection(int(sys.argv[3]), readable=False)
    try:
        options, (size, overlap), _gc_threshold = pickle.loads(jobs.recv_bytes())
        if (options, (size, overlap)) != built["setup"]:
            # other extraction options or chunk budget than the answers were built with:
            # every page is extracted for real, so the rows stay right
            print("stub_worker: other options than the built answers; extracting", file=sys.stderr)
            answers = {}
        results.send_bytes(b"ready")
    except (EOFError, OSError):
        return 0
    while True:
        try:
            body, url, encoding = pickle.loads(jobs.recv_bytes())
        except (EOFError, OSError):
            return 0
        answer = answers.pop(urlsplit(url).path, None)
        if answer is None:
            work = extract_page(body, url, encoding, options, size, overlap)
            answer = pickle.dumps(work, pickle.HIGHEST_PROTOCOL)
        try:
            results.send_bytes(answer)
        except OSError:
            return 0


if __name__ == "__main__":
    sys.exit(main())
