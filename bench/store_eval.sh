#!/usr/bin/env bash
# Golden-set MRR@10 on both stores in one run: each corpus is indexed into a
# new SQLite file and a new PostgreSQL database, then `coderag eval` scores
# the same golden set on each; the last column is PostgreSQL minus SQLite.
# usage: bench/store_eval.sh CODERAG PGURL [GOLDEN_DIR]
#   PGURL is a maintenance database on which the role may CREATE DATABASE
#   (e.g. postgres://postgres:postgres@localhost/postgres); the databases the
#   script creates are dropped at the end.
#   Corpora: PY_STDLIB (default /tmp/golden/py) with python-stdlib.json, and
#   GO_SUBSET (default GOROOT/src/net/http) with go-stdlib.json, whose
#   queries about files outside the subset count as missing on both stores.
set -euo pipefail
bin=${1:?CODERAG}; admin=${2:?PGURL}
here=$(cd "$(dirname "$0")" && pwd)
golden=${3:-$here/../../shared/golden}
py=${PY_STDLIB:-/tmp/golden/py}; gosub=${GO_SUBSET:-$(go env GOROOT)/src/net/http}
work=$(mktemp -d); dbs=()
cleanup() {
  for d in "${dbs[@]}"; do psql -q "$admin" -c "DROP DATABASE IF EXISTS $d WITH (FORCE)" >/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
mrr() { python3 -c "import json,sys; print(f\"{json.load(sys.stdin)['overall']['mrr_at_10']:.4f}\")"; }
printf '%-16s %-10s %8s %8s %8s\n' corpus queries sqlite postgres diff
for t in "python:$py:python-stdlib" "go-subset:$gosub:go-stdlib"; do
  IFS=: read -r n dir set <<<"$t"
  db=coderag_eval_$$_${n//-/_}; dbs+=("$db")
  psql -q "$admin" -c "CREATE DATABASE $db" >/dev/null
  pg="${admin%/*}/$db"
  export CODERAG_HOME="$work/home-$n" EMBEDDING_PROVIDER=
  "$bin" index --quiet "$dir" >"$work/$n-sqlite.log" 2>&1
  "$bin" index --quiet --store "$pg" "$dir" >"$work/$n-pg.log" 2>&1
  a=$("$bin" eval --json --project "$dir" "$golden/$set.json" 2>/dev/null | mrr)
  b=$("$bin" eval --json --store "$pg" --project "$dir" "$golden/$set.json" 2>/dev/null | mrr)
  q=$(python3 -c "import json; print(len(json.load(open('$golden/$set.json'))['queries']))")
  printf '%-16s %-10s %8s %8s %+8.4f\n' "$n" "$q" "$a" "$b" "$(python3 -c "print($b-$a)")"
done
