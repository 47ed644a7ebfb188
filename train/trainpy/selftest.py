#!/usr/bin/python3
"""selftest.py checks train.py on synthetic pairs (run by trainpy_test.go; needs torch and numpy).

Writes a small pair set in the miner's format (20 packages of 150 pairs; a code is 5 tokens of
its package's 20 and 3 shared ones; a query keeps about 60% of its code's tokens; every tenth
pair repeats the code of the pair before it, as a function's doc pair and name pair do), then:
  1. mines hard negatives with the initial model and checks each one: same package, not the
     query's own code under any pair, and more words shared with the query than a random code of
     the package (at initialisation the model is a random projection of IDF-weighted bags of
     words, so its hard negatives are lexical ones);
  2. trains twice with --hard-neg 1 and the same seed and checks the tables are byte-identical;
  3. checks the held-out MRR@10 after training is above 0.5 (the pairs are easy ones);
  4. checks that infonce leaves out of a query's softmax an extra code marked as its own.
Prints "ok" and exits 0, or raises.
"""
import hashlib, json, os, subprocess, sys, tempfile
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
import train as T  # noqa: E402


def side(d, name, texts):
    ids = np.concatenate([t for t in texts]).astype("<i4")
    off = np.concatenate([[0], np.cumsum([len(t) for t in texts])]).astype("<i8")
    ids.tofile(os.path.join(d, name + ".ids"))
    np.ones(len(ids), dtype="<f4").tofile(os.path.join(d, name + ".w"))
    off.tofile(os.path.join(d, name + ".off"))


def write_pairs(d):
    rng = np.random.RandomState(0)
    n, vocab = 3000, 500
    pkg = np.repeat(np.arange(20), n // 20)
    codes, queries = [], []
    for i in range(n):
        base = pkg[i] * 20
        c = np.unique(np.concatenate([rng.randint(base, base + 20, size=5), rng.randint(400, 500, size=3)]))
        if i % 10 == 1:
            c = codes[i - 1]  # the same function's name pair
        q = c[rng.rand(len(c)) < 0.6]
        codes.append(c)
        queries.append(q if len(q) else c[:1])
    side(d, "tq", queries)
    side(d, "td", codes)
    side(d, "hq", queries[::10])
    side(d, "hd", codes[::10])
    side(d, "zq", [np.array([1])])
    side(d, "zd", [np.array([2])])
    pkg.astype("<i4").tofile(os.path.join(d, "tg.pkg"))
    np.zeros(n, dtype="u1").tofile(os.path.join(d, "tg.kind"))
    json.dump({"nvocab": vocab, "nbuckets": 0, "nchinese": 1}, open(os.path.join(d, "meta.json"), "w"))
    return pkg


def main():
    with tempfile.TemporaryDirectory() as d:
        pkg = write_pairs(d)
        tq, td = T.load_side(d, "tq"), T.load_side(d, "td")
        keys = T.code_keys(td)
        assert len(np.unique(keys)) < len(keys), "the repeated codes share a key"
        model = T.Model(500, 64, np.zeros(500, dtype=np.float32), 1)
        hard = T.mine_hard(model, tq, td, pkg.astype(np.int64), keys, 5, np.random.RandomState(1))
        ok = hard >= 0
        assert ok.all(), "every package has other codes"
        assert (pkg[hard] == pkg).all(), "a hard negative from another package"
        assert (keys[hard] != keys).all(), "a hard negative is the query's own code"

        def words(s, i):
            ids, _, off = s
            return set(ids[off[i]:off[i + 1]].tolist())
        rng = np.random.RandomState(2)
        shared_hard = shared_rand = 0
        for i in range(0, len(pkg), 7):
            same = np.flatnonzero((pkg == pkg[i]) & (keys != keys[i]))
            r = same[rng.randint(len(same))]
            q = words(tq, i)
            shared_hard += len(q & words(td, hard[i]))
            shared_rand += len(q & words(td, r))
        assert shared_hard > 1.5 * shared_rand, f"hard negatives share {shared_hard} words, random ones {shared_rand}"

        # an extra code that is the query's own code under another pair leaves its softmax
        import torch
        torch.manual_seed(0)
        q = torch.nn.functional.normalize(torch.randn(4, 8), dim=1)
        c = torch.nn.functional.normalize(torch.randn(4, 8), dim=1)
        other = torch.nn.functional.normalize(torch.randn(1, 8), dim=1)
        hard = torch.cat([c[1:2], other])  # query 1's own code, and a real negative
        same = torch.tensor([[False, False], [True, False], [False, False], [False, False]])
        masked = T.infonce(q, c, 10.0, hard=hard, same=same)
        alone = T.infonce(q, c, 10.0, hard=other)
        # query 1 meets only the real negative; the others meet both columns
        lq = torch.cat([10.0 * q @ c.t(), 10.0 * q @ hard.t()], dim=1)
        lq[1, 4] = float("-inf")
        ref = 0.5 * (torch.nn.functional.cross_entropy(lq, torch.arange(4)) +
                     torch.nn.functional.cross_entropy(10.0 * c @ q.t(), torch.arange(4)))
        assert torch.allclose(masked, ref), f"masked {masked} != {ref}"
        assert not torch.allclose(masked, alone), "the mask must act on query 1 only"

        sums, logs = [], []
        for run in range(2):
            out = os.path.join(d, f"out{run}")
            subprocess.run([sys.executable, os.path.join(os.path.dirname(here), "train.py"), "--data", d, "--out", out,
                            "--dim", "64", "--epochs", "2", "--batch", "256", "--cluster", "0.5", "--hard-neg", "1"],
                           check=True, capture_output=True)
            sums.append(hashlib.sha256(open(os.path.join(out, "table.f32"), "rb").read()).hexdigest())
            logs.append(json.load(open(os.path.join(out, "train.json"))))
        assert sums[0] == sums[1], f"two runs with one seed differ: {sums}"
        m = [e["heldout_mrr10"] for e in logs[0]["epochs"]]
        print(f"hard negatives share {shared_hard} words with their queries, random codes {shared_rand}; "
              f"held-out MRR@10 by epoch {m}; table sha256 {sums[0][:16]}")
        assert m[-1] > 0.5, f"training did not learn: {m}"
    print("ok")


if __name__ == "__main__":
    main()
