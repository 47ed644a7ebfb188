#!/usr/bin/env bash
# Where an index's bytes go: indexes ROOT with BIN into a fresh home and
# prints every table and index of index.db by size (SQLite's dbstat), and
# the DB size ÷ the indexed source (sum of indexed_files.size).
#   bench/dbstat.sh BIN ROOT
set -euo pipefail
BIN=$(readlink -f "$1"); ROOT=$2
H=$(mktemp -d /tmp/dbstat.XXXXXX); trap 'rm -rf "$H"' EXIT
CODERAG_HOME=$H "$BIN" index --quiet "$ROOT" >/dev/null 2>&1
DB=$H/index.db
sqlite3 "$DB" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
src=$(sqlite3 "$DB" "SELECT sum(size) FROM indexed_files")
db=$(stat -c %s "$DB")
echo "$ROOT: source $src bytes, index.db $db bytes, ratio $(echo "scale=2; $db / $src" | bc)"
sqlite3 -separator ' ' "$DB" "SELECT CASE WHEN name LIKE 'chunks_fts_%' THEN 'fts_' || substr(name, 29) ELSE name END AS n,
  sum(pgsize) FROM dbstat GROUP BY n ORDER BY 2 DESC" |
  awk -v db="$db" -v src="$src" '$2 >= 8192 {printf "  %-28s %10d bytes %5.1f%% of db %5.2fx source\n", $1, $2, 100*$2/db, $2/src}'
