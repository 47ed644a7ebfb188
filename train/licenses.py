#!/usr/bin/python3
"""licenses.py summarises the licences of the corpus from the Debian copyright files:
usr/share/doc/*/copyright of each extracted binary package, debian/copyright of each source
package's debian tarball, the "license" field of an npm package's package.json. A package counts once per distinct licence short name (the
"License:" fields of the machine-readable format; "unstated" when the file has none).
Usage: licenses.py MANIFEST WORK   -> a markdown table on stdout."""
import collections, glob, json, os, re, sys, tarfile

def names(text):
    out = set()
    for m in re.finditer(r"^License:\s*(\S.*)$", text, re.M):
        for part in re.split(r"\s+(?:or|and)\s+|\s*[|,]\s*", m.group(1).strip()):
            p = part.strip().rstrip(".")
            if p:
                out.add(p)
    return out or {"unstated"}

rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if not l.startswith("registry\t")]
work = sys.argv[2]
count = collections.Counter()
for reg, pkg, ver, sha in rows:
    text = ""
    d = os.path.join(work, "src", pkg)
    if reg == "npm":
        for f in glob.glob(os.path.join(d, "*/package.json")):
            try:
                lic = json.load(open(f)).get("license")
                text = "License: " + (lic if isinstance(lic, str) else lic.get("type", ""))
            except Exception:
                pass
    elif reg == "debian":
        fs = glob.glob(os.path.join(d, "usr/share/doc/*/copyright"))
        if fs:
            text = open(fs[0], errors="replace").read()
    else:
        for t in glob.glob(os.path.join(d, "*.debian.tar.*")):
            try:
                with tarfile.open(t) as tf:
                    text = tf.extractfile("debian/copyright").read().decode("utf-8", "replace")
            except Exception:
                pass
    for n in names(text):
        count[n] += 1
print("| licence (Debian copyright short name) | packages |\n|---|---|")
other = 0
for n, c in count.most_common():
    if c >= 8:
        print(f"| {n} | {c} |")
    else:
        other += c
print(f"| other licences (fewer than 8 packages each) | {other} |")
