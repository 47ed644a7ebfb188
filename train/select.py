#!/usr/bin/python3
"""select.py writes train/manifest.tsv: the registry packages the corpus is made of.

It reads the package indexes apt already has (no network of its own):
  - binary packages: `apt-cache dumpavail` (Debian bookworm main);
  - source packages: the Sources index fetched by fetch.sh's private deb-src list
    (argument --sources, a decompressed Sources file).

For each group below, the candidates are the packages whose name matches the group's
prefix/suffix and whose size lies within the caps, minus every package that matches a
glob of train/exclude.tsv (by binary name or source name). They are ordered by
sha256(name), a fixed pseudo-random order independent of the alphabet, and the first N
are taken. The same indexes and this script give the same manifest.

Columns: registry (debian = binary .deb, debian-src = source package), package,
version, sha256 (of the .deb, or of the source package's .dsc).
"""
import argparse
import fnmatch
import hashlib
import subprocess
import sys

# group: (registry, name test, size cap in bytes of the download, N)
GROUPS = [
    ("python", "debian", lambda p: p.startswith("python3-") and not p.endswith(("-doc", "-dbg", "-dbgsym")), 1_500_000, 340),
    ("rust", "debian", lambda p: p.startswith("librust-") and p.endswith("-dev") and "+" not in p, 1_000_000, 340),
    ("go", "debian", lambda p: p.startswith("golang-") and p.endswith("-dev"), 2_000_000, 340),
    ("javascript", "debian", lambda p: p.startswith("node-") and not p.endswith("-doc"), 1_000_000, 260),
    ("ruby", "debian", lambda p: p.startswith("ruby-") and not p.endswith("-doc"), 1_000_000, 160),
    ("php", "debian", lambda p: p.startswith("php-") and not p.endswith("-doc"), 1_000_000, 120),
]
# source groups: a source package qualifies by the binaries it builds
SRC_GROUPS = [
    ("java", lambda bins: any(b.startswith("lib") and b.endswith("-java") for b in bins), 4_000_000, 90),
    ("c-cpp", lambda bins: any(b.startswith("lib") and b.endswith("-dev") for b in bins)
     and not any(b.endswith(("-java", "-perl", "-ocaml-dev")) or b.startswith(("python3-", "librust-", "golang-", "node-", "ruby-", "php-", "libghc-", "lua-")) for b in bins),
     3_000_000, 150),
]


def stanzas(text):
    cur = {}
    key = None
    for line in text.splitlines():
        if not line.strip():
            if cur:
                yield cur
            cur, key = {}, None
            continue
        if line[0] in " \t":
            if key:
                cur[key] += "\n" + line.strip()
            continue
        k, _, v = line.partition(":")
        key = k
        cur[k] = v.strip()
    if cur:
        yield cur


def load_exclude(path):
    globs = []
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        proj, _, pats = line.rstrip("\n").split("\t")
        globs += [(proj, g) for g in pats.split(",") if g]
    return globs


def excluded(names, globs):
    for n in names:
        for proj, g in globs:
            if fnmatch.fnmatchcase(n, g):
                return proj
    return None


def order(name):
    return hashlib.sha256(name.encode()).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sources", required=True)
    ap.add_argument("--exclude", default="train/exclude.tsv")
    ap.add_argument("--out", default="train/manifest.tsv")
    a = ap.parse_args()
    globs = load_exclude(a.exclude)
    avail = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True, check=True).stdout
    bins = {}
    for s in stanzas(avail):
        if s.get("Package") and s.get("SHA256"):
            bins[s["Package"]] = s
    rows = []
    for group, reg, test, cap, n in GROUPS:
        cands = []
        for p, s in bins.items():
            if not test(p) or s.get("Architecture") != "all" and group not in ("go", "rust"):
                continue
            size = int(s.get("Size", "0"))
            if size < 8_000 or size > cap:
                continue
            src = s.get("Source", p).split(" ")[0]
            if excluded([p, src], globs):
                continue
            cands.append(p)
        cands.sort(key=order)
        seen_src = set()
        took = 0
        for p in cands:
            src = bins[p].get("Source", p).split(" ")[0]
            if src in seen_src:  # one binary per source package
                continue
            seen_src.add(src)
            rows.append((group, reg, p, bins[p]["Version"], bins[p]["SHA256"]))
            took += 1
            if took == n:
                break
    srcs = {}
    for s in stanzas(open(a.sources, encoding="utf-8", errors="replace").read()):
        if s.get("Package"):
            srcs[s["Package"]] = s
    used = set()
    for group, test, cap, n in SRC_GROUPS:
        cands = []
        for p, s in srcs.items():
            if p in used:
                continue
            blist = [b.strip() for b in s.get("Binary", "").split(",") if b.strip()]
            if not test(blist) or excluded([p] + blist, globs):
                continue
            files = [l.split() for l in s.get("Checksums-Sha256", "").splitlines() if l.strip()]
            size = sum(int(f[1]) for f in files)
            dsc = [f[0] for f in files if f[2].endswith(".dsc")]
            if size < 20_000 or size > cap or not dsc:
                continue
            cands.append((p, s["Version"], dsc[0]))
        cands.sort(key=lambda c: order(c[0]))
        for p, v, h in cands[:n]:
            used.add(p)
            rows.append((group, "debian-src", p, v, h))
    with open(a.out, "w", encoding="utf-8") as f:
        f.write("registry\tpackage\tversion\tsha256\n")
        for _, reg, p, v, h in rows:
            f.write(f"{reg}\t{p}\t{v}\t{h}\n")
    counts = {}
    for g, *_ in rows:
        counts[g] = counts.get(g, 0) + 1
    print("manifest:", len(rows), "packages", counts, file=sys.stderr)


if __name__ == "__main__":
    main()
