#!/usr/bin/env bash
# The full form of the serve load test (cmd/runcode TestServeLoad): runcode serve --http
# in each isolation mode, 200 run_code calls at concurrency 20, one in five hostile. It
# fails when any call gets the wrong result or kind, or the server keeps what the load
# took; either way it prints each mode's summary table.
#
# Usage: scripts/loadtest.sh [CALLS [CONCURRENCY [MODES]]]   (defaults 200 20 in-process,process)
# Extra `go test` flags may follow in LOADTEST_FLAGS, e.g. LOADTEST_FLAGS=-load.serve-args=--max-output=2MiB.
set -uo pipefail
cd "$(dirname "$0")/.."

calls=${1:-200}
concurrency=${2:-20}
modes=${3:-in-process,process}
summary=$(mktemp)
log=$(mktemp)
trap 'rm -f "$summary" "$log"' EXIT

echo "== go test -run TestServeLoad ./cmd/runcode/ -load.calls=$calls -load.concurrency=$concurrency -load.mode=$modes ${LOADTEST_FLAGS:-}"
go test -count=1 -timeout 30m -run '^TestServeLoad$' -v ./cmd/runcode/ \
  -load.calls="$calls" -load.concurrency="$concurrency" -load.mode="$modes" -load.summary="$summary" ${LOADTEST_FLAGS:-} >"$log" 2>&1
status=$?

echo
cat "$summary"
if [ $status -ne 0 ]; then
  echo
  echo "== FAILED; the test's output:"
  cat "$log"
fi
exit $status
