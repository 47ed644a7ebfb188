#!/usr/bin/env bash
# coderag against zoekt-index on the trees of issue #29's table, in one
# run: each tree is indexed RUNS times by each tool, alternately, into a
# fresh CODERAG_HOME and a fresh zoekt index directory; per tree the
# median wall and CPU (user+sys) seconds of each, their ratio, and the
# size of each index ÷ the tree's bytes (coderag: index.db ÷ the indexed
# files; zoekt: its shards ÷ the bytes of the tree without .git).
#
#   bench/zoekt_bench.sh CODERAG ZOEKT_INDEX [RUNS]      (RUNS default 3)
#
# Trees are looked for under $FRESH (default /tmp/fresh) and
# $SEMBLE_REPOS (default /tmp/semble/repos), then $ZOEKT_TREES (default
# /tmp/zoekt-trees); a tree found in none is listed as missing. zoekt-index
# is built from its GitHub snapshot (the module proxy refuses zoekt):
#   git archive of github.com/sourcegraph/zoekt | tar -x; go build ./cmd/zoekt-index
# It runs with -disable_ctags (ctags is not installed) and its default
# parallelism; it reads every file below the tree but .git, coderag
# honours .gitignore.
set -euo pipefail
CR=$(readlink -f "$1"); ZI=$(readlink -f "$2"); RUNS=${3:-3}
FRESH=${FRESH:-/tmp/fresh}; SEMBLE_REPOS=${SEMBLE_REPOS:-/tmp/semble/repos}; ZOEKT_TREES=${ZOEKT_TREES:-/tmp/zoekt-trees}
W=$(mktemp -d /tmp/zoekt-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
med() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
timed() { # timed OUT CMD... -> appends "wall cpu" to OUT
  local out=$1; shift
  /usr/bin/time -f "%e %U %S" -o "$W/t" "$@" >/dev/null 2>&1
  read -r e u s < "$W/t"
  echo "$e $(echo "$u + $s" | bc)" >> "$out"
}
printf "%-18s %8s %8s %6s %8s %8s %6s %8s %8s\n" tree cr_wall zo_wall ratio cr_cpu zo_cpu ratio cr_size zo_size
for name in express requests flask gin zod tokio pandoc laravel-framework abseil-cpp; do
  tree=""
  for d in "$FRESH/$name" "$SEMBLE_REPOS/$name" "$ZOEKT_TREES/$name"; do
    if [ -d "$d" ]; then tree=$d; break; fi
  done
  if [ -z "$tree" ]; then printf "%-18s missing (not under %s, %s or %s)\n" "$name" "$FRESH" "$SEMBLE_REPOS" "$ZOEKT_TREES"; continue; fi
  : > "$W/c"; : > "$W/z"
  for i in $(seq "$RUNS"); do
    rm -rf "$W/home" "$W/zi"; mkdir -p "$W/zi"
    CODERAG_HOME="$W/home" timed "$W/c" "$CR" index --quiet "$tree"
    timed "$W/z" "$ZI" -disable_ctags -index "$W/zi" "$tree"
  done
  sqlite3 "$W/home/index.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
  src=$(sqlite3 "$W/home/index.db" "SELECT sum(size) FROM indexed_files")
  tree_bytes=$(du -sb --exclude=.git "$tree" | cut -f1)
  zsize=$(du -sb "$W/zi" | cut -f1)
  cw=$(cut -d' ' -f1 "$W/c" | med); zw=$(cut -d' ' -f1 "$W/z" | med)
  cc=$(cut -d' ' -f2 "$W/c" | med); zc=$(cut -d' ' -f2 "$W/z" | med)
  printf "%-18s %8.2f %8.2f %6.2f %8.2f %8.2f %6.2f %8.2f %8.2f\n" "$name" "$cw" "$zw" "$(echo "$cw / $zw" | bc -l)" \
    "$cc" "$zc" "$(echo "$cc / $zc" | bc -l)" "$(echo "$(stat -c %s "$W/home/index.db") / $src" | bc -l)" "$(echo "$zsize / $tree_bytes" | bc -l)"
done
