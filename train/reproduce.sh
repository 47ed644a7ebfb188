#!/bin/bash
# reproduce.sh: make the shipped weights again, byte for byte, with the
# pipeline as it was when they were trained.
#
#   train/reproduce.sh        full run (about 35 min on 2 cores with the
#                             downloads in place; the first fetch adds ~25 min)
#
# Why a commit: the miner parses with coderag's own chunker, so that training
# units are index units. Any later change to the units (internal/chunk,
# internal/analyze) changes the mined pairs, and so the weights, while the
# shipped table stays what it was. train/weights.commit names the commit
# whose train/run.sh made internal/embed/static/weights.bin; train/run.sh at
# any later commit trains the next model.
#
# What it does: checks that commit out in a detached git worktree under
# $CODERAG_TRAIN_DIR (default ~/.cache/coderag-train), puts today's
# train/fetch.sh in it (fetch only downloads and unpacks, and checks every
# download's sha256 against the manifest, so a fetch fix cannot change the
# corpus; the old one took serf's binary package for its source), runs that
# tree's train/run.sh with the downloads shared, and compares the sha256 of
# what it made with the shipped weights.bin. Exit 0 only when they are equal.
set -euo pipefail
cd "$(dirname "$0")/.."
HERE=$(pwd)
WORK=${CODERAG_TRAIN_DIR:-$HOME/.cache/coderag-train}
COMMIT=$(tr -d ' \n' < train/weights.commit)
git cat-file -e "$COMMIT^{commit}" 2>/dev/null || { echo "reproduce: commit $COMMIT (train/weights.commit) is not in this clone; fetch the full history" >&2; exit 1; }
TREE=$WORK/reproduce/tree-${COMMIT:0:12}
REPRO=$WORK/reproduce/work
mkdir -p "$WORK/dl" "$WORK/src" "$WORK/apt" "$REPRO"
for d in dl src apt; do [ -e "$REPRO/$d" ] || ln -s "$WORK/$d" "$REPRO/$d"; done
if [ ! -e "$TREE/.git" ]; then
  rm -rf "$TREE"
  git worktree add --detach "$TREE" "$COMMIT" >/dev/null
fi
cp train/fetch.sh "$TREE/train/fetch.sh"
if [ -d dict/node_modules ] && [ ! -e "$TREE/dict/node_modules" ]; then ln -s "$HERE/dict/node_modules" "$TREE/dict/node_modules"; fi
echo "== reproducing the weights of $COMMIT in $TREE"
status=0
(cd "$TREE" && CODERAG_TRAIN_DIR=$REPRO INSTALL=0 SMALL=0 train/run.sh) || status=$?
got=$(cut -d' ' -f1 "$REPRO/run-full/weights.sha256" 2>/dev/null || true)
want=$(sha256sum internal/embed/static/weights.bin | cut -d' ' -f1)
if [ -n "$got" ] && [ "$got" = "$want" ]; then
  echo "reproduce: $got equals the shipped internal/embed/static/weights.bin"
  exit 0
fi
echo "reproduce: made ${got:-nothing} (run.sh exit $status), the shipped weights.bin is $want" >&2
exit 1
