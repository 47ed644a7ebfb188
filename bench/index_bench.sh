#!/usr/bin/env bash
# Indexing benchmarks for issue 5, measured in one script against a peer
# (git status on a git repository of the same tree):
#   full index of $(go env GOROOT)/src, no-change re-index, one-file change,
#   and a 1/2/4/8 worker scaling table on net/.
# Usage: bench/index_bench.sh [WORKDIR]   (default /tmp/coderag-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
W=${1:-/tmp/coderag-bench}
rm -rf "$W"; mkdir -p "$W"
go build -o "$W/coderag" ./cmd/coderag
SRC="$(go env GOROOT)/src"
cp -r "$SRC" "$W/src"
T="$W/src"
( cd "$T" && git init -q && git add -A && git -c user.email=b@b -c user.name=b commit -qm init )
export CODERAG_HOME="$W/home"
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc; }
echo "== full index of $T"
/usr/bin/time -f "wall %e s, peak RSS %M KB" "$W/coderag" index --quiet "$T" | tail -3
echo "== no-change re-index vs git status (5 runs each)"
for i in 1 2 3 4 5; do
  a=$(t "$W/coderag" index --quiet "$T"); b=$(t git -C "$T" status --porcelain)
  echo "coderag ${a}s  git-status ${b}s  ratio $(echo "scale=2; $a / $b" | bc)"
done
echo "== one file changed"
echo "// touched" >> "$T/net/http/server.go"
"$W/coderag" index --quiet "$T" | tail -2
echo "== worker scaling on net/ (fresh index each)"
for n in 1 2 4 8; do
  export CODERAG_HOME="$W/scale$n"
  echo "threads $n: $(t "$W/coderag" index --quiet --threads $n "$T/net")s"
done
