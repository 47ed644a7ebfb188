#!/usr/bin/env bash
# Golden-set MRR@10 on both stores in one run: each corpus is indexed into a
# new SQLite file and a new PostgreSQL database, then `coderag eval` scores
# the same golden set on each; the last column is PostgreSQL minus SQLite.
# usage: bench/store_eval.sh CODERAG PGURL [GOLDEN_DIR]
#   PGURL is a maintenance database on which the role may CREATE DATABASE
#   (e.g. postgres://postgres:postgres@localhost/postgres); the databases the
#   script creates are dropped at the end.
#   Corpora: PY_STDLIB (default /tmp/golden/py) with python-stdlib.json, and
#   a subset of GOROOT/src with go-stdlib.json: the directories that hold the
#   golden set's answers (their .go files other than tests, one level), so
#   the Go figure has fewer distractors than the whole tree, on both stores.
set -euo pipefail
bin=${1:?CODERAG}; admin=${2:?PGURL}
here=$(cd "$(dirname "$0")" && pwd)
golden=${3:-$here/../../shared/golden}
py=${PY_STDLIB:-/tmp/golden/py}
work=$(mktemp -d); dbs=()
gosub=$work/go/src
python3 - "$golden/go-stdlib.json" "$(go env GOROOT)/src" "$gosub" <<'PY'
import json, os, shutil, sys
golden, src, dst = sys.argv[1:]
dirs = {os.path.dirname(e['file']) for q in json.load(open(golden))['queries'] for e in q['expect']}
for d in dirs:
    os.makedirs(os.path.join(dst, d), exist_ok=True)
    for f in os.listdir(os.path.join(src, d)):
        if f.endswith('.go') and not f.endswith('_test.go'):
            shutil.copy(os.path.join(src, d, f), os.path.join(dst, d, f))
PY
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
