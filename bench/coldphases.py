#!/usr/bin/env python3
"""Split a perf profile of cold `coderag search` processes into phases
(bench/PROFILE.md, "Cold search").

Usage:
    perf record -F 20000 -g -o /tmp/cold.data -- sh -c 'for i in $(seq 20); do
        coderag search --project DIR "QUERY" >/dev/null; done'
    bench/coldphases.py /tmp/cold.data [COMM]

COMM is the process name of the binary (default: coderag). Each sample of
that process, user and kernel frames alike (exec, page faults, exit), goes
to the first phase of PHASES whose marker is on its stack; samples with no
marker are "other". Prints milliseconds per process (the sample count times
the sampling period, divided by the number of processes seen) and shares.
"""
import collections, re, subprocess, sys

# (phase, markers): the first phase with a marker on the stack takes the sample
PHASES = [
    ("exec (kernel: load the binary)", ["load_elf_binary", "bprm_execve", "begin_new_exec"]),
    ("dynamic loader and C start", ["_dl_start", "dl_main", "_dl_relocate", "__libc_start", "_start"]),
    ("threads (pthread_create, C arenas)", ["pthread_create", "alloc_new_heap", "start_thread", "clone3"]),
    ("exit (kernel: unmap, free)", ["do_exit", "do_group_exit", "exit_mmap"]),
    ("freshness check (beside the query)", ["engine.(*Engine).Freshen", "index.Diff", "walk.(*lister)", "walk.List"]),
    ("model load", ["static.New", "static.decode", "static.NewFromModel", "static.newVocabIndex"]),
    ("query analysis and embedding", ["search.AnalyzeQuery", "embedQuery", "EmbedQuery"]),
    ("vector route (TopKCosine)", ["store.(*Store).TopKCosine", "store.(*Store).CosineByID"]),
    ("keyword route (FTS5 BM25)", ["store.(*Store).KeywordSearch"]),
    ("chunk rows (ChunksByID)", ["store.(*Store).ChunksByID"]),
    ("other reads of the search", ["store.(*Store).DataVersion", "store.(*Store).RelationsFrom",
                                   "symbolSites", "absentIdentifierNote", "markIncomplete",
                                   "store.(*Store).Incomplete"]),
    ("ranking stages", ["search.runStages", "search.(*Searcher).rankHybrid", "search.(*Searcher).Search"]),
    ("open DB", ["store.Open", "store.Exists"]),
    ("find project", ["engine.(*Engine).Open", "engine.(*Engine).Find"]),
    ("close DB", ["store.(*Store).Close", "engine.(*Engine).Close"]),
    ("config and analyzer", ["config.FromLookup", "cli.newAnalyzer"]),
    ("render", ["cli.writeJSON", "search.FormatHuman", "encoding/json"]),
    ("package init", ["runtime.doInit"]),
    ("runtime start", ["runtime.rt0_go", "runtime.schedinit", "runtime.mstart"]),
    ("GC (background)", ["runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge", "runtime.gcStart"]),
]


def main():
    data = sys.argv[1]
    comm = sys.argv[2] if len(sys.argv) > 2 else "coderag"
    out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,pid,period,ip,sym"],
                         capture_output=True, text=True, check=True).stdout
    tot = collections.Counter()
    pids = set()
    total = 0
    for block in out.split("\n\n"):
        lines = [l for l in block.split("\n") if l.strip()]
        if not lines:
            continue
        m = re.match(r"\s*(\S+)\s+(\d+)\s+(\d+)", lines[0])
        if not m or m.group(1) != comm[:15]:
            continue
        pids.add(m.group(2))
        period = int(m.group(3))
        stack = [l.strip() for l in lines[1:]]
        total += period
        for name, marks in PHASES:
            if any(mk in fr for fr in stack for mk in marks):
                tot[name] += period
                break
        else:
            tot["other"] += period
    n = max(len(pids), 1)
    print(f"{n} processes, {total / n / 1e6:.1f} ms of samples each\n")
    print("| phase | ms per process | share |\n|---|---|---|")
    for name, _ in PHASES + [("other", None)]:
        if tot[name]:
            print(f"| {name} | {tot[name] / n / 1e6:.1f} | {100 * tot[name] / total:.1f}% |")
    print(f"| total | {total / n / 1e6:.1f} | 100% |")


if __name__ == "__main__":
    main()
