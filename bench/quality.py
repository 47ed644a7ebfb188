#!/usr/bin/env python3
"""Every quality figure of one coderag binary, in one run.

usage: bench/quality.py CODERAG WORK_DIR [--reindex] [--only SETS] [--set P=V,...] [--env K=V ...]

Indexes each corpus into its own CODERAG_HOME under WORK_DIR (kept, so a
second binary with the same embedder can reuse it only when --reindex is not
given and the index is the binary's own: give each binary its own WORK_DIR),
then scores with `coderag eval --json`:

  semble   the semble benchmark's dev subset (shared/bench/semble, repos under
           $SEMBLE_REPOS, default /tmp/semble/repos): chunk NDCG@10 overall,
           per category and the lowest language
  golden   shared/golden: Go stdlib ($(go env GOROOT)/src), JDK ($JDK_SRC,
           default /tmp/golden/jdk), CPython stdlib ($PY_STDLIB, default
           /tmp/golden/py): MRR@10, and MRR@10 of the Chinese queries
  fresh    testdata/fresh-bench: file-labelled sets over 11 repos under
           $FRESH (default /tmp/fresh): chunk NDCG@10
  zh       testdata/zh-fresh: Chinese golden sets: MRR@10
  func     testdata/fresh-func: function-level golden sets over 5 repos under
           $FRESH: MRR@10 in English and in Chinese
  func2    testdata/fresh-func2: a second function-level set over 5 other repos
           (yaml, commons-text, gorilla/websocket, boltons, CLI11) under
           $FRESH2 (default /tmp/fresh2): MRR@10 in English and in Chinese
  func3    testdata/fresh-func3: a third function-level set over 4 more repos
           (dentaku, league/csv, quick-xml, CommandLineParser: Ruby, PHP, Rust,
           C#) under $FRESH3 (default /tmp/fresh3): MRR@10 in English and in Chinese
  func4    testdata/fresh-func4: a fourth function-level set over 4 more repos
           (more-itertools, dayjs, go-humanize, tinyxml2: Python, JavaScript, Go,
           C++) under $FRESH4 (default /tmp/fresh4): MRR@10 in English and in Chinese
  func5    testdata/fresh-func5: a fifth function-level set over 4 more repos
           (klib, jsemver, colormath, msgpack-javascript: C, Java, Kotlin,
           TypeScript) under $FRESH5 (default /tmp/fresh5): MRR@10 in English and in Chinese
  func6    testdata/fresh-func6: a sixth function-level set over 4 more repos
           (expr, sqlparse, petgraph, luxon: Go, Python, Rust, JavaScript) under
           $FRESH6 (default /tmp/fresh6): MRR@10 in English and in Chinese
  func7    testdata/fresh-func7: a seventh function-level set over 4 more repos
           (lo, textwrap, swift-algorithms, validator.js: Go, Rust, Swift,
           JavaScript; half of its queries Chinese) under $FRESH7 (default
           /tmp/fresh7): MRR@10 in English and in Chinese
  func8    testdata/fresh-func8: an eighth function-level set over 4 more repos
           (dateparser, magic-string, java-diff-utils, libyaml: Python,
           TypeScript, Java, C; half of its queries Chinese) under $FRESH8
           (default /tmp/fresh8): MRR@10 in English and in Chinese
  func9    testdata/fresh-func9: a ninth function-level set over 4 more repos
           (gobwas/glob, rstar, opentype.js, deepdiff: Go, Rust, JavaScript,
           Python; 8 of 20 queries Chinese in each) under $FRESH9 (default
           /tmp/fresh9): MRR@10 in English and in Chinese
  func10   testdata/fresh-func10: a tenth function-level set over 4 more repos
           (rgl, ip-lib, Cronos, jsondiffpatch: Ruby, PHP, C#, TypeScript; 8 of
           20 queries Chinese in each) under $FRESH10 (default /tmp/fresh10):
  func11   testdata/fresh-func11: an eleventh function-level set over 4 more repos (Go, Python,
           Rust, Java; 8 of 20 queries Chinese in each) under $FRESH11 (default /tmp/fresh11)
           MRR@10 in English and in Chinese
  func12   testdata/fresh-func12: a twelfth function-level set over 4 more repos (TypeScript, C,
           PHP, C#; 8 of 20 queries Chinese in each) under $FRESH12 (default /tmp/fresh12)
  func13   testdata/fresh-func13: a thirteenth function-level set over 4 more repos (Python, Go,
           Rust, Ruby; 8 of 20 queries Chinese in each) under $FRESH13 (default /tmp/fresh13)

--set P=V,... is passed to `coderag eval --set` (ranking params, e.g.
Semantic=0.3). --env K=V is passed to every coderag process (EMBEDDING_MODEL=... for an
ablation). Prints one table; writes WORK_DIR/quality.json and WORK_DIR/per_query.json
(each query's rank or NDCG, which bench/qdiff.py compares between two runs).
"""
import json, os, subprocess, sys, collections

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
shared = os.environ.get("SHARED", os.path.join(root, "..", "shared"))
semble_dir = os.path.join(shared, "bench", "semble")
semble_repos = os.environ.get("SEMBLE_REPOS", "/tmp/semble/repos")
fresh = os.environ.get("FRESH", "/tmp/fresh")
fresh2 = os.environ.get("FRESH2", "/tmp/fresh2")
fresh3 = os.environ.get("FRESH3", "/tmp/fresh3")
fresh4 = os.environ.get("FRESH4", "/tmp/fresh4")
fresh5 = os.environ.get("FRESH5", "/tmp/fresh5")
fresh6 = os.environ.get("FRESH6", "/tmp/fresh6")
fresh7 = os.environ.get("FRESH7", "/tmp/fresh7")
fresh8 = os.environ.get("FRESH8", "/tmp/fresh8")
fresh9 = os.environ.get("FRESH9", "/tmp/fresh9")
fresh10 = os.environ.get("FRESH10", "/tmp/fresh10")
fresh11 = os.environ.get("FRESH11", "/tmp/fresh11")
fresh12 = os.environ.get("FRESH12", "/tmp/fresh12")
fresh13 = os.environ.get("FRESH13", "/tmp/fresh13")
goroot = subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True).stdout.strip()
jdk = os.environ.get("JDK_SRC", "/tmp/golden/jdk")
py = os.environ.get("PY_STDLIB", "/tmp/golden/py")

args = sys.argv[1:]
if len(args) < 2:
    sys.exit(__doc__)
binary, work = os.path.abspath(args[0]), os.path.abspath(args[1])
reindex = "--reindex" in args
only = None
extra_env = {}
eval_set = []
i = 2
while i < len(args):
    if args[i] == "--only":
        only = set(args[i + 1].split(",")); i += 2; continue
    if args[i] == "--set":
        eval_set = ["--set", args[i + 1]]; i += 2; continue
    if args[i] == "--env":
        k, v = args[i + 1].split("=", 1); extra_env[k] = v; i += 2; continue
    i += 1
os.makedirs(work, exist_ok=True)


def run_eval(home_name, project, setfile):
    home = os.path.join(work, "home-" + home_name)
    env = dict(os.environ, CODERAG_HOME=home, EMBEDDING_PROVIDER="", **extra_env)
    if reindex or not os.path.isdir(home):
        os.makedirs(home, exist_ok=True)
        subprocess.run([binary, "index", project], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    p = subprocess.run([binary, "eval", "--json", *eval_set, "--project", project, setfile], env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        print(f"  {home_name} {os.path.basename(setfile)}: eval failed: {p.stderr.strip()[:200]}", file=sys.stderr)
        return None
    res = json.loads(p.stdout)
    # per query, for bench/qdiff.py: a golden set's rank of the first hit
    # (0: not in the top 10), a file-labelled set's chunk NDCG@10 of each
    # query below 1 (a query not listed scored 1)
    key = home_name + ":" + os.path.basename(setfile)
    if "ranks" in res:
        per_query[key] = {"kind": "rank", "values": res["ranks"],
                          "queries": {m["id"]: m["query"] for m in res.get("misses") or []}}
    else:
        per_query[key] = {"kind": "ndcg", "values": {m["query"]: m["ndcg10_chunk"] for m in res.get("misses") or []}}
    return res


out = {}
per_query = {}
lines = []

if only is None or "semble" in only:
    repos = json.load(open(os.path.join(semble_dir, "repos.json")))
    per, cat, lang = {}, collections.defaultdict(list), {}
    for r in repos:
        proj = os.path.join(semble_repos, r["name"], r.get("benchmark_root") or "")
        res = run_eval("semble-" + r["name"], proj.rstrip("/"), os.path.join(semble_dir, "annotations", r["name"] + ".json"))
        s = res["overall"]["ndcg10_chunk"] if res else 0.0
        per[r["name"]] = s
        lang[r["language"]] = s
        if res:
            for c, m in res["by_category"].items():
                cat[c].append(m["ndcg10_chunk"])
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0
    low = min(lang.items(), key=lambda kv: kv[1])
    out["semble"] = {"overall": mean(list(per.values())), "by_category": {c: mean(v) for c, v in cat.items()},
                     "per_repo": per, "lowest_language": low}
    s = out["semble"]
    lines.append(f"semble dev  overall {s['overall']:.3f}  " +
                 "  ".join(f"{c} {v:.3f}" for c, v in sorted(s['by_category'].items())) +
                 f"  lowest {low[0]} {low[1]:.3f}")
    lines.append("  " + " ".join(f"{k}={v:.3f}" for k, v in per.items()))

if only is None or "golden" in only:
    g = {}
    for name, proj, setf in [("go", os.path.join(goroot, "src"), "go-stdlib.json"),
                             ("java", jdk, "java-jdk.json"), ("py", py, "python-stdlib.json")]:
        res = run_eval("golden-" + name, proj, os.path.join(shared, "golden", setf))
        if not res:
            continue
        zh = res.get("by_lang", {}).get("zh", {})
        g[name] = {"mrr": res["overall"]["mrr_at_10"], "r1": res["overall"]["recall_at_1"],
                   "r5": res["overall"]["recall_at_5"], "zh": zh.get("mrr_at_10"), "zh_n": zh.get("n", 0)}
    out["golden"] = g
    lines.append("golden      " + "  ".join(
        f"{k} {v['mrr']:.3f} (zh {v['zh']:.3f}/{v['zh_n']})" if v['zh'] is not None else f"{k} {v['mrr']:.3f}"
        for k, v in g.items()))

fresh_roots = {"jsoup": "jsoup/src/main/java", "hono": "hono/src"}
if only is None or "fresh" in only:
    f = {}
    for setf in sorted(os.listdir(os.path.join(root, "testdata", "fresh-bench"))):
        if not setf.endswith(".json"):
            continue
        n = setf[:-5]
        res = run_eval("fresh-" + n, os.path.join(fresh, fresh_roots.get(n, n)), os.path.join(root, "testdata", "fresh-bench", setf))
        f[n] = res["overall"]["ndcg10_chunk"] if res else 0.0
    out["fresh"] = {"per_repo": f, "mean": sum(f.values()) / len(f)}
    lines.append(f"fresh-bench mean {out['fresh']['mean']:.3f}  " + " ".join(f"{k}={v:.3f}" for k, v in f.items()))

zh_roots = {"gin": os.path.join(semble_repos, "gin"), "axios": os.path.join(semble_repos, "axios", "lib"),
            "gson": os.path.join(semble_repos, "gson", "gson"), "fastapi": os.path.join(semble_repos, "fastapi", "fastapi"),
            "sinatra": os.path.join(semble_repos, "sinatra", "lib"), "go-more": os.path.join(goroot, "src")}
zh_homes = {"go-more": "golden-go"}
if only is None or "zh" in only:
    z, n_all, rr = {}, 0, 0.0
    for n, proj in zh_roots.items():
        res = run_eval(zh_homes.get(n, "zh-" + n), proj, os.path.join(root, "testdata", "zh-fresh", n + ".json"))
        if res:
            z[n] = res["overall"]["mrr_at_10"]
            n_all += res["overall"]["n"]; rr += res["overall"]["mrr_at_10"] * res["overall"]["n"]
    out["zh"] = {"per_set": z, "mean": rr / n_all if n_all else 0.0}
    lines.append(f"zh-fresh    all {out['zh']['mean']:.3f}  " + " ".join(f"{k}={v:.3f}" for k, v in z.items()))

def func_sets(name, label, base, setdir, roots):
    """Scores a function-level golden set (one JSON per repo under testdata/SETDIR, roots under
    BASE): MRR@10 per repo and, over all its queries, per language."""
    fu, agg = {}, collections.defaultdict(lambda: [0, 0.0])
    for n, r in roots.items():
        res = run_eval(name + "-" + n, os.path.join(base, r), os.path.join(root, "testdata", setdir, n + ".json"))
        if not res:
            continue
        fu[n] = {"mrr": res["overall"]["mrr_at_10"]}
        for l, m in res.get("by_lang", {}).items():
            fu[n][l] = m["mrr_at_10"]
            agg[l][0] += m["n"]; agg[l][1] += m["mrr_at_10"] * m["n"]
    out[name] = {"per_repo": fu, "by_lang": {l: v[1] / v[0] for l, v in agg.items()},
                 "n_by_lang": {l: v[0] for l, v in agg.items()}}
    lines.append(label + "  ".join(f"{l} {v:.3f}" for l, v in sorted(out[name]['by_lang'].items())) + "  " +
                 " ".join(f"{k}={v['mrr']:.3f}" for k, v in fu.items()))


if only is None or "func" in only:
    func_sets("func", "fresh-func  ", fresh, "fresh-func",
              {"toml": "toml", "click": "click/src/click", "node-semver": "node-semver", "bytes": "bytes", "cjson": "cJSON"})
if only is None or "func2" in only:
    func_sets("func2", "fresh-func2 ", fresh2, "fresh-func2",
              {"yaml": "yaml/src", "commons-text": "commons-text/src/main/java", "websocket": "websocket",
               "boltons": "boltons", "cli11": "CLI11"})

if only is None or "func3" in only:
    func_sets("func3", "fresh-func3 ", fresh3, "fresh-func3",
              {"dentaku": "dentaku", "league-csv": "csv/src", "quick-xml": "quick-xml",
               "commandline": "commandline/src/CommandLine"})

if only is None or "func4" in only:
    func_sets("func4", "fresh-func4 ", fresh4, "fresh-func4",
              {"more-itertools": "more-itertools/more_itertools", "dayjs": "dayjs/src",
               "go-humanize": "go-humanize", "tinyxml2": "tinyxml2"})

if only is None or "func5" in only:
    func_sets("func5", "fresh-func5 ", fresh5, "fresh-func5",
              {"klib": "klib", "jsemver": "jsemver", "colormath": "colormath",
               "msgpack-javascript": "msgpack-javascript"})

if only is None or "func6" in only:
    func_sets("func6", "fresh-func6 ", fresh6, "fresh-func6",
              {"expr": "expr", "sqlparse": "sqlparse", "petgraph": "petgraph", "luxon": "luxon"})

if only is None or "func7" in only:
    func_sets("func7", "fresh-func7 ", fresh7, "fresh-func7",
              {"lo": "lo", "textwrap": "textwrap", "swift-algorithms": "swift-algorithms",
               "validator": "validator"})

if only is None or "func8" in only:
    func_sets("func8", "fresh-func8 ", fresh8, "fresh-func8",
              {"dateparser": "dateparser", "magic-string": "magic-string", "java-diff-utils": "java-diff-utils",
               "libyaml": "libyaml"})

if only is None or "func9" in only:
    func_sets("func9", "fresh-func9 ", fresh9, "fresh-func9",
              {"glob": "glob", "rstar": "rstar", "opentype": "opentype.js", "deepdiff": "deepdiff"})

if only is None or "func10" in only:
    func_sets("func10", "fresh-func10 ", fresh10, "fresh-func10",
              {"rgl": "rgl", "ip-lib": "ip-lib", "cronos": "Cronos", "jsondiffpatch": "jsondiffpatch"})

if only is None or "func11" in only:
    func_sets("func11", "fresh-func11 ", fresh11, "fresh-func11",
              {"regexp2": "regexp2", "pypika": "pypika", "rpds": "rpds", "streamex": "streamex"})

if only is None or "func12" in only:
    func_sets("func12", "fresh-func12 ", fresh12, "fresh-func12",
              {"planck": "planck.js", "janet": "janet", "math-php": "math-php", "litedb": "LiteDB"})

if only is None or "func13" in only:
    func_sets("func13", "fresh-func13 ", fresh13, "fresh-func13",
              {"pendulum": "pendulum", "tengo": "tengo", "statrs": "statrs", "chunky_png": "chunky_png"})

def pooled(label, names):
    """MRR@10 of the queries of several function-level sets together, per language."""
    agg = collections.defaultdict(lambda: [0, 0.0])
    for n in names:
        for l, m in out.get(n, {}).get("by_lang", {}).items():
            k = out[n]["n_by_lang"][l]
            agg[l][0] += k; agg[l][1] += m * k
    if agg:
        lines.append(label + "  ".join(f"{l} {v[1] / v[0]:.3f} (n={v[0]})" for l, v in sorted(agg.items())))


pooled("func 1-4    ", ["func", "func2", "func3", "func4"])
pooled("func 1-5    ", ["func", "func2", "func3", "func4", "func5"])
pooled("func 1-6    ", ["func", "func2", "func3", "func4", "func5", "func6"])
pooled("func 1-7    ", ["func", "func2", "func3", "func4", "func5", "func6", "func7"])
pooled("func 1-8    ", ["func", "func2", "func3", "func4", "func5", "func6", "func7", "func8"])
pooled("func 1-9    ", ["func", "func2", "func3", "func4", "func5", "func6", "func7", "func8", "func9"])
pooled("func 1-10   ", ["func", "func2", "func3", "func4", "func5", "func6", "func7", "func8", "func9", "func10"])
pooled("func 1-12   ", ["func", "func2", "func3", "func4", "func5", "func6", "func7", "func8", "func9", "func10", "func11", "func12"])
pooled("func 1-13   ", ["func", "func2", "func3", "func4", "func5", "func6", "func7", "func8", "func9", "func10", "func11", "func12", "func13"])

json.dump(out, open(os.path.join(work, "quality.json"), "w"), indent=1)
json.dump(per_query, open(os.path.join(work, "per_query.json"), "w"), indent=1, ensure_ascii=False)
print("\n".join(lines))
