#!/usr/bin/env python3
"""Check the fresh-func golden files against their source trees.

Usage: check.py FILE.json ROOT [FILE.json ROOT ...]

For every expect entry it reads ROOT/file and fails unless the recorded line is
the declaration of symbol in that language (Go func, Python def/class, JS
function/method/const, Rust fn, C definition). It also checks that ids are
unique, that lang is en/zh and kind is fuzzy/identifier/mixed, and that no
answer lives in a test file. It prints per-file counts and exits 1 on any error.
"""
import json, re, sys

def decl_ok(path, line, sym):
    s = line.rstrip("\n")
    e = re.escape(sym)
    if path.endswith(".go"):
        return re.match(r"^func (\([^)]*\) )?" + e + r"\b", s)
    if path.endswith(".py"):
        return re.match(r"^\s*(async\s+)?(def|class)\s+" + e + r"\b", s)
    if path.endswith(".js"):
        return (re.match(r"^\s*(async\s+)?function\*?\s+" + e + r"\s*\(", s)
                or re.match(r"^\s*(static\s+)?(async\s+)?(get\s+|set\s+)?" + e + r"\s*\(.*\{\s*$", s)
                or re.match(r"^\s*(const|let|var)\s+" + e + r"\s*=", s))
    if path.endswith(".rs"):
        return re.search(r"\bfn\s+" + e + r"\b", s)
    if path.endswith((".c", ".h")):
        return (not s.startswith((" ", "\t")) and not s.rstrip().endswith(";")
                and re.search(r"\b" + e + r"\s*\(", s))
    return False

def test_path(p):
    return bool(re.search(r"(^|/)(tests?|testdata|examples?|_example|benches|fuzz(ing)?)/|_test\.go$|\.test\.", p))

def check(gold, root):
    errs = []
    d = json.load(open(gold, encoding="utf-8"))
    ids = set()
    langs = {}
    for qq in d["queries"]:
        if qq["id"] in ids:
            errs.append(f"{qq['id']}: duplicate id")
        ids.add(qq["id"])
        if qq["lang"] not in ("en", "zh") or qq["kind"] not in ("fuzzy", "identifier", "mixed"):
            errs.append(f"{qq['id']}: bad lang/kind")
        langs[qq["lang"]] = langs.get(qq["lang"], 0) + 1
        for x in qq["expect"]:
            p = x["file"]
            if test_path(p):
                errs.append(f"{qq['id']}: {p} is a test/example file")
            try:
                lines = open(f"{root}/{p}", encoding="utf-8", errors="replace").readlines()
            except OSError as ex:
                errs.append(f"{qq['id']}: {ex}")
                continue
            ln = x["line"]
            if not (1 <= ln <= len(lines)) or not decl_ok(p, lines[ln - 1], x["symbol"]):
                got = lines[ln - 1].strip() if 1 <= ln <= len(lines) else "<out of range>"
                errs.append(f"{qq['id']}: {p}:{ln} is not the declaration of {x['symbol']}: {got!r}")
    print(f"{gold}: {len(d['queries'])} queries, {langs}, {len(errs)} errors")
    for e in errs:
        print("  " + e)
    return not errs

if __name__ == "__main__":
    a = sys.argv[1:]
    if not a or len(a) % 2:
        sys.exit(__doc__)
    ok = all([check(a[i], a[i + 1]) for i in range(0, len(a), 2)])
    sys.exit(0 if ok else 1)
