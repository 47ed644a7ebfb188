#!/usr/bin/env bash
# One `coderag search` process while a watcher of the same index runs
# (`coderag index --watch DIR`, which answers searches over
# $CODERAG_HOME/resident.sock), against the same search run alone
# (CODERAG_RESIDENT=off), one binary, one index, in one run (issue #29's
# "one search process <= 30 ms on GOROOT/src/runtime"). For each query the
# two run in turn, RUNS times after two warm-up runs of each; a run's CPU is
# its user+sys time (wait4's rusage), its wall the time from start to exit.
# Prints the medians and p10/p90, and the median of the resident/alone
# ratios taken pair by pair.
#
# usage: bench/resident_search.sh BIN HOME DIR [QUERY...]
#   HOME   a CODERAG_HOME holding an index of DIR made by BIN (made when
#          missing); the watcher is started on it and stopped at the end
#   QUERY  default: four queries of GOROOT/src/runtime (bench/PROFILE.md)
# env: RUNS (default 21)
set -euo pipefail
bin=$(readlink -f "${1:?BIN}"); home=${2:?HOME}; dir=$(readlink -f "${3:?DIR}")
shift 3
if [ $# -eq 0 ]; then
  set -- "allocate a span for the heap" "stop the world for garbage collection" "park the current goroutine" "mallocgc"
fi
mkdir -p "$home"; home=$(readlink -f "$home")
[ -f "$home/index.db" ] || CODERAG_HOME="$home" "$bin" index --quiet "$dir" >/dev/null
CODERAG_HOME="$home" "$bin" index --quiet --watch "$dir" >"$home/watch.log" 2>&1 &
watcher=$!
trap 'kill $watcher 2>/dev/null; wait $watcher 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$home/resident.sock" ] && break; sleep 0.1; done
[ -S "$home/resident.sock" ] || { cat "$home/watch.log"; echo "the watcher did not listen" >&2; exit 1; }
python3 - "$bin" "$home" "$dir" "$@" <<'PY'
import os, statistics, subprocess, sys, time

binary, home, root = sys.argv[1:4]
queries = sys.argv[4:]
runs = int(os.environ.get("RUNS", "21"))


def once(resident, q):
    env = dict(os.environ, CODERAG_HOME=home, CODERAG_RESIDENT="on" if resident else "off")
    t = time.perf_counter()
    p = subprocess.Popen([binary, "search", "--project", root, q], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        sys.exit(f"search exited with status {status}")
    return (ru.ru_utime + ru.ru_stime) * 1000, wall * 1000


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


print(f"{'query':<40} {'':>9} {'wall p10':>8} {'median':>7} {'p90':>6} {'cpu med':>8}")
for q in queries:
    for _ in range(2):
        once(True, q); once(False, q)
    res, alone, ratio = [], [], []
    for _ in range(runs):
        a = once(True, q); b = once(False, q)
        res.append(a); alone.append(b); ratio.append(a[1] / b[1])
    for name, xs in (("resident", res), ("alone", alone)):
        w = [x[1] for x in xs]; c = [x[0] for x in xs]
        print(f"{q[:40]:<40} {name:>9} {pct(w, .1):8.1f} {statistics.median(w):7.1f} {pct(w, .9):6.1f} {statistics.median(c):8.1f}")
    print(f"{'':<40} {'ratio':>9} {'':>8} {statistics.median(ratio):7.2f}")
PY
