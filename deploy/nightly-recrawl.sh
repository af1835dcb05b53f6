#!/usr/bin/env bash
# Nightly incremental recrawl of one website, for cron (docs/DEPLOY.md).
#
#   deploy/nightly-recrawl.sh START [SCRAPY ARGS...]
#
# START is what `-a start=` takes (a URL or a bare domain). Anything after it goes to
# `scrapy crawl site` unchanged (`-a max_pages=2000 -s WEBMD_HOST_DELAY=1 ...`), after
# the words of $WEBMD_EXTRA_ARGS (split on whitespace).
#
# One run: cd into the checkout, take a lock so that two runs of the same job never
# overlap (`flock -n`), crawl with `-a incremental=true` against the state kept in a
# fixed WEBMD_STATE_DIR, write a dated feed, update the Markdown folder, then check
# the feed's site row.
#
# Environment (all optional):
#   WEBMD_HOME       the checkout (default: the folder above this script)
#   WEBMD_PYTHON     the Python that has the project installed (default: $WEBMD_HOME/.venv/bin/python)
#   WEBMD_VAR        where everything below goes by default (default: $WEBMD_HOME/var)
#   WEBMD_JOB_NAME   names the files of this job (default: START's host, e.g. docs.example.com)
#   WEBMD_STATE_DIR  the incremental state, kept between runs (default: $WEBMD_VAR/state)
#   WEBMD_FEED_DIR   dated feeds NAME-<UTC>.jsonl and their .summary.json (default: $WEBMD_VAR/feeds)
#   WEBMD_TREE_DIR   the Markdown folder, one .md per page (default: $WEBMD_VAR/md/NAME)
#   WEBMD_LOG_DIR    one Scrapy log per run, NAME-<UTC>.log (default: $WEBMD_VAR/logs)
#   WEBMD_LOCK_FILE  the lock (default: $WEBMD_VAR/NAME.lock)
#   WEBMD_KEEP_DAYS  delete this job's feeds and logs older than N days after a good run
#                    (default: 30; 0 keeps everything)
#   WEBMD_EXTRA_ARGS more arguments for scrapy, e.g. "-s WEBMD_HOST_DELAY=0"
#
# Exit status: 0 the crawl finished and its site row is fine (stop_reason finished,
# page_budget or time_budget); 75 another run of this job holds the lock (nothing was
# done); 64 bad usage; 69 flock(1) or the Python is missing; 1 (or Scrapy's own status)
# the crawl failed, wrote no site row, or the site row says it could not crawl
# (unreachable, blocked, robots_unavailable, crawl_delay, shutdown). On failure the
# log's last warnings and errors (else its last lines) go to stderr: cron mails them.
set -euo pipefail

prog=nightly-recrawl
say() { printf '%s: %s\n' "$prog" "$*"; }
die() {
    local status=$1
    shift
    printf '%s: %s\n' "$prog" "$*" >&2
    exit "$status"
}

if [[ $# -lt 1 || -z ${1:-} || $1 == -* ]]; then
    die 64 "usage: deploy/nightly-recrawl.sh START [SCRAPY ARGS...]"
fi
start=$1
shift

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
home=${WEBMD_HOME:-$(dirname "$here")}
python=${WEBMD_PYTHON:-$home/.venv/bin/python}
var=${WEBMD_VAR:-$home/var}

if [[ -z ${WEBMD_JOB_NAME:-} ]]; then
    first=${start%%[ ,]*}
    host=${first#*://}
    host=${host%%[/?#]*}
    WEBMD_JOB_NAME=$(printf '%s' "$host" | tr -c 'A-Za-z0-9._-' '-')
fi
name=$WEBMD_JOB_NAME
state_dir=${WEBMD_STATE_DIR:-$var/state}
feed_dir=${WEBMD_FEED_DIR:-$var/feeds}
tree_dir=${WEBMD_TREE_DIR:-$var/md/$name}
log_dir=${WEBMD_LOG_DIR:-$var/logs}
lock_file=${WEBMD_LOCK_FILE:-$var/$name.lock}
keep_days=${WEBMD_KEEP_DAYS:-30}

command -v flock >/dev/null || die 69 "flock(1) not found (Debian package util-linux)"
[[ -x $python ]] || die 69 "no Python at $python (run 'make install' in $home, or set WEBMD_PYTHON)"
cd "$home" || die 69 "cannot cd into $home"
mkdir -p "$state_dir" "$feed_dir" "$tree_dir" "$log_dir" "$(dirname "$lock_file")"

# The lock lives as long as fd 9: this shell and the crawl it starts. No wait (-n):
# a run still going when the next one is due means the next one is skipped.
exec 9<>"$lock_file"
if ! flock -n 9; then
    holder=$(tr -dc '0-9' <"$lock_file" 2>/dev/null || true)
    die 75 "already running: $lock_file is held${holder:+ by pid $holder}; not starting a second crawl of $name"
fi
printf '%s\n' "$$" >"$lock_file"

stamp=$(date -u +%Y%m%dT%H%M%SZ)
feed=$feed_dir/$name-$stamp.jsonl
log=$log_dir/$name-$stamp.log
read -r -a extra <<<"${WEBMD_EXTRA_ARGS:-}"

say "crawling $start (job $name) -> $feed"
set +e
"$python" -m scrapy crawl site \
    -a start="$start" \
    -a incremental=true \
    -a out_dir="$tree_dir" \
    -s WEBMD_STATE_DIR="$state_dir" \
    -s LOG_FILE="$log" \
    -O "$feed" \
    "${extra[@]}" "$@"
status=$?
set -e

fail() {
    printf '%s: %s (log: %s)\n' "$prog" "$1" "$log" >&2
    if [[ -f $log ]]; then
        { grep -E '\] (CRITICAL|ERROR|WARNING): ' "$log" || tail -n 20 "$log"; } | tail -n 20 >&2 || true
    fi
    exit "$2"
}
((status == 0)) || fail "scrapy exited with status $status" "$status"
[[ -s $feed ]] || fail "the crawl wrote no rows to $feed" 1

# One line for the cron log; non-zero when the site row is missing or says it failed.
if ! "$python" - "$feed" <<'PY'; then
import collections
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
sites = [r for r in rows if r.get("row_type") == "site"]
pages = [r for r in rows if r.get("row_type") == "page"]
changes = collections.Counter(r.get("change") or "none" for r in pages)
removed = sum(1 for r in rows if r.get("change") == "removed")
diagnostics = sum(1 for r in rows if r.get("row_type") == "diagnostic") - removed
reasons = sorted({str(r.get("stop_reason")) for r in sites})
print(
    f"nightly-recrawl: {len(pages)} page rows ({dict(sorted(changes.items()))}), "
    f"{removed} removed, {diagnostics} diagnostics, stop_reason {', '.join(reasons) or '-'}"
)
ok = {"finished", "page_budget", "time_budget"}
sys.exit(0 if sites and all(r.get("stop_reason") in ok for r in sites) else 1)
PY
    fail "no site row, or the site could not be crawled" 1
fi

if [[ $keep_days =~ ^[0-9]+$ ]] && ((keep_days > 0)); then
    find "$feed_dir" "$log_dir" -maxdepth 1 -type f -name "$name-*" -mtime +"$keep_days" -delete
fi
say "done: $feed"
