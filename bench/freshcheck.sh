#!/usr/bin/env bash
# The no-change path (issue #29): what one `coderag search` and one
# `coderag index` of an unchanged tree cost, for a new binary (tree
# listings: only changed directories are read) and a base binary (a full
# walk before every search and index), beside `git status` on the same
# tree, all in one run and all under the same nice, so read the ratios.
# Then the freshness check alone, in process (BenchmarkFreshCheck: full
# walk vs listing), on the new index.
#
# usage: bench/freshcheck.sh NEW_BIN BASE_BIN TREE WORK_DIR
#   TREE is copied (cp -a) to WORK_DIR/tree and committed to a git
#   repository there; BASE_BIN indexes it into WORK_DIR/home-base, which is
#   copied to WORK_DIR/home-new (NEW_BIN migrates it; its first search
#   walks the tree once and stores the listing). Existing ones are reused.
# env: RUNS (default 7), QUERY (default "read the file's header").
set -euo pipefail
new=${1:?NEW_BIN}; base=${2:?BASE_BIN}; tree=${3:?TREE}; work=${4:?WORK_DIR}
here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-7}; q=${QUERY:-"read the file's header"}
mkdir -p "$work"; work=$(cd "$work" && pwd)
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { local s e; s=$(date +%s%N); nice -n 10 "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
# cpu: user+system CPU milliseconds of one run (less sensitive than wall
# time to the other jobs of a shared machine)
cpu() { /usr/bin/time -f "%U %S" -o "$work/.cpu" nice -n 10 "$@" >/dev/null 2>&1 || true; awk '{printf "%d\n", ($1 + $2) * 1000}' "$work/.cpu"; }
if [ ! -d "$work/tree/.git" ]; then
  rm -rf "$work/tree"; cp -a "$tree" "$work/tree"
  (cd "$work/tree" && git init -q && git add -A && git -c user.email=b@b -c user.name=b commit -qm tree)
fi
if [ ! -f "$work/home-base/index.db" ]; then
  CODERAG_HOME="$work/home-base" nice -n 10 "$base" index --quiet "$work/tree" >/dev/null
fi
if [ ! -f "$work/home-new/index.db" ]; then
  rm -rf "$work/home-new"; cp -aL "$work/home-base" "$work/home-new"
  first=$(CODERAG_HOME="$work/home-new" ms "$new" search --project "$work/tree" "$q")
  echo "new binary, first search (migrates, walks once, stores the listing): $first ms"
fi
git -C "$work/tree" status --porcelain >/dev/null # git's own index refresh, once
files=$(git -C "$work/tree" ls-files | wc -l); dirs=$(find -H "$work/tree" -path "$work/tree/.git" -prune -o -type d -print | wc -l)
echo "tree: $tree ($files files, $dirs directories), $runs runs each, medians"
declare -A t
for i in $(seq "$runs"); do
  t[sb]+="$(CODERAG_HOME="$work/home-base" ms "$base" search --project "$work/tree" "$q") "
  t[sn]+="$(CODERAG_HOME="$work/home-new" ms "$new" search --project "$work/tree" "$q") "
  t[ib]+="$(CODERAG_HOME="$work/home-base" ms "$base" index --quiet "$work/tree") "
  t[in]+="$(CODERAG_HOME="$work/home-new" ms "$new" index --quiet "$work/tree") "
  t[gs]+="$(ms git -C "$work/tree" status --porcelain) "
  t[csb]+="$(CODERAG_HOME="$work/home-base" cpu "$base" search --project "$work/tree" "$q") "
  t[csn]+="$(CODERAG_HOME="$work/home-new" cpu "$new" search --project "$work/tree" "$q") "
  t[cib]+="$(CODERAG_HOME="$work/home-base" cpu "$base" index --quiet "$work/tree") "
  t[cin]+="$(CODERAG_HOME="$work/home-new" cpu "$new" index --quiet "$work/tree") "
  t[cgs]+="$(cpu git -C "$work/tree" status --porcelain) "
done
m() { tr ' ' '\n' <<<"${t[$1]}" | grep . | med; }
sb=$(m sb); sn=$(m sn); ib=$(m ib); in=$(m in); gs=$(m gs)
r() { echo "scale=2; $1 / $2" | bc; }
csb=$(m csb); csn=$(m csn); cib=$(m cib); cin=$(m cin); cgs=$(m cgs)
printf "%-30s %8s %8s %7s   %8s %8s %7s\n" "" base_ms new_ms new/base base_cpu new_cpu new/base
printf "%-30s %8s %8s %7s   %8s %8s %7s\n" "search (one process)" "$sb" "$sn" "$(r "$sn" "$sb")" "$csb" "$csn" "$(r "$csn" "$csb")"
printf "%-30s %8s %8s %7s   %8s %8s %7s\n" "index, nothing changed" "$ib" "$in" "$(r "$in" "$ib")" "$cib" "$cin" "$(r "$cin" "$cib")"
printf "%-30s %8s %8s %7s   %8s\n" "git status" "$gs" "" "" "$cgs"
printf "%-30s %8s %8s %7s   %8s %8s\n" "index no-change / git status" "$(r "$ib" "$gs")" "$(r "$in" "$gs")" "" "$(r "$cib" "$cgs")" "$(r "$cin" "$cgs")"
echo
echo "freshness check in process (BenchmarkFreshCheck), new index:"
cd "$here/.."
CODERAG_BENCH_DB="$work/home-new/index.db" CODERAG_BENCH_ROOT="$work/tree" \
  nice -n 10 go test -run '^$' -bench BenchmarkFreshCheck -benchtime "${runs}x" ./internal/index/ | grep Benchmark | sed 's/^/  /'
