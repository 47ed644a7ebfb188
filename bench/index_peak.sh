#!/usr/bin/env bash
# Peak RSS, CPU and wall of a full index of one tree, two binaries
# alternately (BASE then NEW, PAIRS times), each run into a fresh
# CODERAG_HOME, so that a drifting or shared machine hits both alike.
#   bench/index_peak.sh NEW BASE [PAIRS] [DIR]   (default 3 pairs, $(go env GOROOT)/src)
# One line per run (binary, pair, peak RSS MiB, CPU user+sys s, wall s), then
# per measure the medians of each binary and the median of the pair ratios
# NEW/BASE with their range.
set -euo pipefail
NEW=$(readlink -f "$1"); BASE=$(readlink -f "$2"); PAIRS=${3:-3}
DIR=$(readlink -f "${4:-$(go env GOROOT)/src}")
W=$(mktemp -d /tmp/index-peak.XXXXXX)
trap 'rm -rf "$W"' EXIT
one() { # one NAME BIN PAIR -> "NAME PAIR rss_MiB cpu_s wall_s"
  rm -rf "$W/home"
  CODERAG_HOME="$W/home" /usr/bin/time -f "%e %U %S %M" -o "$W/t" "$2" index --quiet "$DIR" >/dev/null 2>&1
  read -r e u s m < "$W/t"
  echo "$1 $3 $(echo "scale=1; $m / 1024" | bc) $(echo "$u + $s" | bc) $e"
}
: > "$W/runs"
for i in $(seq "$PAIRS"); do
  one base "$BASE" "$i" | tee -a "$W/runs"
  one new "$NEW" "$i" | tee -a "$W/runs"
done
python3 - "$W/runs" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
base = [r for r in rows if r[0] == "base"]
new = [r for r in rows if r[0] == "new"]
for col, name in ((2, "peak RSS MiB"), (3, "CPU s"), (4, "wall s")):
    b = [float(r[col]) for r in base]
    n = [float(r[col]) for r in new]
    ratios = [y / x for x, y in zip(b, n)]
    print(f"{name:13s} base {statistics.median(b):7.1f}  new {statistics.median(n):7.1f}  "
          f"new/base {statistics.median(ratios):.2f} (pairs {min(ratios):.2f}-{max(ratios):.2f})")
PY
