#!/usr/bin/env bash
# Search latency on both stores at team scale, in one run (issue #29): the
# first 15 semble dev repos (sorted by name) are indexed into one new SQLite
# file and one new PostgreSQL database; then, for each repo's first
# annotated query, one `coderag search --project DIR QUERY` process and one
# `coderag search --all QUERY` process are timed on each store, SQLite and
# PostgreSQL alternating, RUNS times. Prints the median wall time per mode
# and store (the median over queries of each query's median over runs), the
# PostgreSQL / SQLite ratio, and the wall time of indexing the 15 repos.
# usage: bench/store_latency.sh CODERAG PGURL [REPOS_DIR]
#   PGURL is a maintenance database on which the role may CREATE DATABASE
#   (e.g. postgres://postgres:coderag@localhost:5432/postgres); the database
#   the script creates is dropped at the end (WITH (FORCE)).
#   REPOS_DIR holds the repos checked out by the semble README (default
#   /tmp/semble/repos); each is indexed at its benchmark_root.
# env: RUNS (default 7), NREPOS (default 15), SEMBLE (the semble benchmark
#   directory with repos.json and annotations/; default ../../shared/bench/semble
#   from this script, as in the main checkout), KEEP=1 keeps the SQLite file,
#   the database and CODERAG_HOME and prints how to reach them.
set -euo pipefail
bin=${1:?CODERAG}; admin=${2:?PGURL}; repos=${3:-/tmp/semble/repos}
here=$(cd "$(dirname "$0")" && pwd)
semble=${SEMBLE:-$here/../../shared/bench/semble}
runs=${RUNS:-7}; nrepos=${NREPOS:-15}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
work=$(mktemp -d)
db=coderag_lat_$$
pg="${admin%/*}/$db"
sq=$work/index.db
cleanup() {
  if [ "${KEEP:-}" = 1 ]; then
    echo "kept: CODERAG_HOME=$work --store $sq | --store $pg" >&2
    return
  fi
  psql -q "$admin" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
export CODERAG_HOME=$work/home EMBEDDING_PROVIDER= CODERAG_STORE=
mkdir -p "$CODERAG_HOME"
psql -q "$admin" -c "CREATE DATABASE $db" >/dev/null

# name<TAB>dir<TAB>query for the first NREPOS repos present in REPOS_DIR
python3 - "$semble" "$repos" "$nrepos" >"$work/set.tsv" <<'PY'
import json, os, sys
semble, repos, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
meta = {r['name']: r for r in json.load(open(os.path.join(semble, 'repos.json')))}
names = sorted(x for x in os.listdir(repos) if x in meta)[:n]
for name in names:
    root = meta[name].get('benchmark_root') or ''
    d = os.path.join(repos, name, root) if root else os.path.join(repos, name)
    q = json.load(open(os.path.join(semble, 'annotations', name + '.json')))[0]['query']
    print(f"{name}\t{d}\t{q}")
PY
[ "$(wc -l <"$work/set.tsv")" -eq "$nrepos" ] || { echo "fewer than $nrepos repos in $repos" >&2; exit 1; }

now() { date +%s%N; }
ms() { local s e; s=$(now); "$@" >/dev/null 2>&1 || true; e=$(now); echo $(( (e - s) / 1000000 )); }
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { python3 -c "print(f'{$2/$1:.2f}' if $1 else '-')"; }

# index: the repos in turn, SQLite then PostgreSQL for each (the stores'
# totals are compared, so the alternation spreads the machine's noise)
isq=0; ipg=0
while IFS=$'\t' read -r name dir q; do
  s=$(now); "$bin" index --quiet --store "$sq" "$dir" >>"$work/index-sqlite.log" 2>&1; e=$(now); isq=$((isq + e - s))
  s=$(now); "$bin" index --quiet --store "$pg" "$dir" >>"$work/index-pg.log" 2>&1; e=$(now); ipg=$((ipg + e - s))
done <"$work/set.tsv"
isq=$((isq / 1000000)); ipg=$((ipg / 1000000))

# search: per query and mode, RUNS alternating pairs; one warm-up pair first
: >"$work/one.tsv"; : >"$work/all.tsv"
while IFS=$'\t' read -r name dir q; do
  for mode in one all; do
    if [ "$mode" = one ]; then sel=(--project "$dir"); else sel=(--all); fi
    ms "$bin" search --store "$sq" "${sel[@]}" "$q" >/dev/null
    ms "$bin" search --store "$pg" "${sel[@]}" "$q" >/dev/null
    a=(); b=()
    for _ in $(seq "$runs"); do
      a+=("$(ms "$bin" search --store "$sq" "${sel[@]}" "$q")")
      b+=("$(ms "$bin" search --store "$pg" "${sel[@]}" "$q")")
    done
    printf '%s\t%s\t%s\n' "$name" "$(printf '%s\n' "${a[@]}" | med)" "$(printf '%s\n' "${b[@]}" | med)" >>"$work/$mode.tsv"
  done
done <"$work/set.tsv"

echo "repos: $nrepos ($(cut -f1 "$work/set.tsv" | paste -sd, -)), runs: $runs"
printf '%-18s %10s %10s %9s %6s\n' "query (ms)" project_sq project_pg all_sq all_pg
paste "$work/one.tsv" "$work/all.tsv" | awk -F'\t' '{printf "%-18s %10s %10s %9s %6s\n", $1, $2, $3, $5, $6}'
echo
printf '%-18s %10s %10s %9s\n' "median (ms)" sqlite postgres pg/sqlite
for mode in one all; do
  label="search --project"; [ "$mode" = all ] && label="search --all"
  a=$(cut -f2 "$work/$mode.tsv" | med); b=$(cut -f3 "$work/$mode.tsv" | med)
  printf '%-18s %10s %10s %9s\n' "$label" "$a" "$b" "$(ratio "$a" "$b")"
done
printf '%-18s %10s %10s %9s\n' "index ($nrepos repos)" "$isq" "$ipg" "$(ratio "$isq" "$ipg")"
