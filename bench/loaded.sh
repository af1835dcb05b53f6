#!/usr/bin/env bash
# Run tests while a busy-loop process holds one core (issue 16: the suite must hold on
# a busy machine). Usage:
#   bench/loaded.sh RUNS PYTEST-ARGS...   e.g. bench/loaded.sh 20 tests/test_distributed.py -k killed
#   bench/loaded.sh 1 make-test           (the whole `make test`, loaded)
# Prints one line per run (exit status, seconds) and the count of failed runs; exits 1
# when any run failed.
set -u
cd "$(dirname "$0")/.."
runs=${1:?runs}; shift
python3 -c 'while True: pass' &
busy=$!
trap 'kill $busy 2>/dev/null' EXIT
failed=0
for i in $(seq 1 "$runs"); do
    start=$(date +%s)
    if [ "$1" = "make-test" ]; then
        make test > "/tmp/loaded-run-$i.log" 2>&1
    else
        .venv/bin/pytest -q -p no:cacheprovider "$@" > "/tmp/loaded-run-$i.log" 2>&1
    fi
    status=$?
    [ $status -ne 0 ] && failed=$((failed + 1))
    echo "run $i: exit $status, $(( $(date +%s) - start )) s ($(tail -1 "/tmp/loaded-run-$i.log"))"
done
echo "$failed of $runs runs failed"
[ $failed -eq 0 ]
