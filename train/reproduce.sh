#!/bin/bash
# reproduce.sh: make the shipped weights again, byte for byte, with the
# pipeline as it was when they were trained.
#
#   train/reproduce.sh        full run (about 60 min on 2 cores with the
#                             downloads in place; the first fetch adds ~25 min)
#
# The recipe is train/weights.recipe:
#   commit  the commit whose train/run.sh mined the pairs and trained the
#           members (one table per seed);
#   seeds   the members' seeds;
#   name    the model name pack writes into the merged weights.
#
# Why a commit: the miner parses with coderag's own chunker, so that training
# units are index units. Any later change to the units (internal/chunk,
# internal/analyze) changes the mined pairs, and so the weights, while the
# shipped table stays what it was; train/run.sh at any later commit trains
# the next model.
#
# What it does:
#   1. checks the commit out in a detached git worktree under
#      $CODERAG_TRAIN_DIR (default ~/.cache/coderag-train) and puts today's
#      train/fetch.sh in it (fetch only downloads and unpacks, and checks every
#      download's sha256 against the manifest, so a fetch fix cannot change
#      the corpus; the old one took serf's binary package for its source);
#   2. fetches the commit's manifest once, into the shared download
#      directories;
#   3. runs that tree's train/run.sh once per seed, side by side, each in its
#      own work directory (reproduce/seed-N) with the downloads shared (an
#      old run.sh ends in a hash check of its own, which a member other than
#      the one it shipped fails: its table is what counts);
#   4. merges the members' tables with today's pack (train/cmd/pack, merge.go)
#      and compares the sha256 with the shipped weights.bin.
# Exit 0 only when they are equal.
set -euo pipefail
cd "$(dirname "$0")/.."
HERE=$(pwd)
WORK=${CODERAG_TRAIN_DIR:-$HOME/.cache/coderag-train}
field() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ +/, ""); print }' train/weights.recipe; }
COMMIT=$(field commit) SEEDS=$(field seeds) NAME=$(field name)
[ -n "$COMMIT" ] && [ -n "$SEEDS" ] && [ -n "$NAME" ] || { echo "reproduce: train/weights.recipe needs commit, seeds and name lines" >&2; exit 1; }
git cat-file -e "$COMMIT^{commit}" 2>/dev/null || { echo "reproduce: commit $COMMIT (train/weights.recipe) is not in this clone; fetch the full history" >&2; exit 1; }
TREE=$WORK/reproduce/tree-${COMMIT:0:12}
mkdir -p "$WORK/dl" "$WORK/src" "$WORK/apt"
if [ ! -e "$TREE/.git" ]; then
  rm -rf "$TREE"
  git worktree add --detach "$TREE" "$COMMIT" >/dev/null
fi
cp train/fetch.sh "$TREE/train/fetch.sh"
if [ -d dict/node_modules ] && [ ! -e "$TREE/dict/node_modules" ]; then ln -s "$HERE/dict/node_modules" "$TREE/dict/node_modules"; fi
echo "== reproducing $NAME: the pipeline of $COMMIT, seeds $SEEDS ($(date -u +%H:%M:%S))"
train/fetch.sh "$TREE/train/manifest.tsv" "$WORK"
pids=() models=()
for s in $SEEDS; do
  W=$WORK/reproduce/seed-$s
  mkdir -p "$W"
  for d in dl src apt; do [ -e "$W/$d" ] || ln -s "$WORK/$d" "$W/$d"; done
  rm -rf "$W/run-full/model"
  # each member in a process group of its own (setsid), so that stopping
  # this script stops the member's whole run, its training included
  (cd "$TREE" && CODERAG_TRAIN_DIR=$W INSTALL=0 SMALL=0 SEED=$s exec setsid -w train/run.sh) > "$W/run.log" 2>&1 &
  pids+=($!) models+=("$W/run-full/model")
  echo "   seed $s: $W/run.log"
done
trap 'for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || true; done' EXIT
for p in "${pids[@]}"; do wait "$p" || true; done
trap - EXIT
for m in "${models[@]}"; do
  [ -s "$m/table.f32" ] || { echo "reproduce: no table in $m; see $(dirname "$(dirname "$m")")/run.log" >&2; exit 1; }
done
go build -o "$WORK/reproduce/pack" ./train/cmd/pack
first=$WORK/reproduce/seed-${SEEDS%% *}/run-full
OUT=$WORK/reproduce/weights.bin
"$WORK/reproduce/pack" -pairs "$first/pairs" -model "$(IFS=,; echo "${models[*]}")" -name "$NAME" -out "$OUT"
got=$(sha256sum "$OUT" | cut -d' ' -f1)
want=$(sha256sum internal/embed/static/weights.bin | cut -d' ' -f1)
if [ "$got" = "$want" ]; then
  echo "reproduce: $got equals the shipped internal/embed/static/weights.bin ($(date -u +%H:%M:%S))"
  exit 0
fi
echo "reproduce: made $got, the shipped weights.bin is $want" >&2
exit 1
