#!/usr/bin/env python3
"""DB size ÷ indexed source, by table group, over a directory of homes.

Usage: bench/dbsize.py WORK_DIR   (a bench/quality.py WORK_DIR: one
CODERAG_HOME per repo, home-*/index.db). For each index: checkpoint its WAL,
read SQLite's dbstat, group tables (vectors, chunks, relations, fts, other;
each with its indexes) and divide by the indexed source (sum of
indexed_files.size). Prints one row per repo and the median of each column.
"""
import glob, os, sqlite3, statistics, sys

GROUPS = [("vectors", ("code_vectors",)), ("chunks", ("code_chunks",)), ("relations", ("code_relations",)),
          ("fts", ("chunks_fts",)), ("files", ("indexed_files", "sqlite_autoindex_indexed_files", "tree_dirs", "sqlite_autoindex_tree_dirs"))]

def group(name):
    for g, prefixes in GROUPS:
        if name.startswith(prefixes):
            return g
    return "other"

rows = []
for db in sorted(glob.glob(os.path.join(sys.argv[1], "home-*", "index.db"))):
    c = sqlite3.connect(db)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    src = c.execute("SELECT sum(size) FROM indexed_files").fetchone()[0] or 1
    size = os.path.getsize(db)
    by = {}
    for name, n in c.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
        by[group(name)] = by.get(group(name), 0) + n
    c.close()
    rows.append((os.path.basename(os.path.dirname(db))[5:], size / src, {g: by.get(g, 0) / src for g, _ in GROUPS + [("other", ())]}))
cols = [g for g, _ in GROUPS] + ["other"]
print("| repo | db ÷ source | " + " | ".join(cols) + " |")
print("|---|---|" + "---|" * len(cols))
for name, r, by in rows:
    print(f"| {name} | {r:.2f} | " + " | ".join(f"{by[g]:.2f}" for g in cols) + " |")
print(f"| median | {statistics.median(r for _, r, _ in rows):.2f} | " +
      " | ".join(f"{statistics.median(by[g] for _, _, by in rows):.2f}" for g in cols) + " |")
