#!/usr/bin/env bash
# Extraction CPU per page on a real documentation site, side by side in one run:
# webmd (`webmd convert --jsonl`) and trafilatura's Markdown output with metadata and
# tables (bench/trafilatura_md.py). Both report CPU time around the extract call only.
#
#   bench/docs_speed.sh [DOC_DIR]     # default: PostgreSQL 15 HTML docs (Debian postgresql-doc-15)
#
# Installs postgresql-doc-15 with apt-get when the folder is missing (root, Debian).
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
cd "$REPO"
DOCS="${1:-/usr/share/doc/postgresql-doc-15/html}"
if [[ ! -d "$DOCS" ]]; then
    apt-get update -qq && apt-get install -y -qq postgresql-doc-15
fi
make install >/dev/null
[[ -x .bench-venv/bin/python ]] || bash bench/extraction.sh --limit 1 >/dev/null
INPUT="$(mktemp "${TMPDIR:-/tmp}/docs.XXXXXX.jsonl")"
.venv/bin/python - "$DOCS" "$INPUT" <<'PY'
import json, sys
from pathlib import Path
docs, out = Path(sys.argv[1]), Path(sys.argv[2])
with out.open("w") as handle:
    for path in sorted(docs.rglob("*.html")):
        html = path.read_bytes().decode("utf-8", "replace")
        handle.write(json.dumps({"id": str(path.relative_to(docs)), "url": f"http://127.0.0.1/{path.name}", "html": html}) + "\n")
PY
summarise() {
    python3 -c '
import json, statistics, sys
ms = [json.loads(l)["cpu_ms"] for l in sys.stdin if l.strip() and "cpu_ms" in l]
print(f"{sys.argv[1]:<22} pages {len(ms):>5}  mean {statistics.fmean(ms):6.2f} ms  median {statistics.median(ms):6.2f} ms  total {sum(ms)/1000:6.1f} s")
' "$1"
}
echo "pages: $(wc -l < "$INPUT") from $DOCS"
.venv/bin/webmd convert --jsonl < "$INPUT" | summarise webmd
.bench-venv/bin/python bench/trafilatura_md.py < "$INPUT" | summarise trafilatura-markdown
rm -f "$INPUT"
