#!/usr/bin/env bash
# Extraction quality + cost benchmark: webmd (`webmd convert --jsonl`) against
# trafilatura, trafilatura's Markdown-with-metadata output and readability-lxml,
# all in ONE run of the shared harness (../shared/bench/extraction/eval.py) on its
# development corpus. See bench/README.md.
#
#   bench/extraction.sh                 # full corpus (130 pages, a few minutes)
#   bench/extraction.sh --limit 10      # extra arguments go to eval.py
#   CORPUS=trafilatura-dev bench/extraction.sh   # the 467-page news/blog/forum corpus
#                                       # (segment metric; default CORPUS=readability)
#
# Environment: SHARED (default: ../shared beside the repo), PYTHON (default python3,
# used to create .bench-venv), OUT (default bench/results/extraction-<date>.json),
# DUMP_DIR (if set, every extractor's outputs are written there as JSONL).
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
cd "$REPO"
SHARED="${SHARED:-$REPO/../shared}"
HARNESS="$SHARED/bench/extraction"
PYTHON="${PYTHON:-python3}"
BENCH_VENV="$REPO/.bench-venv"
STAMP="$(date +%Y-%m-%d)"
CORPUS="${CORPUS:-readability}"
case "$CORPUS" in
    readability) KIND=readability ;;
    trafilatura-dev) KIND=trafilatura ;;
    *) echo "CORPUS must be readability or trafilatura-dev, not '$CORPUS'" >&2; exit 2 ;;
esac
OUT="${OUT:-bench/results/extraction-$CORPUS-$STAMP.json}"

if [[ ! -f "$HARNESS/eval.py" ]]; then
    echo "shared harness not found at $HARNESS (set SHARED=/path/to/shared)" >&2
    exit 2
fi

# 1. The comparison extractors, in their own venv (never in .venv: they are not
#    project dependencies). pip 23 mis-resolves lxml[html-clean] extras: upgrade first.
if [[ ! -x "$BENCH_VENV/bin/python" ]]; then
    "$PYTHON" -m venv "$BENCH_VENV"
fi
if ! "$BENCH_VENV/bin/python" -c "import trafilatura, readability, html2text, markdownify, html_text, lxml_html_clean" 2>/dev/null; then
    "$BENCH_VENV/bin/python" -m pip install --quiet --upgrade pip
    "$BENCH_VENV/bin/python" -m pip install --quiet \
        trafilatura readability-lxml html2text markdownify lxml-html-clean html-text
fi

# 2. The project itself, for `.venv/bin/webmd` (a no-op when already installed).
make install

# 3. One harness run: built-ins + the external commands (webmd as shipped; webmd
#    link-free, configured like the harness's own Markdown baselines, which all drop
#    links and images: inline URLs split the structure metric's token runs), paired against trafilatura.
#    The harness writes each command's stderr next to its --out file: run in a scratch
#    folder and copy only the result JSON to bench/results/.
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/webmd-bench.XXXXXX")"
mkdir -p "$(dirname "$OUT")"
DUMP_ARGS=()
if [[ -n "${DUMP_DIR:-}" ]]; then DUMP_ARGS=(--dump-dir "$DUMP_DIR"); fi
echo "harness: $HARNESS   scratch (stderr logs): $SCRATCH" >&2
"$BENCH_VENV/bin/python" "$HARNESS/eval.py" \
    --corpus "$KIND" --data "$HARNESS/corpus/$CORPUS" \
    --extractors trafilatura,readability,readability+html2text \
    --cmd ".venv/bin/webmd convert --jsonl" --cmd-name webmd \
    --cmd ".venv/bin/webmd convert --jsonl --no-links --no-images" --cmd-name webmd-nolinks \
    --cmd ".bench-venv/bin/python bench/trafilatura_md.py" --cmd-name trafilatura-markdown \
    --paired-vs trafilatura \
    --out "$SCRATCH/result.json" "${DUMP_ARGS[@]}" "$@" | tee "$SCRATCH/table.md"
cp "$SCRATCH/result.json" "$OUT"
echo "result: $OUT (table: $SCRATCH/table.md)" >&2
