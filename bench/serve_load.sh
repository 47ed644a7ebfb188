#!/usr/bin/env bash
# Searches during an index run (issue 25 item 7), one run, two binaries:
# for BASE_BIN then NEW_BIN, a `coderag serve` on a fresh CODERAG_HOME
# starts indexing TREE (POST /api/index) and, once START_FILES files are
# committed (the project is large, the run goes on), CLIENTS clients send N searches each over every project
# (bench/serveload). Reported per binary: p50 and p99 latency of those
# searches, errors, whether the index run was still going when they
# ended, and the server's peak RSS (VmHWM of /proc/PID/status, read before
# it is stopped); then the ratios NEW / BASE.
#
# usage: bench/serve_load.sh NEW_BIN BASE_BIN [TREE]
#   TREE defaults to GOROOT/src. env: CLIENTS (8), N (200), PORT (7799),
#   START_FILES (3000; 1 for a small TREE),
#   IDLE=1 also waits for each run to end and measures the same load on
#   the finished index (the time a search takes without indexing).
set -euo pipefail
new=${1:?NEW_BIN}; base=${2:?BASE_BIN}; tree=${3:-$(go env GOROOT)/src}
clients=${CLIENTS:-8}; n=${N:-200}; port=${PORT:-7799}; start=${START_FILES:-3000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); srvpid=; trap 'rm -rf "$work"' EXIT
(cd "$here/.." && go build -o "$work/serveload" ./bench/serveload)
url=http://127.0.0.1:$port; tok=bench-token
status() { curl -sf -H "Authorization: Bearer $tok" "$url/api/status"; }
field() { python3 -c "
import json,sys
ps=[p for p in json.load(sys.stdin)['projects'] if p['project']=='$tree']
p=ps[0] if ps else {}
i=p.get('indexing') or {}
print({'files':p.get('files',0),'running':int(bool(i.get('running')))}['$1'])"; }

one() { # bin label
  local bin=$1 label=$2 home="$work/home-$2" pid
  mkdir -p "$home"
  if curl -s "$url/" >/dev/null 2>&1; then echo "port $port is taken: set PORT" >&2; exit 1; fi
  CODERAG_HOME=$home "$bin" serve --addr "127.0.0.1:$port" --token "$tok" >"$work/$label.log" 2>&1 &
  pid=$!
  srvpid=$pid; trap 'kill $srvpid 2>/dev/null; rm -rf "$work"' EXIT
  for _ in $(seq 100); do status >/dev/null 2>&1 && break; sleep 0.1; done
  curl -sf -X POST -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
    -d "{\"root\":\"$tree\"}" "$url/api/index" >/dev/null
  for _ in $(seq 6000); do [ "$(status | field files)" -ge "$start" ] && break; sleep 0.1; done
  local during running
  during=$("$work/serveload" -url "$url" -clients "$clients" -n "$n")
  running=$(status | field running)
  local hwm; hwm=$(awk '/VmHWM/ {print $2}' /proc/$pid/status)
  local idle='{}'
  if [ "${IDLE:-0}" = 1 ]; then
    while [ "$(status | field running)" = 1 ]; do sleep 2; done
    idle=$("$work/serveload" -url "$url" -clients "$clients" -n "$n")
  fi
  kill "$pid"; wait "$pid" 2>/dev/null || true
  python3 -c "
import json
d=json.loads('''$during'''); i=json.loads('''$idle''')
print(json.dumps({'bin':'$label','p50_ms':d['p50_ms'],'p99_ms':d['p99_ms'],'max_ms':d['max_ms'],'errors':d['errors'],
  'searches':d['searches'],'index_still_running':bool($running),'peak_rss_mb':round($hwm/1024),
  'idle_p50_ms':i.get('p50_ms'),'idle_p99_ms':i.get('p99_ms')}))" | tee "$work/$label.json"
}
one "$base" base
one "$new" new
python3 -c "
import json
b=json.load(open('$work/base.json')); n=json.load(open('$work/new.json'))
r=lambda k: round(n[k]/b[k],2) if b.get(k) else None
print('ratios new/base: p50 %s  p99 %s  peak RSS %s' % (r('p50_ms'), r('p99_ms'), r('peak_rss_mb')))"
