#!/usr/bin/python3
"""select.py writes train/manifest.tsv: the registry packages the corpus is made of.

It reads package indexes (the Debian ones without network of its own):
  - binary packages: decompressed Packages files of fetch.sh's private index
    (--packages, repeatable, later files override earlier ones: bookworm, then
    bookworm-updates, then bookworm-security), or `apt-cache dumpavail` without it;
  - source packages: the Sources index fetched by fetch.sh's private deb-src list
    (argument --sources, a decompressed Sources file);
  - npm (--npm-list, optional): a TSV of npm package names with their monthly
    downloads (columns name, version, downloads); the registry's metadata and
    tarballs (https://registry.npmjs.org) decide which packages qualify.

Run it with `python3 -P` (or from another directory): its name shadows the standard
library's `select` module otherwise.

For each group below, the candidates are the packages whose name matches the group's
prefix/suffix and whose size lies within the caps, minus every package that matches a
glob of train/exclude.tsv (by binary name or source name). They are ordered by
sha256(name), a fixed pseudo-random order independent of the alphabet, and the first N
are taken. The same indexes and this script give the same manifest.

Columns: registry (debian = binary .deb, debian-src = source package), package,
version, sha256 (of the .deb, of the source package's .dsc, or of the npm tarball).

--keep OLD keeps OLD's rows for the packages it lists (their pinned versions), and
Without --npm-list, OLD's npm rows are kept as they are. --skip FILE names packages never to select (one per line: source packages whose
tarballs the mirror no longer serves), so a larger selection extends an earlier one.
"""
import argparse
import concurrent.futures
import fnmatch
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import urllib.error
import urllib.parse
import urllib.request

# group: (registry, name test, size cap in bytes of the download, N)
GROUPS = [
    ("python", "debian", lambda p: p.startswith("python3-") and not p.endswith(("-doc", "-dbg", "-dbgsym")), 1_500_000, 700),
    ("rust", "debian", lambda p: p.startswith("librust-") and p.endswith("-dev") and "+" not in p, 1_000_000, 600),
    ("go", "debian", lambda p: p.startswith("golang-") and p.endswith("-dev"), 2_000_000, 700),
    ("javascript", "debian", lambda p: p.startswith("node-") and not p.endswith("-doc"), 1_000_000, 450),
    ("ruby", "debian", lambda p: p.startswith("ruby-") and not p.endswith("-doc"), 1_000_000, 300),
    ("php", "debian", lambda p: p.startswith("php-") and not p.endswith("-doc"), 1_000_000, 220),
]
# source groups: a source package qualifies by the binaries it builds
SRC_GROUPS = [
    ("java", lambda bins: any(b.startswith("lib") and b.endswith("-java") for b in bins), 4_000_000, 151),
    ("c-cpp", lambda bins: any(b.startswith("lib") and b.endswith("-dev") for b in bins)
     and not any(b.endswith(("-java", "-perl", "-ocaml-dev")) or b.startswith(("python3-", "librust-", "golang-", "node-", "ruby-", "php-", "libghc-", "lua-")) for b in bins),
     3_000_000, 243),
]


# npm: TypeScript sources. Candidates are the most downloaded packages of --npm-list
# (not @types/*), in download order; a package qualifies when its tarball is at most
# NPM_CAP bytes unpacked and holds at least NPM_MIN_FILES TypeScript source files
# (npm_sources); the first NPM_N that qualify are taken.
NPM_N, NPM_CAP, NPM_MIN_FILES, NPM_CANDIDATES = 300, 3_000_000, 5, 3000
NPM_REGISTRY = "https://registry.npmjs.org"
NPM_SKIP_DIRS = {"node_modules", "dist", "build", "lib", "esm", "cjs", "umd", "bundle", "out", "types",
                 "test", "tests", "__tests__", "examples", "example", "fixtures", "benchmark", "benchmarks"}


def npm_sources(names):
    """The tarball members fetch.sh extracts for an npm package: TypeScript sources
    (.ts, .tsx, .mts, .cts; not .d.ts, not tests), outside built-output, test and
    vendored directories."""
    out = []
    for n in names:
        parts = n.split("/")
        if any(p in NPM_SKIP_DIRS for p in parts[:-1]):
            continue
        base = parts[-1]
        if not base.endswith((".ts", ".tsx", ".mts", ".cts")) or base.endswith((".d.ts", ".d.mts", ".d.cts")):
            continue
        if ".test." in base or ".spec." in base:
            continue
        out.append(n)
    return out


def npm_name_forms(name):
    """The names an npm package is matched against exclude.tsv by: the name with its
    scope squashed into it (@trpc/server -> trpc-server), and Debian's node- form."""
    flat = name.lstrip("@").replace("/", "-")
    return [name, flat, "node-" + flat]


def npm_tarball_url(name, version):
    base = name.split("/")[-1]
    return f"{NPM_REGISTRY}/{name}/-/{base}-{version}.tgz"


def npm_group(list_path, globs, n, cache):
    rows = []
    for line in open(list_path, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if len(f) < 3 or not f[2].isdigit() or f[0].startswith("@types/"):
            continue
        if excluded(npm_name_forms(f[0]), globs):
            continue
        rows.append((int(f[2]), f[0], f[1]))
    rows.sort(key=lambda r: (-r[0], r[1]))
    cands = rows[:NPM_CANDIDATES]
    os.makedirs(cache, exist_ok=True)

    def probe(c):
        _, name, version = c
        base = os.path.join(cache, name.replace("/", "+") + "-" + version)
        try:
            mpath = base + ".json"
            if os.path.exists(mpath):
                meta = json.load(open(mpath))
            else:
                url = f"{NPM_REGISTRY}/{urllib.parse.quote(name, safe='@')}/{urllib.parse.quote(version)}"
                meta = json.load(urllib.request.urlopen(url, timeout=60))
                with open(mpath + ".tmp", "w") as w:
                    json.dump(meta, w)
                os.replace(mpath + ".tmp", mpath)
            size = meta.get("dist", {}).get("unpackedSize") or 0
            if size > NPM_CAP:
                return None
            path = base + ".tgz"
            if not os.path.exists(path):
                data = urllib.request.urlopen(meta["dist"]["tarball"], timeout=120).read()
                with open(path + ".tmp", "wb") as w:
                    w.write(data)
                os.replace(path + ".tmp", path)
            data = open(path, "rb").read()
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as t:
                files = npm_sources([m.name for m in t.getmembers() if m.isfile()])
            if len(files) < NPM_MIN_FILES:
                return None
            return (name, version, hashlib.sha256(data).hexdigest())
        except urllib.error.HTTPError as e:
            if e.code in (404, 410):  # gone from the registry: it does not qualify
                print(f"npm: {name}@{version}: {e}", file=sys.stderr)
                return None
            raise RuntimeError(f"npm: {name}@{version}: {e}") from e
        except OSError as e:  # unreachable: the selection would silently differ, so stop
            raise RuntimeError(f"npm: {name}@{version}: {e}") from e
        except (tarfile.TarError, ValueError, KeyError) as e:  # a malformed package does not qualify
            print(f"npm: {name}@{version}: {e}", file=sys.stderr)
            return None

    with concurrent.futures.ThreadPoolExecutor(16) as ex:
        probed = list(ex.map(probe, cands))
    took = [r for r in probed if r][:n]
    return [("typescript", "npm", name, v, h) for name, v, h in took]


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
    ap.add_argument("--packages", action="append", default=[])
    ap.add_argument("--keep")
    ap.add_argument("--skip")
    ap.add_argument("--npm-list")
    ap.add_argument("--npm-cache", default=os.path.expanduser("~/.cache/coderag-train/dl/npm"))
    a = ap.parse_args()
    globs = load_exclude(a.exclude)
    if a.packages:
        avail = "\n\n".join(open(f, encoding="utf-8", errors="replace").read() for f in a.packages)
    else:
        avail = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True, check=True).stdout
    bins = {}
    for s in stanzas(avail):
        if s.get("Package") and s.get("SHA256"):
            bins[s["Package"]] = s
    keep = {}
    if a.keep:
        for line in open(a.keep, encoding="utf-8").read().splitlines()[1:]:
            f = line.split("\t")
            keep[f[1]] = f
    skip = set()
    if a.skip:
        skip = {l.split("#")[0].strip() for l in open(a.skip, encoding="utf-8")} - {""}
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
            if excluded([p, src], globs) or p in skip:
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
            if p in keep:
                rows.append((group, reg, p, keep[p][2], keep[p][3]))
            else:
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
            if p in used or p in skip:
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
            if p in keep:
                v, h = keep[p][2], keep[p][3]
            rows.append((group, "debian-src", p, v, h))
    if a.npm_list:
        rows += npm_group(a.npm_list, globs, NPM_N, a.npm_cache)
    else:  # without a download list, the kept manifest's npm rows stay as pinned
        rows += [("npm", "npm", f[1], f[2], f[3]) for f in keep.values() if f[0] == "npm"]
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
