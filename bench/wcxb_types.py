"""WCXB dev in process, per page type, whole and by hash half (issue 32).

    .venv/bin/python bench/wcxb_types.py [--types forum,service] [--oracle | --types-from F]
        [--pages-out F.json]

Runs ``extract()`` on the pages of ../shared/bench/extraction/corpus/wcxb-dev (or
``--data``) and scores the ``text`` with the benchmark's own ``evaluate.word_f1``, the
figure ``wcxb_run.py`` gives. ``--oracle`` hands the extractor the benchmark's page type
(``ExtractOptions.page_type``): a profile's ceiling, apart from the classifier.
``--types-from FILE`` forces each page's type from FILE ({page_id: type}), as the
shipped extractor would act on it: as the model's call (a profile acting on the model's
word alone checks its own result first: ``profiles.decisive``), e.g. the
out-of-fold types ``bench/train_page_type.py --oof-out`` writes: the shipped model was
fit to all of WCXB dev, so its own types here are in-sample; the out-of-fold ones are
what the model says of pages it did not see (a page absent from FILE is classified).

Halves: crc32 of the page id, even / odd, as ``bench/halves.py``. Misses are read from
the even half only; the odd half is the hold-out (BENCHMARKS reports both).
``--pages-out`` writes per-page scores (id, type, half, f1, predicted type).
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import sys
import time
import zlib
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "bench" / "extraction" / "corpus" / "wcxb-dev"


def _evaluator(data: Path) -> Any:
    spec = importlib.util.spec_from_file_location("wcxb_evaluate", data / "evaluate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def half_of(page_id: str) -> str:
    """ "even" or "odd": crc32 of the id (bench/halves.py's split)."""
    return "odd" if zlib.crc32(page_id.encode("utf-8")) % 2 else "even"


def _one(job: tuple[str, str, str, str, bool]) -> dict[str, Any]:
    import webmd_spider.extract.extractor as extractor
    from webmd_spider.extract import ExtractOptions, extract
    from webmd_spider.extract.page_type import PageType, classify_page

    # forced: the type to give the extractor, or ""; gate: forced from --types-from
    page_id, url, path, forced, gate = job
    with gzip.open(path, "rb") as raw:
        html = raw.read()
    options = ExtractOptions(page_type="" if gate else forced)
    if gate and forced:
        # as shipped: the forced type reaches the profiles as the model's call (a
        # profile that acts on the model's word alone checks its own result first,
        # profiles.decisive), unless a rule decided it (a generator, a schema.org type
        # such as ItemList: those do not depend on the model, so the live
        # classification shows them)
        def forced_step(*args: Any, **kwargs: Any) -> PageType:
            live = classify_page(*args, **kwargs)
            first = live.evidence[0] if live.evidence else ""
            if live.name == forced and not first.startswith(("model:", "unsure:")):
                return live
            return PageType(forced, (f"model:{forced}", *live.evidence[1:]))

        extractor.classify_page = forced_step
    else:
        extractor.classify_page = classify_page
    started = time.process_time()
    doc = extract(html, url, options=options)
    cpu = time.process_time() - started
    return {"id": page_id, "text": doc.text, "predicted": doc.page_type, "cpu": cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--types", default="", help="only these benchmark page types")
    given = parser.add_mutually_exclusive_group()
    given.add_argument("--oracle", action="store_true", help="give the extractor the label")
    given.add_argument(
        "--types-from", type=Path, help="force each page's type from this {page_id: type} file"
    )
    parser.add_argument("--half", choices=("all", "even", "odd"), default="all")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--pages-out", type=Path)
    args = parser.parse_args()
    evaluate = _evaluator(args.data)
    forced_types: dict[str, str] = (
        json.loads(args.types_from.read_text()) if args.types_from else {}
    )
    wanted = {t for t in args.types.split(",") if t}
    jobs, truth = [], {}
    for gt_path in sorted((args.data / "dev" / "ground-truth").glob("*.json")):
        gt = json.loads(gt_path.read_text())
        page_id = gt_path.stem
        if not isinstance(gt.get("ground_truth"), dict):
            continue  # the official scorer skips these too
        label = evaluate.get_page_type(gt)  # what the official per-type figures use
        if wanted and label not in wanted:
            continue
        if args.half != "all" and half_of(page_id) != args.half:
            continue
        html_path = args.data / "dev" / "html" / f"{page_id}.html.gz"
        truth[page_id] = (label, gt["ground_truth"].get("main_content") or "")
        forced = label if args.oracle else forced_types.get(page_id, "")
        gate = not args.oracle and page_id in forced_types
        jobs.append((page_id, gt.get("url", ""), str(html_path), forced, gate))
    with ProcessPoolExecutor(args.processes) as pool:
        results = list(pool.map(_one, jobs, chunksize=8))
    by: dict[tuple[str, str], list[float]] = defaultdict(list)
    pages = []
    right = 0
    cpu = 0.0
    for result in results:
        label, reference = truth[result["id"]]
        f1 = evaluate.word_f1(result["text"], reference)[2]
        half = half_of(result["id"])
        for key in ((label, half), (label, "all"), ("all", half), ("all", "all")):
            by[key].append(f1)
        right += result["predicted"] == label
        cpu += result["cpu"]
        pages.append({"id": result["id"], "type": label, "half": half, "f1": round(f1, 4),
                      "predicted": result["predicted"]})  # fmt: skip
    print(f"{'type':<15}{'pages':>6}{'all':>8}{'even':>8}{'odd':>8}")
    for label in sorted({k[0] for k in by}, key=lambda t: (t == "all", t)):
        row = [by.get((label, h), []) for h in ("all", "even", "odd")]
        means = [f"{sum(v) / len(v):.3f}" if v else "-" for v in row]
        print(f"{label:<15}{len(row[0]):>6}{means[0]:>8}{means[1]:>8}{means[2]:>8}")
    print(f"type accuracy {right / max(1, len(results)):.3f}; extract CPU "
          f"{1000 * cpu / max(1, len(results)):.1f} ms/page")  # fmt: skip
    if args.pages_out:
        args.pages_out.write_text(json.dumps(pages, indent=0))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
