#!/usr/bin/env bash
# In-process scoring of the semble benchmark dev subset with `coderag eval`
# (one process per repo, not per query), on indexes already built by
# shared/bench/semble/semble_bench.py --keep-index (or by this script with
# --index). Prints chunk- and file-level NDCG@10 per repo, per language and
# per category (mean over repos), the benchmark's macro averages.
#
# usage: bench/semble_eval.sh CODERAG REPOS_DIR WORK_DIR [SEMBLE_DIR] [--index]
#   CODERAG   the binary to score
#   REPOS_DIR checkouts (REPOS_DIR/<name>), as checkout.sh lays them out
#   WORK_DIR  holds home-<name>/ (a CODERAG_HOME per repo)
#   SEMBLE_DIR repos.json + annotations/ (default ../shared/bench/semble)
# env: REPOS=a,b limits the repos; RANKER=seed selects the ranker; SET=Field=v,...
# overrides hybrid params (coderag eval --set), for ablations.
set -euo pipefail
bin=${1:?CODERAG}; repos=${2:?REPOS_DIR}; work=${3:?WORK_DIR}
here=$(cd "$(dirname "$0")" && pwd)
semble=${4:-$here/../../shared/bench/semble}
reindex=${5:-}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 - "$semble/repos.json" "${REPOS:-}" > "$out/list" <<'PY'
import json, sys
want = set(filter(None, sys.argv[2].split(",")))
for r in json.load(open(sys.argv[1])):
    if not want or r["name"] in want:
        print(r["name"], r["language"], r.get("benchmark_root") or "")
PY
while read -r name lang root; do
  dir="$repos/$name${root:+/$root}"
  home="$work/home-$name"
  if [ "$reindex" = "--index" ] || [ ! -d "$home" ]; then
    mkdir -p "$home"
    CODERAG_HOME="$home" EMBEDDING_PROVIDER= "$bin" index "$dir" >/dev/null 2>&1
  fi
  CODERAG_HOME="$home" EMBEDDING_PROVIDER= "$bin" eval --json --ranker "${RANKER:-hybrid}" ${SET:+--set "$SET"} --project "$dir" \
    "$semble/annotations/$name.json" > "$out/$name.json" 2>/dev/null || echo "$name: eval failed" >&2
  echo "$name $lang" >> "$out/done"
done < "$out/list"
python3 - "$out" <<'PY'
import json, sys, os, collections
d = sys.argv[1]
rows = [l.split() for l in open(os.path.join(d, "done"))]
cat = collections.defaultdict(list); tot = []; totf = []
print(f"{'repo':16} {'lang':11} {'n':>3} {'chunk':>6} {'file':>6}")
for name, lang in rows:
    p = os.path.join(d, name + ".json")
    if not os.path.getsize(p):  # nothing labelled is indexed: the repo scores 0
        tot.append(0.0); totf.append(0.0)
        print(f"{name:16} {lang:11} {'-':>3} {0:6.3f} {0:6.3f}  (eval failed)")
        continue
    r = json.load(open(p))
    o = r["overall"]
    tot.append(o["ndcg10_chunk"]); totf.append(o["ndcg10_file"])
    for c, m in r["by_category"].items():
        cat[c].append(m["ndcg10_chunk"])
    print(f"{name:16} {lang:11} {o['n']:3d} {o['ndcg10_chunk']:6.3f} {o['ndcg10_file']:6.3f}")
print(f"{'overall':16} {'':11} {len(tot):3d} {sum(tot)/len(tot):6.3f} {sum(totf)/len(totf):6.3f}")
for c in sorted(cat):
    print(f"  {c:14} chunk {sum(cat[c])/len(cat[c]):.3f}")
PY
