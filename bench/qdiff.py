#!/usr/bin/env python3
"""Which queries moved between two runs of bench/quality.py.

usage: bench/qdiff.py BEFORE_WORK AFTER_WORK [FILTER]

Reads BEFORE_WORK/per_query.json and AFTER_WORK/per_query.json (written by
bench/quality.py) and prints every query whose score changed: for a golden
set the rank of its first hit (0: not in the top 10) as "rank 3 -> 1" with
the change of its reciprocal rank; for a file-labelled set its chunk
NDCG@10. FILTER keeps the sets whose key (HOME:SET.json) holds it. Ends
with the count of queries up and down and the summed change.
"""
import json, os, sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
a = json.load(open(os.path.join(sys.argv[1], "per_query.json")))
b = json.load(open(os.path.join(sys.argv[2], "per_query.json")))
flt = sys.argv[3] if len(sys.argv) > 3 else ""


def score(kind, v):
    if kind == "rank":
        return 1.0 / v if v else 0.0
    return v


up = down = 0
total = 0.0
for key in sorted(set(a) | set(b)):
    if flt not in key or key not in a or key not in b:
        continue
    kind = b[key]["kind"]
    va, vb = a[key]["values"], b[key]["values"]
    names = {**a[key].get("queries", {}), **b[key].get("queries", {})}
    default = 1.0 if kind == "ndcg" else None  # a file-labelled query not listed scored 1
    rows = []
    for q in sorted(set(va) | set(vb)):
        x, y = va.get(q, default), vb.get(q, default)
        if x is None or y is None or x == y:
            continue
        sx, sy = score(kind, x), score(kind, y)
        if abs(sy - sx) < 1e-9:
            continue
        total += sy - sx
        up += sy > sx
        down += sy < sx
        label = f"rank {x} -> {y}" if kind == "rank" else f"ndcg {x:.3f} -> {y:.3f}"
        rows.append(f"  {sy - sx:+.3f}  {label:22s} {q} {names.get(q, '')[:90]}")
    if rows:
        print(key)
        print("\n".join(rows))
print(f"{up} up, {down} down, summed change {total:+.3f}")
