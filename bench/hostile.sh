#!/usr/bin/env bash
# hostile.sh: re-measure the figures issue 17 says must keep holding, on the
# real binary (bench/hostile/hostile_test.go):
#   kill -9 at N random points during `index` -> databases pass integrity_check
#   0 "database is locked" in CLI reads and MCP calls during index writes
#   static path-escape attempts through the MCP tools -> all refused
#   swap race (regular file <-> symlink out) -> no outside content
# Usage: bench/hostile.sh [KILLS (20)] [READS (1040)] [MCP_CALLS (120)] [SWAP_CALLS (2001)]
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS=${GOFLAGS:--mod=mod}
go test -count=1 -timeout 60m -run TestHostileFigures -v ./bench/hostile/ -args -hostile \
  -hostile.kills "${1:-20}" -hostile.reads "${2:-1040}" -hostile.mcpcalls "${3:-120}" -hostile.swapcalls "${4:-2001}" \
  | tee /dev/stderr | grep -o 'FIGURE .*' || true
