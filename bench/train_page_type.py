"""Train, cross-validate and export the page-type model (issue 32, item 3). Offline only.

    .bench-venv/bin/python bench/train_page_type.py [--cache DIR] [--refresh] [--write-model]
        [--oof-out bench/results/page_type_oof.json]

Needs scikit-learn in .bench-venv (``.bench-venv/bin/pip install scikit-learn``); the
shipped model is a JSON file evaluated in pure Python by ``extract.page_type``.

1. Features: ``extract()`` runs on every page of WCXB dev, trafilatura-dev (all 467)
   and Readability with ``classify_page`` swapped for a recorder that keeps the tree
   the extractor hands the step (cleaned), in ``--cache`` (pages already there are not
   re-run; ``--refresh`` re-runs all); the features are computed from those trees with
   the URL each corpus's benchmark passes, so a feature change needs no re-extraction.
   Each model is fit to every page twice: with its URL, and without it at
   ``NO_URL_WEIGHT``, so that a URL without a hint (Readability's test address, a
   caller with none) does not read as "no article".
2. 5-fold cross-validation on WCXB dev, folds grouped by domain (metadata.json), so no
   site is in both the fit and the test; each fold's model is exported and evaluated
   by the shipped pure-Python code (the same decision rules), never on its own pages.
   Prints accuracy, the confusion matrix and per-type precision / recall.
   ``--oof-out FILE`` writes each WCXB dev page's out-of-fold type ({page_id: type}:
   the decision of the fold model that did not see the page), which
   ``bench/wcxb_types.py --types-from FILE`` forces, so the extraction figures per type
   can be given with types the model was not fit to.
3. Hold-out half: fit on the crc32-even half, test on the odd half (bench/halves.py).
4. Trained on all of WCXB dev: the predicted type distribution on trafilatura-dev and
   Readability (no labels: a sanity check that their articles stay article / other).
5. ``--write-model``: writes that model to webmd_spider/extract/page_type_model.json.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
import zlib
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
# run from .bench-venv (scikit-learn): the project's own dependencies (w3lib...) come
# from .venv, after the bench venv's packages
sys.path += [str(p) for p in sorted((REPO / ".venv" / "lib").glob("python3*/site-packages"))]
CORPORA = REPO.parent / "shared" / "bench" / "extraction" / "corpus"
WCXB = CORPORA / "wcxb-dev"
MODEL = REPO / "webmd_spider" / "extract" / "page_type_model.json"
LABELS = ("article", "forum", "product", "collection", "listing", "documentation", "service")

# fit settings: small trees, few rounds (size and per-page cost), fixed seed
PARAMS: dict[str, Any] = {
    "n_estimators": 150,
    "learning_rate": 0.1,
    "max_depth": 3,
    "subsample": 0.8,
    "min_samples_leaf": 5,
    "random_state": 0,
}
#: the weight of a page's copy without its URL in the fit
NO_URL_WEIGHT = 0.25


def half_of(page_id: str) -> str:
    """ "even" or "odd": crc32 of the id (bench/halves.py's split)."""
    return "odd" if zlib.crc32(page_id.encode("utf-8")) % 2 else "even"


def _cleaned_tree(job: tuple[str, str, str, str]) -> dict[str, Any]:
    """Run extract() on one page with classify_page swapped for a recorder: the cleaned
    tree exactly as the step gets it (serialised to `job`'s cache path), its JSON-LD."""
    import lxml.html

    import webmd_spider.extract.extractor as extractor
    from webmd_spider.extract import ExtractOptions, extract
    from webmd_spider.extract.page_type import PageType

    page_id, url, path, cache = job
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as raw:
        html = raw.read()
    seen: dict[str, Any] = {"ld": []}

    def recorder(root: Any, *, ld_types: Any = (), url: str = "", generator: str = "") -> PageType:
        seen["ld"] = list(ld_types)
        Path(cache).write_bytes(gzip.compress(lxml.html.tostring(root, encoding="utf-8")))
        return PageType("other", ())

    extractor.classify_page = recorder  # type: ignore[assignment]
    extract(html, url, options=ExtractOptions(main_content_only=False))
    return {"id": page_id, **seen}


def _features_of(row: dict[str, Any], cache: Path) -> dict[str, Any]:
    """The features of one cached cleaned tree (what classify_page computes)."""
    import lxml.html

    from webmd_spider.extract.page_type_features import page_features

    path = cache / f"{row['corpus']}-{row['id']}.html.gz"
    if not path.exists():  # extract() stopped before the step (an empty page)
        return {"vector": None}
    root = lxml.html.fromstring(gzip.decompress(path.read_bytes()))
    started = time.process_time()
    features = page_features(root, ld_types=row["ld"], url=row["url"])
    cpu = time.process_time() - started
    # the same page without its address: the model must not read "no URL hint" as "no
    # article" (a caller may have no URL; trafilatura-dev and Readability have none)
    bare = page_features(root, ld_types=row["ld"], url="").vector if row["url"] else None
    return {
        "vector": features.vector,
        "vector_nourl": bare,
        "micro": list(features.microdata),
        "generator": features.generator,
        "cpu": cpu,
    }


def _jobs() -> list[tuple[str, str, str, str, str]]:
    """(corpus, id, url, path, label) of every page of the three corpora."""
    jobs = []
    for gt_path in sorted((WCXB / "dev" / "ground-truth").glob("*.json")):
        gt = json.loads(gt_path.read_text())
        if not isinstance(gt.get("ground_truth"), dict):
            continue  # the official scorer skips these too
        internal = gt.get("_internal") or {}
        kind = internal.get("page_type", {})
        label = kind.get("primary", "article") if isinstance(kind, dict) else kind or "article"
        label = "collection" if label == "category" else label
        page_id = gt_path.stem
        html = WCXB / "dev" / "html" / f"{page_id}.html.gz"
        jobs.append(("wcxb", page_id, gt.get("url", ""), str(html), label))
    # the two corpora without type labels, with the URL their benchmark passes (eval.py's
    # corpora.py): every page of trafilatura-dev (evaldata.json: its key, files in cache/
    # or eval/), Readability's test harness's one address
    traf = CORPORA / "trafilatura-dev"
    for key, item in sorted(json.loads((traf / "evaldata.json").read_text()).items()):
        found = [traf / sub / item["file"] for sub in ("cache", "eval")]
        html = next((f for f in found if f.is_file()), None)
        if html is not None:
            jobs.append(("trafilatura", item["file"], key, str(html), ""))
    for source in sorted((CORPORA / "readability").glob("*/source.html")):
        url = "http://fakehost/test/page.html"
        jobs.append(("readability", source.parent.name, url, str(source), ""))
    return jobs


def cleaned_trees(cache: Path, refresh: bool) -> list[dict[str, Any]]:
    """Every page's cleaned tree in `cache` and its corpus, label, domain, JSON-LD. A page
    already in `cache` (its tree and its row in pages.json) is not re-extracted unless
    `refresh`."""
    meta = json.loads((WCXB / "metadata.json").read_text())["files"]
    jobs = _jobs()
    cache.mkdir(parents=True, exist_ok=True)
    known: dict[tuple[str, str], dict[str, Any]] = {}
    if not refresh and (cache / "pages.json").exists():
        for row in json.loads((cache / "pages.json").read_text()):
            known[(row["corpus"], row["id"])] = {"id": row["id"], "ld": row["ld"]}
    todo = [
        (c, i, u, p)
        for c, i, u, p, _ in jobs
        if (c, i) not in known or not (cache / f"{c}-{i}.html.gz").exists()
    ]
    work = [(i, u, p, str(cache / f"{c}-{i}.html.gz")) for c, i, u, p in todo]
    with ProcessPoolExecutor(2) as pool:
        results = pool.map(_cleaned_tree, work, chunksize=8)
        for (corpus, page_id, *_), result in zip(todo, results, strict=True):
            known[(corpus, page_id)] = result
    results = [known[(c, i)] for c, i, *_ in jobs]
    rows = []
    for (corpus, page_id, url, _, label), result in zip(jobs, results, strict=True):
        domain = ""
        if corpus == "wcxb":
            # metadata.json names most pages' domains; the URL's host the rest
            host = url.split("://", 1)[-1].split("/", 1)[0].lower().removeprefix("www.")
            domain = meta.get(page_id, {}).get("domain") or host or page_id
        rows.append({"corpus": corpus, "label": label, "domain": domain, "url": url, **result})
    (cache / "pages.json").write_text(json.dumps(rows))
    return rows


def fit(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """A gradient-boosted model fit to `rows`, exported as the shipped JSON dict."""
    import numpy as np
    from sklearn.ensemble import GradientBoostingClassifier

    from webmd_spider.extract.page_type_features import FEATURE_NAMES

    # every page twice when it has a URL: with it, and without it at half weight (the
    # model learns the URL as a hint, not as what an article needs)
    bare = [r for r in rows if r["vector_nourl"]] if NO_URL_WEIGHT else []
    vectors = [r["vector"] for r in rows] + [r["vector_nourl"] for r in bare]
    labels = [r["label"] for r in rows] + [r["label"] for r in bare]
    weights = [1.0] * len(rows) + [NO_URL_WEIGHT] * (len(vectors) - len(rows))
    x = np.array(vectors, dtype=np.float64)
    y = np.array(labels)
    model = GradientBoostingClassifier(**PARAMS).fit(x, y, sample_weight=np.array(weights))
    classes = [str(c) for c in model.classes_]
    init = model.init_.predict_proba(x[:1])[0] if hasattr(model.init_, "predict_proba") else None
    prior = (
        [float(np.log(max(p, 1e-12))) for p in init] if init is not None else [0.0] * len(classes)
    )
    trees: list[list[Any]] = []  # per round: one tree per class
    for stage in model.estimators_:
        per_class = []
        for estimator in stage:
            t = estimator.tree_
            # flat arrays: feature (-1 leaf), threshold, left, right, value (scaled)
            per_class.append([
                [int(f) for f in t.feature],
                [round(float(v), 6) for v in t.threshold],
                [int(v) for v in t.children_left],
                [int(v) for v in t.children_right],
                [round(float(v) * model.learning_rate, 6) for v in t.value[:, 0, 0]],
            ])  # fmt: skip
        trees.append(per_class)
    return {
        "kind": "gbt-softmax",
        "features": list(FEATURE_NAMES),
        "classes": classes,
        "prior": [round(p, 6) for p in prior],
        "trees": trees,
        "params": {k: v for k, v in PARAMS.items()},
        "_sklearn": model,
    }


def shipped(model: dict[str, Any]) -> dict[str, Any]:
    """The JSON-able part of a fitted model."""
    return {k: v for k, v in model.items() if not k.startswith("_")}


def predict(model: dict[str, Any], row: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    """The shipped decision (rules + model, pure Python) for one recorded page."""
    from webmd_spider.extract.page_type import decide
    from webmd_spider.extract.page_type_features import Features

    features = Features(
        vector=row["vector"],
        schema=tuple(row["ld"]),
        microdata=tuple(row["micro"]),
        generator=row["generator"],
    )
    kind = decide(features, shipped(model))
    return kind.name, kind.evidence


def _check_export(model: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """The pure-Python probabilities equal scikit-learn's (the export is faithful)."""
    import numpy as np

    from webmd_spider.extract.page_type import model_probabilities

    x = np.array([r["vector"] for r in rows[:200]], dtype=np.float64)
    want = model["_sklearn"].predict_proba(x)
    for row, probs in zip(rows[:200], want, strict=True):
        got = model_probabilities(shipped(model), row["vector"])
        assert max(abs(a - b) for a, b in zip(got, probs, strict=True)) < 1e-3, (got, probs)


def report(title: str, pairs: list[tuple[str, str]]) -> None:
    """Accuracy, the confusion matrix (rows: label, columns: predicted), P / R."""
    names = [*LABELS, "other"]
    right = sum(a == b for a, b in pairs)
    print(f"\n{title}: accuracy {right / max(1, len(pairs)):.3f} ({right}/{len(pairs)})")
    matrix = Counter(pairs)
    print(f"{'label/predicted':<18}" + "".join(f"{n[:7]:>8}" for n in names) + f"{'recall':>8}")
    for label in LABELS:
        total = sum(matrix[(label, p)] for p in names)
        cells = "".join(f"{matrix[(label, p)]:>8}" for p in names)
        print(f"{label:<18}{cells}{matrix[(label, label)] / max(1, total):>8.2f}")
    precision = []
    for p in names:
        total = sum(matrix[(label, p)] for label in LABELS)
        precision.append(f"{(matrix[(p, p)] / total) if total else 0:>8.2f}")
    print(f"{'precision':<18}" + "".join(precision))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/page_type_trees"))
    parser.add_argument("--refresh", action="store_true", help="re-run extract() on the pages")
    parser.add_argument("--write-model", action="store_true")
    parser.add_argument(
        "--oof-out", type=Path, help="write the out-of-fold type of every WCXB dev page"
    )
    args = parser.parse_args()
    pages = cleaned_trees(args.cache, args.refresh)
    rows = [row for row in ({**p, **_features_of(p, args.cache)} for p in pages) if row["vector"]]
    (args.cache / "features.json").write_text(json.dumps(rows))  # for quick experiments
    wcxb = [r for r in rows if r["corpus"] == "wcxb"]
    cpu = [r["cpu"] for r in rows if "cpu" in r]
    print(f"features: {len(rows)} pages, {1000 * sum(cpu) / max(1, len(cpu)):.2f} ms/page CPU")

    from sklearn.model_selection import GroupKFold

    folds = GroupKFold(n_splits=5)
    pairs: list[tuple[str, str]] = []
    oof: dict[str, str] = {}  # page id -> type from the fold model that did not see it
    groups = [r["domain"] for r in wcxb]
    for train, test in folds.split(wcxb, groups=groups):
        model = fit([wcxb[i] for i in train])
        for i in test:
            oof[wcxb[i]["id"]] = predict(model, wcxb[i])[0]
            pairs.append((wcxb[i]["label"], oof[wcxb[i]["id"]]))
    report("5-fold CV on WCXB dev (grouped by domain)", pairs)
    if args.oof_out:
        args.oof_out.parent.mkdir(parents=True, exist_ok=True)
        args.oof_out.write_text(json.dumps(dict(sorted(oof.items())), indent=0) + "\n")
        print(f"wrote {len(oof)} out-of-fold types to {args.oof_out}")

    even = [r for r in wcxb if half_of(r["id"]) == "even"]
    odd = [r for r in wcxb if half_of(r["id"]) == "odd"]
    model = fit(even)
    report(
        "fit on the even half, tested on the odd half",
        [(r["label"], predict(model, r)[0]) for r in odd],
    )

    model = fit(wcxb)
    _check_export(model, wcxb)
    for corpus in ("trafilatura", "readability"):
        seen = Counter(predict(model, r)[0] for r in rows if r["corpus"] == corpus)
        total = sum(seen.values())
        print(f"\n{corpus} ({total} pages, model fit to all of WCXB dev): "
              + ", ".join(f"{k} {v}" for k, v in seen.most_common()))  # fmt: skip
    if args.write_model:
        MODEL.write_text(json.dumps(shipped(model), separators=(",", ":")) + "\n")
        print(f"\nwrote {MODEL.relative_to(REPO)} ({MODEL.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
