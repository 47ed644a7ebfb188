#!/usr/bin/env python3
"""Split a CPU profile of an index run into phases (bench/PROFILE.md).

Usage: bench/phases.py BINARY PROFILE   (BINARY: the test or command binary
that wrote PROFILE, e.g. `go test -c` of internal/index with
BenchmarkIndexRoot and -cpuprofile). Reads `go tool pprof -traces` and
gives each sample to the first phase whose marker is on its stack, in the
order of PHASES; prints CPU seconds and shares.
"""
import subprocess, sys, re, collections

# (phase, markers): the first phase with a marker on the stack takes the sample
PHASES = [
    ("commit (WAL write, FTS flush at commit)", ["(*Tx).Commit"]),
    ("close (final WAL checkpoint)", ["store.(*Store).Close"]),
    ("FTS segment flush inside statements", ["_fts5SavepointMethod"]),
    ("SQL: FTS inserts", ["_fts5UpdateMethod", "_fts5StorageInsert", "Fts5Index"]),
    ("SQL: deletes of old rows", ["store.(*Store).deleteFile"]),
    ("SQL: other writes (chunks, vectors, relations, files)", ["store.(*Store).replaceFiles", "store.(*Store).TouchFiles"]),
    ("embed", ["embed", "Embed"]),
    ("walk", ["index.listTree", "walk.Collect", "walk.List", "walk.(*lister)"]),
    ("read", ["walk.ReadRegular", "walk.IsBinary"]),
    ("hash (SHA-256)", ["crypto/sha256"]),
    ("parse: Rust macro re-parse and calls", ["macroItems", "macroCalls"]),
    ("parse: tree-sitter parse", ["ParseWithOptions", "(*Parser).Parse"]),
    ("parse: Go package declarations", ["goPackages", "gopkg", "NewGoPackage"]),
    ("parse: queries and chunks", ["chunk."]),
    ("FTS terms (analyze)", ["analyze."]),
    ("store: open, migrate, finish", ["store.", "index.(*run).finish", "saveLangStats"]),
    ("GC and runtime", ["runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.mallocgc", "runtime.bgscavenge"]),
]

def main():
    binary, prof = sys.argv[1], sys.argv[2]
    out = subprocess.run(["go", "tool", "pprof", "-traces", binary, prof], capture_output=True, text=True, check=True).stdout
    blocks = out.split("-----------+-------------------------------------------------------")
    tot = collections.Counter()
    total = 0.0
    for b in blocks[1:]:
        lines = [l for l in b.strip("\n").split("\n") if l.strip()]
        if not lines:
            continue
        m = re.match(r"\s*([\d.]+)(ms|s|us)\s+(.*)", lines[0])
        if not m:
            continue
        v = float(m.group(1)) * {"ms": 1e-3, "s": 1.0, "us": 1e-6}[m.group(2)]
        stack = [m.group(3).strip()] + [l.strip() for l in lines[1:]]
        total += v
        for name, marks in PHASES:
            if any(mk in fr for fr in stack for mk in marks):
                tot[name] += v
                break
        else:
            tot["other"] += v
    print(f"| phase | CPU s | share |\n|---|---|---|")
    for name, _ in PHASES + [("other", None)]:
        if tot[name]:
            print(f"| {name} | {tot[name]:.2f} | {100*tot[name]/total:.1f}% |")
    print(f"| total | {total:.2f} | 100% |")

main()
