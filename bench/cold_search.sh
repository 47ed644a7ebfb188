#!/usr/bin/env bash
# One cold `coderag search` process, a new binary against a baseline in the
# same run, each on its own index of the same tree (an index made by a
# newer schema cannot be read by an older binary; the same CODERAG_HOME
# twice is fine when the schema is the same). For each query the two
# binaries run in turn, new then base, RUNS times after two warm-up runs of
# each (page cache warm, process cold); a run's CPU is its user+sys time
# (wait4's rusage), its wall the time from start to exit. Prints the medians
# and p10/p90 of each, and the median of the new/base ratios taken pair by
# pair (the machine's speed drifts; a pair shares it). Then the process
# start alone (`--help`), the same way.
#
# usage: bench/cold_search.sh NEW_BIN NEW_HOME BASE_BIN BASE_HOME DIR [QUERY...]
#   *_HOME  a CODERAG_HOME holding an index of DIR made by that binary
#           (`CODERAG_HOME=... BIN index DIR` makes it)
#   QUERY   default: four queries of GOROOT/src/runtime (bench/PROFILE.md)
# env: RUNS (default 21)
set -euo pipefail
new=${1:?NEW_BIN}; newhome=${2:?NEW_HOME}; base=${3:?BASE_BIN}; basehome=${4:?BASE_HOME}; dir=${5:?DIR}
shift 5
if [ $# -eq 0 ]; then
  set -- "allocate a span for the heap" "stop the world for garbage collection" "park the current goroutine" "mallocgc"
fi
python3 - "$new" "$newhome" "$base" "$basehome" "$dir" "$@" <<'PY'
import os, statistics, subprocess, sys, time

new, newhome, base, basehome, root = sys.argv[1:6]
queries = sys.argv[6:]
runs = int(os.environ.get("RUNS", "21"))


def once(argv, home):
    env = dict(os.environ, CODERAG_HOME=home)
    t = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        sys.exit(f"{argv[0]} exited with status {status}")
    return (ru.ru_utime + ru.ru_stime) * 1000, wall * 1000


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def pair(name, a_argv, b_argv):
    for _ in range(2):
        once(a_argv, newhome)
        once(b_argv, basehome)
    a, b = [], []
    for _ in range(runs):
        a.append(once(a_argv, newhome))
        b.append(once(b_argv, basehome))
    for i, label in ((0, "cpu"), (1, "wall")):
        av, bv = [x[i] for x in a], [x[i] for x in b]
        ratio = statistics.median([x / y for x, y in zip(av, bv)])
        print(f"{name[:34]:34s} {label:4s}  new {statistics.median(av):6.1f} ms (p10 {pct(av, .1):6.1f}, p90 {pct(av, .9):6.1f})"
              f"  base {statistics.median(bv):6.1f} ms (p10 {pct(bv, .1):6.1f}, p90 {pct(bv, .9):6.1f})  new/base {ratio:.2f}")


print(f"{runs} runs of each binary per line, in turn; medians")
for q in queries:
    pair(q, [new, "search", "--project", root, q], [base, "search", "--project", root, q])
pair("process start (--help)", [new, "--help"], [base, "--help"])
PY
