#!/usr/bin/env bash
# Per-language share of definitions that are not units of their own (issue
# 27): definitions (tree-sitter nodes, internal/chunk/units_test.go
# defKinds) whose first line ends up in a text chunk (in-text) or in a chunk
# over the size limit (in-long); "inside" counts those in another
# definition's chunk under the limit (closures), "uncov" those in no chunk.
#
# usage: bench/units_report.sh [DIR...]
#   default: the semble dev subset's benchmark roots under REPOS_DIR
#   (default /tmp/semble/repos), as listed in shared/bench/semble/repos.json
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repos=${REPOS_DIR:-/tmp/semble/repos}
if [ $# -gt 0 ]; then
  dirs=$(IFS=,; echo "$*")
else
  dirs=$(python3 - "$here/../../shared/bench/semble/repos.json" "$repos" <<'PY'
import json, sys
print(",".join(sys.argv[2] + "/" + r["name"] + ("/" + r["benchmark_root"] if r.get("benchmark_root") else "")
               for r in json.load(open(sys.argv[1]))))
PY
)
fi
cd "$here/.." && go test ./internal/chunk -run '^TestUnitsReport$' -v -units "$dirs" | grep -v '^=== \|^--- \|^PASS\|^ok'
