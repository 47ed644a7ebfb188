#!/usr/bin/env bash
# Cold `coderag search` process vs `rg -n -i WORD` on the same tree, for
# one-word queries (issue 6). Needs an index of ROOT in $CODERAG_HOME.
# Usage: CODERAG_HOME=... bench/search_bench.sh ROOT [CODERAG_BIN]
set -euo pipefail
ROOT=$1; BIN=${2:-coderag}
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
t() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
printf "%-16s %12s %10s %7s\n" word coderag_ms rg_ms ratio
for w in timeout ParseDuration handshake goroutine Marshal; do
  c=$(for i in 1 2 3 4 5; do t "$BIN" search --project "$ROOT" "$w"; done | med)
  r=$(for i in 1 2 3 4 5; do t rg -n -i "$w" "$ROOT"; done | med)
  printf "%-16s %12s %10s %7s\n" "$w" "$c" "$r" "$(echo "scale=2; $c / $r" | bc)"
done
