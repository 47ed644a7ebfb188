#!/usr/bin/env bash
# Score the team's golden sets (shared/golden) with `coderag eval` on indexes
# built beforehand, one CODERAG_HOME per corpus.
# usage: bench/golden_eval.sh CODERAG HOMES_DIR [GOLDEN_DIR]
#   HOMES_DIR holds home-go (GOROOT/src), home-java (JDK_SRC) and home-py
#   (PY_STDLIB); JDK_SRC and PY_STDLIB default to HOMES_DIR/jdk and HOMES_DIR/py.
# env: SET=Field=v,... overrides hybrid params (coderag eval --set), for ablations.
set -euo pipefail
bin=${1:?CODERAG}; homes=${2:?HOMES_DIR}
here=$(cd "$(dirname "$0")" && pwd)
golden=${3:-$here/../../shared/golden}
jdk=${JDK_SRC:-$homes/jdk}; py=${PY_STDLIB:-$homes/py}
for t in "go:$(go env GOROOT)/src:go-stdlib" "java:$jdk:java-jdk" "py:$py:python-stdlib"; do
  IFS=: read -r n dir set <<<"$t"
  CODERAG_HOME="$homes/home-$n" EMBEDDING_PROVIDER= "$bin" eval --json ${SET:+--set "$SET"} --project "$dir" "$golden/$set.json" |
    python3 -c "
import json,sys
r=json.load(sys.stdin); o=r['overall']; z=r['by_lang'].get('zh',{}); k=r['by_kind']
print(f\"$set: R@1 {o['recall_at_1']:.3f} R@5 {o['recall_at_5']:.3f} MRR@10 {o['mrr_at_10']:.3f} zh {z.get('mrr_at_10',0):.3f} fuzzy {k.get('fuzzy',{}).get('mrr_at_10',0):.3f} ident {k.get('identifier',{}).get('mrr_at_10',0):.3f}\")"
done
