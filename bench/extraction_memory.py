"""Memory over many pages: run extract() on the shared corpus pages in a loop and
report RSS at intervals, to show that memory stays flat (no leak, no growth).

    .venv/bin/python bench/extraction_memory.py [--pages 10000] [--corpus DIR]

Prints one line per 1,000 pages (pages done, RSS MB, CPU ms/page so far) and a
final verdict line: growth between the first and the last tenth of the run.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

from webmd_spider.extract import extract

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared/bench/extraction/corpus/readability"


def rss_mb() -> float:
    """Current resident set size in MB (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    sources = [p.read_bytes() for p in sorted(args.corpus.glob("*/source.html"))]
    samples: list[tuple[int, float]] = []
    start = time.process_time()
    for i in range(1, args.pages + 1):
        extract(sources[i % len(sources)], "http://fakehost/test/page.html")
        if i % 1000 == 0 or i == args.pages:
            cpu_ms = (time.process_time() - start) * 1000 / i
            samples.append((i, rss_mb()))
            print(
                f"pages {i:>6}  rss {samples[-1][1]:7.1f} MB  cpu {cpu_ms:5.1f} ms/page", flush=True
            )
    first, last = samples[0][1], samples[-1][1]
    print(
        f"RSS after {samples[0][0]} pages: {first:.1f} MB; after {samples[-1][0]}: {last:.1f} MB; "
        f"growth {last - first:+.1f} MB over {len(sources)} distinct pages"
    )


if __name__ == "__main__":
    main()
