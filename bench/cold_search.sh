#!/usr/bin/env bash
# Wall time of one cold `coderag search` process, new binary against a
# baseline in the same run, each on its own index of the same tree (an
# index made by a newer schema cannot be read by an older binary). Prints
# the median, p10 and p90 of RUNS processes after two warm-up runs (page
# cache warm, process cold), and the process start alone (`--help`).
#
# usage: bench/cold_search.sh NEW_BIN NEW_HOME BASE_BIN BASE_HOME DIR [QUERY]
#   *_HOME  a CODERAG_HOME holding an index of DIR made by that binary
#           (`CODERAG_HOME=... BIN index DIR` makes it)
# env: RUNS (default 15)
set -euo pipefail
new=${1:?NEW_BIN}; newhome=${2:?NEW_HOME}; base=${3:?BASE_BIN}; basehome=${4:?BASE_HOME}; dir=${5:?DIR}
query=${6:-how are goroutines scheduled}
timeit() {
  python3 - "$@" <<'PY'
import os, statistics, subprocess, sys, time
n = int(os.environ.get("RUNS", "15"))
cmd = sys.argv[1:]
for _ in range(2):
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
ts = []
for _ in range(n):
    s = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts.append((time.perf_counter() - s) * 1000)
ts.sort()
print(f"{statistics.median(ts):.1f} {ts[len(ts)//10]:.1f} {ts[9*len(ts)//10]:.1f}")
PY
}
files=$(CODERAG_HOME="$newhome" "$new" stats --json 2>/dev/null | python3 -c "import json,sys; print(sum(p['files'] for p in json.load(sys.stdin)['projects']))" 2>/dev/null || echo "?")
printf "%-10s %8s %8s %8s   (%s indexed files, query %q)\n" "" median p10 p90 "$files" "$query"
for round in 1 2; do
  read -r m a b < <(CODERAG_HOME="$newhome" timeit "$new" search --project "$dir" "$query")
  read -r bm ba bb < <(CODERAG_HOME="$basehome" timeit "$base" search --project "$dir" "$query")
  printf "%-10s %8s %8s %8s\n" "new" "$m" "$a" "$b" "base" "$bm" "$ba" "$bb"
  python3 -c "print(f'ratio      {$m/$bm:.2f}x (round $round)')"
done
read -r hm _ _ < <(timeit "$new" --help)
read -r hb _ _ < <(timeit "$base" --help)
echo "process start (--help): new $hm ms, base $hb ms"
