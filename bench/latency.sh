#!/usr/bin/env bash
# Query latency, two ways, each as a ratio to a baseline binary in the same
# run:
#   cold: wall time of one `coderag search` process (median of RUNS) on each
#         semble dev repo, with its index already built;
#   warm: one in-process query with the store open and vectors cached
#         (go test -bench BenchmarkSearchWarm), on a benchmark repo and on
#         all of GOROOT/src.
# usage: bench/latency.sh NEW_BIN BASE_BIN REPOS_DIR WORK_DIR [GOROOT_HOME]
#   WORK_DIR holds home-<repo> indexes (bench/semble_eval.sh --index makes
#   them); GOROOT_HOME is a CODERAG_HOME holding an index of GOROOT/src.
# env: RUNS (default 7), REPOS (comma list; default all dev repos).
set -euo pipefail
new=${1:?NEW_BIN}; base=${2:?BASE_BIN}; repos=${3:?REPOS_DIR}; work=${4:?WORK_DIR}; gohome=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
semble=$here/../../shared/bench/semble
runs=${RUNS:-7}
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
printf "%-16s %6s %9s %9s %6s\n" repo files new_ms base_ms ratio
python3 -c "
import json,sys
want=set(filter(None,'${REPOS:-}'.split(',')))
for r in json.load(open('$semble/repos.json')):
    if not want or r['name'] in want: print(r['name'], r.get('benchmark_root') or '')
" | while read -r name root; do
  dir="$repos/$name${root:+/$root}"
  q=$(python3 -c "import json; print(json.load(open('$semble/annotations/$name.json'))[0]['query'])")
  files=$(CODERAG_HOME="$work/home-$name" "$new" stats --json 2>/dev/null | python3 -c "import json,sys; print(sum(p['files'] for p in json.load(sys.stdin)['projects']))" 2>/dev/null || echo "?")
  n=$(for i in $(seq "$runs"); do CODERAG_HOME="$work/home-$name" ms "$new" search --project "$dir" "$q"; done | med)
  b=$(for i in $(seq "$runs"); do CODERAG_HOME="$work/home-$name" ms "$base" search --project "$dir" "$q"; done | med)
  printf "%-16s %6s %9s %9s %6s\n" "$name" "$files" "$n" "$b" "$(echo "scale=2; $n / $b" | bc)"
done
echo
echo "warm, in-process (ns/op is one query):"
cd "$here/.."
first=$(python3 -c "import json; r=[x for x in json.load(open('$semble/repos.json')) if x['name']=='curl'][0]; print(r.get('benchmark_root') or '')")
CODERAG_BENCH_ROOT="$repos/curl/$first" CODERAG_BENCH_DB="$work/home-curl/index.db" \
  go test -run '^$' -bench BenchmarkSearchWarm -benchtime 200x ./internal/search/ | grep Benchmark | sed 's/^/  curl lib: /'
if [ -n "$gohome" ]; then
  CODERAG_BENCH_ROOT="$(go env GOROOT)/src" CODERAG_BENCH_DB="$gohome/index.db" \
    go test -run '^$' -bench BenchmarkSearchWarm -benchtime 100x ./internal/search/ | grep Benchmark | sed 's/^/  GOROOT\/src: /'
fi
