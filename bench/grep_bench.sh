#!/usr/bin/env bash
# grep_bench.sh: time grep_code on the Go standard library ($(go env GOROOT)/src)
# for five patterns (literal, word, regex, case-insensitive, no match) and print
#   native / rg-bare      the native engine against a bare `rg -n --json` (target <= 2x)
#   ripgrep / rg-bare     the rg-backed tool's overhead over bare rg (target <= 1.2x)
# both in wall time and in CPU time (user+sys of the Go process and its rg
# children; steadier on a shared machine). Figures are medians over COUNT runs;
# the sub-benchmarks of one run are interleaved, so load hits them alike.
# Usage: bench/grep_bench.sh [COUNT (default 5)] [BENCHTIME (default 5x)]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
benchtime=${2:-5x}
export GOFLAGS=${GOFLAGS:--mod=mod}
command -v rg >/dev/null || { echo "ripgrep (rg) is not installed" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test -run '^$' -bench 'BenchmarkGrepStdlib' -benchtime "$benchtime" -count "$count" ./internal/tools/ | tee "$out" >&2
awk '
/^BenchmarkGrepStdlib\// {
	split($1, part, "/"); pat = part[2]; eng = part[3]; sub(/-[0-9]+$/, "", eng)
	k = pat SUBSEP eng
	n[k]++; wall[k, n[k]] = $3
	for (i = 4; i < NF; i++) if ($(i+1) == "cpu-ns/op") cpu[k, n[k]] = $i
	pats[pat] = 1
}
function median(arr, k, cnt,   v, i, j, t, m) {
	m = 0
	for (i = 1; i <= cnt; i++) v[++m] = arr[k, i]
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}
END {
	printf "%-11s %9s %9s %9s %9s | %12s %12s | %12s %12s\n", "pattern", "rg-bare", "rg-novend", "ripgrep", "native", "native/bare", "ripgrep/bare", "cpu nat/bare", "cpu rg/bare"
	split("literal word regex ignorecase nomatch", order, " ")
	for (o = 1; o <= 5; o++) {
		p = order[o]; if (!(p in pats)) continue
		b = median(wall, p SUBSEP "rg-bare", n[p, "rg-bare"]); v = median(wall, p SUBSEP "rg-novendor", n[p, "rg-novendor"])
		r = median(wall, p SUBSEP "ripgrep", n[p, "ripgrep"]); t = median(wall, p SUBSEP "native", n[p, "native"])
		cb = median(cpu, p SUBSEP "rg-bare", n[p, "rg-bare"]); cr = median(cpu, p SUBSEP "ripgrep", n[p, "ripgrep"])
		ct = median(cpu, p SUBSEP "native", n[p, "native"])
		printf "%-11s %7.0fms %7.0fms %7.0fms %7.0fms | %11.2fx %11.2fx | %11.2fx %11.2fx\n", p, b/1e6, v/1e6, r/1e6, t/1e6, t/b, r/b, ct/cb, cr/cb
	}
}' "$out"
