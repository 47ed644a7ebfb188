#!/usr/bin/python3
"""train.py trains the static code embedding model from the pairs train/cmd/mine wrote.

Model (what internal/embed/static computes at run time):
    vec(text, side) = normalise( sum_t (1 + ln tf_t) * w_side[t] * E[t] )
over the text's distinct token rows t, with a table E of (nvocab + nbuckets) x dim and two
learned positive per-token weights w_query, w_doc (w = exp(raw), raw initialised from the
token's inverse document frequency). Loss: symmetric InfoNCE with in-batch negatives
(van den Oord et al., 2018; CLIP's form) between a query and its code, with a learned
temperature. Each token of a training text is left out with probability --token-dropout, so the
table cannot memorise the pairs. A share --template-rate of the queries get the words of a random question template
("where is the code that", "which function"; the miner's qt side) added, so the query weights learn
that the words people wrap a question in say nothing of the code. Name pairs weigh --name-weight against doc pairs (the name's words are
what BM25 already matches; the doc's words are what a reader asks with), comment pairs (an inline comment and the
lines it introduces) --comment-weight. A share --cluster of each
batch is drawn from a package-grouped order, so part of the in-batch negatives are functions of the
same packages: same domain and vocabulary, the near misses a search must tell apart (hard
negatives by construction, as in-batch negatives from one repository). With --hard-neg, each query
also meets one mined hard negative: at the start of every epoch each query is scored against the
codes of its own package by the model as it stands, and one of its --hard-top best codes that is
not its own (nor the same code under another pair) joins the batch as a column of the query's
softmax (ANCE, Xiong et al., 2021, mined within the package; at the first epoch the model is its
initialisation, a random projection of IDF-weighted bags of words, so those are lexical hard
negatives as in DPR, Karpukhin et al., 2020). Plus, at weight --zh-weight, the same loss between each Chinese word's row and the
pooled rows of its English senses (weights from zh.Senses), so Chinese words live in the space of
the code words they mean. Training is full-batch-shuffled epochs, SparseAdam on the table and
weights. After training a Chinese word's weights are set to the sense-weighted mean of its sense
tokens' weights (a single-token loss leaves them undetermined).

Determinism: one seed drives torch and numpy; torch runs with a fixed thread count and
deterministic algorithms, so the same pairs and seed give the same float32 files, byte for byte.

Writes to --out: table.f32 (rows x dim, row-major), wdoc.f32, wquery.f32, train.json (log).
CPU torch 1.13 (Debian python3-torch); run with /usr/bin/python3.
"""
import argparse
import hashlib
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F


def load_side(d, name):
    ids = np.fromfile(os.path.join(d, name + ".ids"), dtype="<i4")
    w = np.fromfile(os.path.join(d, name + ".w"), dtype="<f4")
    off = np.fromfile(os.path.join(d, name + ".off"), dtype="<i8")
    return ids, w, off


def batch(side, idx, tfmode, extra=None):
    """Flattened ids, per-sample multipliers and bag offsets of the texts idx. extra, when given,
    is a (side, choice) pair: text k of the batch also gets the tokens of text choice[k] of that
    side (choice[k] < 0: nothing), a token already in the text keeping its own count."""
    ids, w, off = side
    if extra is None:
        starts, ends = off[idx], off[idx + 1]
        lens = ends - starts
        sel = np.concatenate([np.arange(s, e) for s, e in zip(starts, ends)]) if len(idx) else np.zeros(0, dtype=np.int64)
        bag_off = np.concatenate([[0], np.cumsum(lens)[:-1]])
        out_ids, mult = ids[sel], w[sel]
    else:
        (xids, xw, xoff), choice = extra
        parts_i, parts_w, lens = [], [], []
        for k, i in enumerate(idx):
            a_i, a_w = ids[off[i]:off[i + 1]], w[off[i]:off[i + 1]]
            c = choice[k]
            if c >= 0:
                b_i, b_w = xids[xoff[c]:xoff[c + 1]], xw[xoff[c]:xoff[c + 1]]
                keep = ~np.isin(b_i, a_i)
                a_i, a_w = np.concatenate([a_i, b_i[keep]]), np.concatenate([a_w, b_w[keep]])
            parts_i.append(a_i)
            parts_w.append(a_w)
            lens.append(len(a_i))
        out_ids, mult = np.concatenate(parts_i), np.concatenate(parts_w)
        bag_off = np.concatenate([[0], np.cumsum(lens)[:-1]])
    if tfmode:
        mult = 1.0 + np.log(mult)
    return torch.from_numpy(out_ids.astype(np.int64)), torch.from_numpy(mult.astype(np.float32)), torch.from_numpy(np.asarray(bag_off, dtype=np.int64))


def drop_tokens(rng, ids, mult, off, p):
    """Token dropout: each token of a bag is left out with probability p (its multiplier set to
    0), never a bag's first token, so no text goes empty. A bag-of-words table otherwise
    memorises its training pairs (held-out MRR fell in a third epoch while the loss halved);
    a text seen each epoch with other words missing has to be matched by its meaning."""
    if p <= 0 or len(ids) == 0:
        return ids, mult, off
    keep = rng.random_sample(len(ids)) >= p
    starts = off.numpy()
    keep[starts[starts < len(ids)]] = True
    return ids, mult * torch.from_numpy(keep.astype(np.float32)), off


class Model(torch.nn.Module):
    def __init__(self, n, dim, raw_init, seed):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.E = torch.nn.Embedding(n, dim, sparse=True)
        with torch.no_grad():
            self.E.weight.copy_(torch.randn(n, dim, generator=g) * (1.0 / math.sqrt(dim)))
        self.wq = torch.nn.Embedding(n, 1, sparse=True)
        self.wd = torch.nn.Embedding(n, 1, sparse=True)
        with torch.no_grad():
            self.wq.weight.copy_(torch.from_numpy(raw_init).unsqueeze(1))
            self.wd.weight.copy_(torch.from_numpy(raw_init).unsqueeze(1))
        self.logit_scale = torch.nn.Parameter(torch.tensor(math.log(20.0)))

    def pool(self, ids, mult, off, wemb):
        if wemb is None:
            psw = mult
        else:
            psw = mult * torch.exp(wemb(ids).squeeze(1).clamp(-6, 4))
        v = F.embedding_bag(ids, self.E.weight, off, mode="sum", per_sample_weights=psw, sparse=True)
        return F.normalize(v, dim=1, eps=1e-8)


def infonce(q, d, scale, w=None, hard=None, same=None):
    """Symmetric InfoNCE over in-batch negatives; w weighs each pair's two terms (None: 1 each).
    hard (m x dim, or None) are extra codes every query is also scored against (the mined hard
    negatives): columns of the query-to-code softmax only, never rows of the code-to-query one.
    same (n x m bool, or None) marks the extra codes that are a query's own code (another query's
    hard negative can be this query's positive under another pair): those columns are left out
    of that query's softmax."""
    logits = scale * q @ d.t()
    lab = torch.arange(q.shape[0])
    lq = logits
    if hard is not None:
        extra = scale * q @ hard.t()
        if same is not None:
            extra = extra.masked_fill(same, float("-inf"))
        lq = torch.cat([logits, extra], dim=1)
    if w is None:
        return 0.5 * (F.cross_entropy(lq, lab) + F.cross_entropy(logits.t(), lab))
    l = F.cross_entropy(lq, lab, reduction="none") + F.cross_entropy(logits.t(), lab, reduction="none")
    return 0.5 * (l * w).sum() / w.sum()


def code_keys(td):
    """One 64-bit key per pair's code side (its token ids and counts): a doc pair and a name pair
    of one function share their code, and must not be each other's negatives."""
    ids, w, off = td
    h = np.zeros(len(off) - 1, dtype=np.uint64)
    for k in range(len(off) - 1):
        a, b = off[k], off[k + 1]
        d = hashlib.blake2b(ids[a:b].tobytes(), digest_size=8)
        d.update(w[a:b].tobytes())
        h[k] = np.frombuffer(d.digest(), dtype="<u8")[0]
    return h


def mine_hard(model, tq, td, pkg, keys, top, rng, block=4096):
    """For every pair, one hard negative: a pair index of the same package whose code the model
    (as it stands, no dropout) scores among the query's `top` best codes that are not its own
    code (keys differ), drawn uniformly among them; -1 when the package has no other code."""
    n = len(tq[2]) - 1
    qv = torch.zeros(n, model.E.weight.shape[1])
    dv = torch.zeros(n, model.E.weight.shape[1])
    with torch.no_grad():
        for a in range(0, n, block):
            idx = np.arange(a, min(a + block, n))
            qv[idx] = model.pool(*batch(tq, idx, True), model.wq)
            dv[idx] = model.pool(*batch(td, idx, True), model.wd)
    hard = np.full(n, -1, dtype=np.int64)
    order = np.argsort(pkg, kind="stable")
    bounds = np.flatnonzero(np.diff(pkg[order])) + 1
    for members in np.split(order, bounds):
        if len(members) < 2:
            continue
        mk = keys[members]
        dm = dv[members]
        rb = max(1, min(block, 16_000_000 // len(members)))  # at most 16M scores (64 MB) at once
        for a in range(0, len(members), rb):
            rows = members[a:a + rb]
            with torch.no_grad():
                s = (qv[rows] @ dm.t()).numpy()
            s[keys[rows][:, None] == mk[None, :]] = -np.inf  # its own code, under any pair
            k = min(top, len(members) - 1)
            best = np.argpartition(-s, k - 1, axis=1)[:, :k]
            pick = best[np.arange(len(rows)), rng.randint(0, k, size=len(rows))]
            ok = np.isfinite(s[np.arange(len(rows)), pick])
            hard[rows] = np.where(ok, members[pick], -1)
    return hard


def epoch_batches(rng, npairs, bsize, pkg, cluster):
    """The batches of one epoch, as index arrays. A share cluster of each batch comes from a
    package-grouped order (packages shuffled, pairs shuffled within each), so those in-batch
    negatives are pairs of the same few packages: same domain and vocabulary, harder to tell
    apart than random ones. The rest comes from a uniform shuffle; a pair drawn by both is kept
    once. cluster 0 (or no package file) is a plain shuffle."""
    perm = rng.permutation(npairs)
    steps = npairs // bsize
    if pkg is None or cluster <= 0:
        return [perm[s * bsize:(s + 1) * bsize] for s in range(steps)]
    ngroups = int(pkg.max()) + 1
    gorder = rng.permutation(ngroups)
    rank = np.empty(ngroups, dtype=np.int64)
    rank[gorder] = np.arange(ngroups)
    jitter = rng.random_sample(npairs)
    grouped = np.lexsort((jitter, rank[pkg]))
    bc = int(round(bsize * cluster))
    br = bsize - bc
    out = []
    for s in range(steps):
        idx = np.concatenate([grouped[s * bc:(s + 1) * bc], perm[s * br:(s + 1) * br]])
        _, first = np.unique(idx, return_index=True)
        out.append(idx[np.sort(first)])
    border = rng.permutation(len(out))
    return [out[i] for i in border]


def mrr10(model, hq, hd, n):
    """MRR@10 of the first n held-out pairs, each query against all n codes."""
    idx = np.arange(n)
    with torch.no_grad():
        q = model.pool(*batch(hq, idx, True), model.wq)
        d = model.pool(*batch(hd, idx, True), model.wd)
        s = q @ d.t()
        diag = s.diagonal().unsqueeze(1)
        rank = (s > diag).sum(1) + 1
        rr = torch.where(rank <= 10, 1.0 / rank.float(), torch.zeros_like(rank, dtype=torch.float))
    return float(rr.mean())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--wlr", type=float, default=0.01)
    ap.add_argument("--zh-weight", type=float, default=0.5)
    ap.add_argument("--zh-batch", type=int, default=512)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cluster", type=float, default=0.0,
                    help="share of each batch drawn from a package-grouped order (hard in-batch negatives)")
    ap.add_argument("--token-dropout", type=float, default=0.0,
                    help="probability of leaving each token out of a training text (both sides)")
    ap.add_argument("--template-rate", type=float, default=0.0,
                    help="share of training queries wrapped in a random question template (qt side)")
    ap.add_argument("--name-weight", type=float, default=1.0,
                    help="loss weight of name pairs relative to doc pairs")
    ap.add_argument("--comment-weight", type=float, default=1.0,
                    help="loss weight of comment pairs (an inline comment and the lines it introduces) relative to doc pairs")
    ap.add_argument("--hard-neg", type=int, default=0,
                    help="1: every query also meets one hard negative mined in its package at each epoch's start")
    ap.add_argument("--hard-top", type=int, default=5,
                    help="the hard negative is drawn among the query's this many best other codes")
    a = ap.parse_args()

    t0 = time.time()
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    torch.use_deterministic_algorithms(True)
    rng = np.random.RandomState(a.seed)
    meta = json.load(open(os.path.join(a.data, "meta.json")))
    n = meta["nvocab"] + meta["nbuckets"]
    nzh = meta["nchinese"]
    tq, td = load_side(a.data, "tq"), load_side(a.data, "td")
    zq, zd = load_side(a.data, "zq"), load_side(a.data, "zd")
    hq, hd = load_side(a.data, "hq"), load_side(a.data, "hd")
    qt = load_side(a.data, "qt") if os.path.exists(os.path.join(a.data, "qt.ids")) else None
    nqt = len(qt[2]) - 1 if qt is not None else 0
    npairs = len(tq[2]) - 1
    pkg = kind = None
    if os.path.exists(os.path.join(a.data, "tg.pkg")):
        pkg = np.fromfile(os.path.join(a.data, "tg.pkg"), dtype="<i4").astype(np.int64)
        kind = np.fromfile(os.path.join(a.data, "tg.kind"), dtype="u1")
        assert len(pkg) == npairs and len(kind) == npairs, "tg.pkg/tg.kind do not match the pairs"
    pw = None
    if kind is not None and (a.name_weight != 1.0 or a.comment_weight != 1.0):
        pw = np.choose(np.minimum(kind, 2), [1.0, a.name_weight, a.comment_weight]).astype(np.float32)
    nz = len(zq[2]) - 1
    nheld = min(len(hq[2]) - 1, 2000)
    # idf initialisation of the raw weights
    df = np.bincount(np.concatenate([tq[0], td[0]]), minlength=n).astype(np.float64)
    idf = np.log((2 * npairs + 1) / (df + 1))
    raw = np.log(np.maximum(idf / max(idf[df > 0].mean(), 1e-6), 0.05)).astype(np.float32)
    model = Model(n, a.dim, raw, a.seed)
    opt = torch.optim.SparseAdam([model.E.weight], lr=a.lr)
    optw = torch.optim.SparseAdam([model.wq.weight, model.wd.weight], lr=a.wlr)
    opts = torch.optim.Adam([model.logit_scale], lr=0.01)
    log = {"pairs": npairs, "chinese_pairs": nz, "rows": n, "dim": a.dim, "args": vars(a), "epochs": []}
    print(f"train: {npairs} pairs, {nz} Chinese pairs, {n} rows x {a.dim}; held-out MRR@10 at start "
          f"{mrr10(model, hq, hd, nheld):.4f} ({nheld} pairs)", file=sys.stderr, flush=True)
    if a.hard_neg and pkg is None:
        sys.exit("train: --hard-neg needs the pairs' packages (tg.pkg, written by train/cmd/mine)")
    keys = code_keys(td) if a.hard_neg else None
    steps = npairs // a.batch
    total = steps * a.epochs
    step = 0
    for ep in range(a.epochs):
        te = time.time()
        batches = epoch_batches(rng, npairs, a.batch, pkg, a.cluster)
        hard = None
        if keys is not None:
            tm = time.time()
            hard = mine_hard(model, tq, td, pkg, keys, a.hard_top, rng)
            print(f"train: epoch {ep + 1} hard negatives for {int((hard >= 0).sum())} of {npairs} pairs "
                  f"in {time.time() - tm:.0f}s", file=sys.stderr, flush=True)
        zperm = rng.permutation(nz) if nz else None
        zpos = 0
        tot = 0.0
        for s, idx in enumerate(batches):
            frac = step / max(total, 1)
            lr = a.lr * (0.5 * (1 + math.cos(math.pi * frac)))  # cosine decay
            for o, base in ((opt, a.lr), (optw, a.wlr)):
                for gp in o.param_groups:
                    gp["lr"] = base * lr / a.lr
            extra = None
            if nqt and a.template_rate > 0:
                pick = rng.randint(0, nqt, size=len(idx))
                extra = (qt, np.where(rng.random_sample(len(idx)) < a.template_rate, pick, -1))
            q = model.pool(*drop_tokens(rng, *batch(tq, idx, True, extra), a.token_dropout), model.wq)
            d = model.pool(*drop_tokens(rng, *batch(td, idx, True), a.token_dropout), model.wd)
            scale = model.logit_scale.exp().clamp(max=100)
            hv = same = None
            if hard is not None:
                hi = hard[idx]
                hi = hi[hi >= 0]
                if len(hi):
                    hv = model.pool(*drop_tokens(rng, *batch(td, hi, True), a.token_dropout), model.wd)
                    same = torch.from_numpy(keys[idx][:, None] == keys[hi][None, :])
            loss = infonce(q, d, scale, None if pw is None else torch.from_numpy(pw[idx]), hv, same)
            if nz and a.zh_weight > 0:
                if zpos + a.zh_batch > nz:
                    zperm, zpos = rng.permutation(nz), 0
                zi = zperm[zpos:zpos + a.zh_batch]
                zpos += a.zh_batch
                zqv = model.pool(*batch(zq, zi, False), None)
                zdv = model.pool(*batch(zd, zi, False), model.wd)
                loss = loss + a.zh_weight * infonce(zqv, zdv, scale)
            opt.zero_grad()
            optw.zero_grad()
            opts.zero_grad()
            loss.backward()
            opt.step()
            optw.step()
            opts.step()
            tot += float(loss)
            step += 1
            if step % 50 == 0:
                print(f"train: step {step}/{total} loss {tot / (s + 1):.4f} {time.time() - t0:.0f}s", file=sys.stderr, flush=True)
        m = mrr10(model, hq, hd, nheld)
        rec = {"epoch": ep + 1, "loss": tot / max(steps, 1), "heldout_mrr10": m,
               "scale": float(model.logit_scale.exp()), "seconds": round(time.time() - te, 1)}
        log["epochs"].append(rec)
        print("train:", json.dumps(rec), file=sys.stderr, flush=True)

    with torch.no_grad():
        E = model.E.weight.detach().numpy().astype("<f4")
        wq = np.exp(np.clip(model.wq.weight.detach().numpy()[:, 0], -6, 4)).astype("<f4")
        wd = np.exp(np.clip(model.wd.weight.detach().numpy()[:, 0], -6, 4)).astype("<f4")
    # Chinese words take the sense-weighted mean of their senses' weights
    zids, zw, zoff = zd
    for k in range(nz):
        row = zq[0][zq[2][k]]
        s, e = zoff[k], zoff[k + 1]
        ww = zw[s:e]
        wq[row] = float((wq[zids[s:e]] * ww).sum() / ww.sum())
        wd[row] = float((wd[zids[s:e]] * ww).sum() / ww.sum())
    # Chinese words without an aligned sense are not rows of the vocabulary; rows never trained
    # (no occurrence) keep their random init and weight, which only hash collisions reach.
    os.makedirs(a.out, exist_ok=True)
    E.tofile(os.path.join(a.out, "table.f32"))
    wq.tofile(os.path.join(a.out, "wquery.f32"))
    wd.tofile(os.path.join(a.out, "wdoc.f32"))
    log["seconds"] = round(time.time() - t0, 1)
    json.dump(log, open(os.path.join(a.out, "train.json"), "w"), indent=2)
    print(f"train: done in {log['seconds']}s", file=sys.stderr)


if __name__ == "__main__":
    main()
