#!/usr/bin/env bash
# Full-index time of the semble dev repos (the 19 benchmark roots of
# $SHARED/bench/semble/repos.json, trees under $SEMBLE_REPOS), two binaries
# alternately in one run so that a drifting machine hits both alike.
#   bench/index_dev.sh NEW BASE [RUNS]     (RUNS per binary per repo, default 3)
# Per repo: median wall and CPU (user+sys) seconds of each binary, their
# ratios NEW/BASE, peak RSS, and DB size ÷ indexed source size; last line:
# the medians over the repos. Each run indexes into a fresh CODERAG_HOME.
set -euo pipefail
NEW=$(readlink -f "$1"); BASE=$(readlink -f "$2"); RUNS=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
SHARED=${SHARED:-$here/../../shared}
REPOS=${SEMBLE_REPOS:-/tmp/semble/repos}
W=$(mktemp -d /tmp/index-dev.XXXXXX)
trap 'rm -rf "$W"' EXIT
roots=$(python3 -c "
import json,sys
for r in json.load(open('$SHARED/bench/semble/repos.json')):
    print(r['name'] + ('/' + r['benchmark_root'] if r.get('benchmark_root') else ''))")
one() { # one BIN -> "wall cpu rss_kb db_bytes"
  rm -rf "$W/home"
  CODERAG_HOME="$W/home" /usr/bin/time -f "%e %U %S %M" -o "$W/t" "$1" index --quiet "$2" >/dev/null 2>&1
  read -r e u s m < "$W/t"
  echo "$e $(echo "$u + $s" | bc) $m $(stat -c %s "$W/home/index.db")"
}
med() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf "%-50s %8s %8s %6s %8s %8s %6s %7s %7s %6s %6s\n" repo new_wall base_wall ratio new_cpu base_cpu ratio new_MiB base_MiB db/src db/src_base
: > "$W/all"
for r in $roots; do
  root="$REPOS/$r"
  # indexed source: the files the new binary's index lists
  : > "$W/n"; : > "$W/b"
  for i in $(seq "$RUNS"); do one "$NEW" "$root" >> "$W/n"; one "$BASE" "$root" >> "$W/b"; done
  src=$(sqlite3 "$W/home/index.db" "SELECT sum(size) FROM indexed_files")
  nw=$(cut -d' ' -f1 "$W/n" | med); bw=$(cut -d' ' -f1 "$W/b" | med)
  nc=$(cut -d' ' -f2 "$W/n" | med); bc_=$(cut -d' ' -f2 "$W/b" | med)
  nm=$(cut -d' ' -f3 "$W/n" | med); bm=$(cut -d' ' -f3 "$W/b" | med)
  ndb=$(cut -d' ' -f4 "$W/n" | med); bdb=$(tail -1 "$W/b" | cut -d' ' -f4)
  printf "%-50s %8.2f %8.2f %6.2f %8.2f %8.2f %6.2f %7.0f %7.0f %6.2f %6.2f\n" "$r" "$nw" "$bw" "$(echo "$nw / $bw" | bc -l)" \
    "$nc" "$bc_" "$(echo "$nc / $bc_" | bc -l)" "$(echo "$nm / 1024" | bc -l)" "$(echo "$bm / 1024" | bc -l)" \
    "$(echo "$ndb / $src" | bc -l)" "$(echo "$bdb / $src" | bc -l)"
  echo "$nw $bw $nc $bc_ $(echo "$ndb / $src" | bc -l) $(echo "$bdb / $src" | bc -l)" >> "$W/all"
done
echo "median over repos: new wall $(cut -d' ' -f1 "$W/all" | med) s, base wall $(cut -d' ' -f2 "$W/all" | med) s," \
  "new cpu $(cut -d' ' -f3 "$W/all" | med) s, base cpu $(cut -d' ' -f4 "$W/all" | med) s," \
  "db/src new $(cut -d' ' -f5 "$W/all" | med), base $(cut -d' ' -f6 "$W/all" | med)"
