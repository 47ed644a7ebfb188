#!/usr/bin/env bash
# Test-suite wall time of two checkouts, measured in one run on the same
# machine so the figures can be compared: for each checkout, the README's
# test command (go test -count=1 ./...) and the fuzz step of .ci/run
# (.ci/fuzz, FUZZTIME each target, default 2000x), one after the other, and
# the race step of .ci/run when the checkout has one.
# The Go build cache is shared and kept, as in CI; -count=1 defeats only the
# test-result cache, so both checkouts pay the same (cached) build cost.
# A checkout without dict/node_modules gets `npm ci` first (untimed), and
# CODERAG_TEST_CEDICT=required makes both run the dictionary tests.
# The fuzz step still builds its instrumented binaries inside the timing; use
# ROUNDS=2 and read the second round when a checkout is new to the cache.
# Usage: bench/testtime.sh BASE_DIR NEW_DIR [ROUNDS]   (ROUNDS default 1)
# Example:
#   git -C /work/main archive --prefix=tt-base/ f7c890a | tar -x -C /tmp
#   bench/testtime.sh /tmp/tt-base .
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 BASE_DIR NEW_DIR [ROUNDS]" >&2
  exit 2
fi
rounds=${3:-1}
export CODERAG_TEST_CEDICT=required
secs() { date +%s.%N; }
declare -A test_s fuzz_s
measure() { # $1 label, $2 dir
  local label=$1 dir s e rc
  dir=$(cd "$2" && pwd)
  if [ -f "$dir/dict/package-lock.json" ] && [ ! -d "$dir/dict/node_modules" ]; then
    (cd "$dir/dict" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  fi
  # Untimed: compile the test binaries, so a checkout seen for the first time
  # (cache keys include its directory) does not pay its build in the timing.
  (cd "$dir" && go test -count=1 -run '^$' ./... >/dev/null 2>&1) || true
  s=$(secs)
  rc=0
  (cd "$dir" && go test -count=1 -timeout 15m ./... >/tmp/testtime.$label.test.log 2>&1) || rc=$?
  e=$(secs)
  test_s[$label]=$(echo "$e - $s" | bc)
  echo "$label go test ./...: ${test_s[$label]} s (exit $rc, log /tmp/testtime.$label.test.log)"
  if grep -q -- '-race' "$dir/.ci/run"; then # the race step, run as .ci/run runs it
    s=$(secs)
    rc=0
    (cd "$dir" && go test -race -count=1 -timeout 15m $(go list -test -f '{{.ImportPath}}{{range .Deps}} {{.}}{{end}}' ./... |
      awk '$1 ~ /\.test$/ && !/tree-sitter/ { sub(/\.test$/, "", $1); print $1 }') >/tmp/testtime.$label.race.log 2>&1) || rc=$?
    e=$(secs)
    echo "$label go test -race (pure-Go packages): $(echo "$e - $s" | bc) s (exit $rc)"
  else
    echo "$label: no race step in .ci/run"
  fi
  s=$(secs)
  rc=0
  (cd "$dir" && .ci/fuzz >/tmp/testtime.$label.fuzz.log 2>&1) || rc=$?
  e=$(secs)
  fuzz_s[$label]=$(echo "$e - $s" | bc)
  echo "$label .ci/fuzz ($(grep -c '^fuzz ' /tmp/testtime.$label.fuzz.log) targets): ${fuzz_s[$label]} s (exit $rc)"
}
echo "cores $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg), $(go version)"
for r in $(seq "$rounds"); do
  echo "== round $r"
  measure base "$1"
  measure new "$2"
  echo "new/base go test: $(echo "scale=2; ${test_s[new]} / ${test_s[base]}" | bc)," \
    ".ci/fuzz: $(echo "scale=2; ${fuzz_s[new]} / ${fuzz_s[base]}" | bc)"
done
