#!/usr/bin/env bash
# Search latency of several coderag binaries on one PostgreSQL store against
# SQLite, alternating (issue #29): for each query of SET (the set.tsv of a
# store kept by `KEEP=1 bench/store_latency.sh`: name<TAB>dir<TAB>query),
# RUNS rounds of one `search` process on the SQLite file (by the first
# binary) and one on PostgreSQL by each binary in turn. Prints each query's
# median wall time (ms) per column, the median over queries, and the load
# average at the end. Before timing a query, each binary's output on
# PostgreSQL is compared with the first binary's on SQLite (they must be
# byte-identical); a difference is printed as "DIFFERENT: query binary"
# and makes the exit status 1.
# usage: bench/store_alternate.sh one|all SQLITE_FILE PGURL SET BIN...
#   one: `search --project DIR QUERY`; all: `search --all QUERY`.
# env: RUNS (default 3), NQ (queries of SET, default all), CODERAG_HOME (the
#   kept store's home).
set -euo pipefail
mode=${1:?one|all}; sq=${2:?SQLITE_FILE}; pg=${3:?PGURL}; set=${4:?SET}; shift 4
[ $# -ge 1 ] || { echo "give at least one binary" >&2; exit 2; }
runs=${RUNS:-3}; nq=${NQ:-$(wc -l <"$set")}
export EMBEDDING_PROVIDER= CODERAG_STORE=
now() { date +%s%N; }
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
printf '%-16s %8s' query sqlite; for b in "$@"; do printf ' %8s' "$(basename "$b")"; done; echo
head -n "$nq" "$set" | while IFS=$'\t' read -r name dir q; do
  if [ "$mode" = one ]; then sel=(--project "$dir"); else sel=(--all); fi
  want=$("$1" search --store "$sq" "${sel[@]}" "$q" 2>&1 | md5sum)
  for b in "$@"; do
    if [ "$("$b" search --store "$pg" "${sel[@]}" "$q" 2>&1 | md5sum)" != "$want" ]; then
      echo "DIFFERENT: $name $b" >&2; touch "$out/different"
    fi
  done
  for _ in $(seq "$runs"); do
    s=$(now); "$1" search --store "$sq" "${sel[@]}" "$q" >/dev/null 2>&1 || true; e=$(now)
    echo $(( (e - s) / 1000000 )) >>"$out/0.$name"
    i=0
    for b in "$@"; do
      i=$((i + 1))
      s=$(now); "$b" search --store "$pg" "${sel[@]}" "$q" >/dev/null 2>&1 || true; e=$(now)
      echo $(( (e - s) / 1000000 )) >>"$out/$i.$name"
    done
  done
  line=$(printf '%-16s %8s' "$name" "$(med <"$out/0.$name")")
  for i in $(seq $#); do line="$line$(printf ' %8s' "$(med <"$out/$i.$name")")"; done
  echo "$line" | tee -a "$out/table"
done
printf '%-16s' median
for c in $(seq 2 $(( $# + 2 ))); do printf ' %8s' "$(awk -v c="$c" '{print $c}' "$out/table" | med)"; done; echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -e "$out/different" ]; then exit 1; fi
echo "outputs: PostgreSQL's byte-identical to SQLite's"
