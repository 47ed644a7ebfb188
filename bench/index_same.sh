#!/usr/bin/env bash
# Do two binaries build the same index? For each ROOT (a directory under
# $SEMBLE_REPOS, e.g. sinatra/lib), index it with NEW and with BASE into
# fresh CODERAG_HOMEs and compare: the rows of every table in a canonical
# form (no row ids, no times; chunks, vectors and relations keyed by file
# path), `stats --json` (times and DB size left out) and `search --json
# --top-k 30` for five queries, compared without line numbers and with
# results of equal score sorted: the order of a tie follows row ids,
# which follow the order in which files finish parsing, so two runs of
# one binary can give two chunks of the same text (Dapper's two
# GetDecimal(int i)) each other's rank and score.
#   bench/index_same.sh NEW BASE ROOT...
set -euo pipefail
NEW=$(readlink -f "$1"); BASE=$(readlink -f "$2"); shift 2
REPOS=${SEMBLE_REPOS:-/tmp/semble/repos}
W=$(mktemp -d /tmp/index-same.XXXXXX)
trap 'rm -rf "$W"' EXIT
canon() {
  sqlite3 "$1" <<'SQL'
.mode list
SELECT 'F', file_path, content_sha256, embedding_model, size, mtime_ns, language, chunk_count, analysis FROM indexed_files ORDER BY file_path;
SELECT 'C', f.file_path, c.chunk_type, c.name, c.owner, c.symbol, c.params, c.signature, c.language, c.doc, c.start_line, c.end_line, c.decl_end_line, c.start_byte, c.end_byte, hex(c.content), c.embedding_model FROM code_chunks c JOIN indexed_files f ON f.id = c.file_id ORDER BY 2, 14, 4;
SELECT 'V', f.file_path, v.embedder, v.n, hex(v.vecs) FROM code_vectors v JOIN indexed_files f ON f.id = v.file_id ORDER BY 2;
SELECT 'R', f.file_path, a.name, b.name, r.relation_type, r.line, r.plain FROM code_relations r JOIN indexed_files f ON f.id = r.file_id JOIN code_names a ON a.id = r.from_id JOIN code_names b ON b.id = r.to_id ORDER BY 2, 3, 4, 5, 6, 7;
SELECT 'T', project_path, dir_path, data FROM tree_dirs ORDER BY 2, 3;
SELECT 'P', project_path, embedder, dim FROM projects;
SQL
}
for r in "$@"; do
  root="$REPOS/$r"
  for b in NEW BASE; do
    bin=${!b}
    rm -rf "$W/h"
    CODERAG_HOME="$W/h" "$bin" index --quiet "$root" >/dev/null 2>&1
    canon "$W/h/index.db" > "$W/canon_$b"
    CODERAG_HOME="$W/h" "$bin" stats --json | jq -S 'del(.db, .db_bytes) | .projects[] |= del(.updated_at, .created_at, .indexed_at, .last_run)' > "$W/stats_$b"
    (cd "$root" && for q in "parse the request body" "how are errors handled" "configuration options" "test helper" "main entry point"; do
      CODERAG_HOME="$W/h" "$bin" search --json --top-k 30 "$q"; done) 2>&1 |
      jq -S 'walk(if type == "object" then del(.line, .start_line, .end_line) else . end) | .results |= sort_by(-.score, .path, .name, .preview)' > "$W/search_$b"
  done
  same() { cmp -s "$W/$1_NEW" "$W/$1_BASE" && echo same || echo DIFFERENT; }
  printf "%-50s rows %s (%d lines)  stats %s  search %s (%d bytes)\n" "$r" "$(same canon)" "$(wc -l < "$W/canon_BASE")" \
    "$(same stats)" "$(same search)" "$(wc -c < "$W/search_BASE")"
done
