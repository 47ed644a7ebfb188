#!/bin/bash
# fetch.sh downloads every package of train/manifest.tsv into $WORK/dl (kept
# between runs), checks its sha256 against the manifest and extracts it into
# $WORK/src/<package>/. Binary packages: apt-get download + dpkg-deb -x (no
# install). Source packages: apt-get source --download-only through a private
# deb-src list ($WORK/apt, the system's apt configuration is not touched),
# then the upstream tarball is unpacked. npm packages: the registry's tarball
# (curl), of which only the TypeScript sources select.py counted are
# extracted (no built output, tests or vendored copies). A package whose download or hash
# fails is an error: the corpus must be exactly the manifest. A source package
# whose .dsc verifies but whose upstream tarball the mirror no longer serves
# is unpacked without its sources and named in a warning (with a count at the
# end), not an error, so the pipeline still runs on today's mirror.
#
# Usage: train/fetch.sh MANIFEST WORK [N]   (N: only the first N rows per registry group)
set -euo pipefail
MANIFEST=$1 WORK=$2 LIMIT=${3:-0}
mkdir -p "$WORK/dl" "$WORK/src" "$WORK/apt/lists/partial"
APT_SRC=(-o Dir::Etc::sourcelist="$WORK/apt/sources.list" -o Dir::Etc::sourceparts=/nonexistent -o Dir::State::Lists="$WORK/apt/lists")
# one private index for binary and source packages alike (main, updates and security, as
# select.py saw them through apt-cache dumpavail): the system's lists may be older than
# the manifest's versions (a point release or a security update replaces +deb12uN versions)
K=/usr/share/keyrings/debian-archive-keyring.gpg
printf '%s\n' "deb [signed-by=$K] http://deb.debian.org/debian bookworm main" \
  "deb [signed-by=$K] http://deb.debian.org/debian bookworm-updates main" \
  "deb [signed-by=$K] http://deb.debian.org/debian-security bookworm-security main" \
  "deb-src [signed-by=$K] http://deb.debian.org/debian bookworm main" \
  "deb-src [signed-by=$K] http://deb.debian.org/debian-security bookworm-security main" > "$WORK/apt/sources.list"
[ -n "$(ls "$WORK/apt/lists/" | grep Sources || true)" ] && [ -n "$(ls "$WORK/apt/lists/" | grep security.*_Packages || true)" ] ||
  apt-get -qq "${APT_SRC[@]}" update

rows=$(awk -F"\t" -v lim="$LIMIT" 'NR>1 { g=$1=="debian-src" ? "src" : ($1=="npm" ? "npm" : $2); sub(/-.*/, "", g); n[g]++; if (lim==0 || n[g]<=lim) print }' "$MANIFEST")
# binary packages, 60 per apt-get call
need=()
while IFS=$'\t' read -r reg pkg ver sha; do
  [ "$reg" = debian ] || continue
  f=$(ls "$WORK/dl/${pkg}_"*.deb 2>/dev/null | head -1 || true)
  [ -n "$f" ] || need+=("$pkg=$ver")
done <<< "$rows"
if [ ${#need[@]} -gt 0 ]; then
  (cd "$WORK/dl" && printf '%s\n' "${need[@]}" | xargs -n 60 apt-get -qq "${APT_SRC[@]}" download 2>&1 | grep -v unsandboxed || true)
  # apt-get download fetches nothing of a batch in which one version is missing: retry
  # the packages still absent one by one, so only the missing ones fail below
  for pv in "${need[@]}"; do
    ls "$WORK/dl/${pv%%=*}_"*.deb >/dev/null 2>&1 && continue
    (cd "$WORK/dl" && apt-get -qq "${APT_SRC[@]}" download "$pv" 2>&1 | grep -v unsandboxed || true)
  done
fi
srcneed=()
while IFS=$'\t' read -r reg pkg ver sha; do
  [ "$reg" = debian-src ] || continue
  d="$WORK/dl/src-$pkg"
  { ls "$d"/*.dsc && ls "$d"/*.tar.*; } >/dev/null 2>&1 || srcneed+=("$pkg=$ver")   # a .dsc without its tarballs is retried
done <<< "$rows"
# --only-source: the name is a source package's, never a binary's (apt would
# otherwise take the binary "serf" of golang-github-hashicorp-serf for the
# source package serf, and find no such version)
for pv in "${srcneed[@]+"${srcneed[@]}"}"; do
  pkg=${pv%%=*}; mkdir -p "$WORK/dl/src-$pkg"
  (cd "$WORK/dl/src-$pkg" && apt-get -qq "${APT_SRC[@]}" source --only-source --download-only "$pv" 2>&1 | grep -v unsandboxed || true)
done
# npm tarballs (select.py leaves the ones it read in $WORK/dl/npm)
mkdir -p "$WORK/dl/npm"
while IFS=$'\t' read -r reg pkg ver sha; do
  [ "$reg" = npm ] || continue
  f="$WORK/dl/npm/${pkg//\//+}-$ver.tgz"
  [ -s "$f" ] && continue
  curl -fsS --retry 3 -o "$f.tmp" "https://registry.npmjs.org/$pkg/-/${pkg##*/}-$ver.tgz" && mv "$f.tmp" "$f" || rm -f "$f.tmp"
done <<< "$rows"
# verify and extract
bad=0 nosrc=0
while IFS=$'\t' read -r reg pkg ver sha; do
  if [ "$reg" = debian ]; then
    f=$(ls "$WORK/dl/${pkg}_"*.deb 2>/dev/null | head -1 || true)
  elif [ "$reg" = npm ]; then
    f="$WORK/dl/npm/${pkg//\//+}-$ver.tgz"; [ -e "$f" ] || f=
  else
    f=$(ls "$WORK/dl/src-$pkg/"*.dsc 2>/dev/null | head -1 || true)
  fi
  if [ -z "$f" ] || [ "$(sha256sum "$f" | cut -d' ' -f1)" != "$sha" ]; then
    echo "fetch: $reg $pkg $ver: missing or sha256 mismatch" >&2; bad=1; continue
  fi
  if [ "$reg" = debian-src ] && ! ls "$WORK/dl/src-$pkg/"*.tar.* >/dev/null 2>&1; then
    echo "fetch: $reg $pkg $ver: the .dsc came but no tarball did (the mirror no longer serves it)" >&2; bad=1; continue
  fi
  # a .debian.tar.* alone is Debian's packaging, not the package's sources:
  # the mirror has dropped the upstream tarball of this pinned version. Said
  # loudly and counted, not an error, so that one command still trains on
  # today's mirror; the corpus is then short of the manifest by these.
  if [ "$reg" = debian-src ] && ! ls "$WORK/dl/src-$pkg/"*.tar.* 2>/dev/null | grep -qv '\.debian\.tar\.'; then
    echo "fetch: warning: $reg $pkg $ver: no upstream tarball (the mirror no longer serves it); unpacked without its sources" >&2
    nosrc=$((nosrc + 1))
  fi
  out="$WORK/src/$pkg"
  [ -e "$out/.done" ] && continue
  rm -rf "$out"; mkdir -p "$out"
  if [ "$reg" = debian ]; then
    dpkg-deb -x "$f" "$out"
  elif [ "$reg" = npm ]; then
    # the members select.py's npm_sources keeps, listed by the same function, and the
    # top package.json (its licence field, for train/licenses.py)
    tar -tzf "$f" | /usr/bin/python3 -P -c 'import importlib.util as u, sys; s = u.spec_from_file_location("trainselect", sys.argv[1]); m = u.module_from_spec(s); s.loader.exec_module(m); n = sys.stdin.read().split("\n"); print("\n".join(m.npm_sources(n) + [x for x in n if x.count("/") == 1 and x.endswith("/package.json")]))' "$(dirname "$0")/select.py" > "$out/.members"
    [ -s "$out/.members" ] && tar -xzf "$f" -C "$out" -T "$out/.members"
    rm -f "$out/.members"
  else
    for t in "$WORK/dl/src-$pkg/"*.orig.tar.* "$WORK/dl/src-$pkg/"*.orig-*.tar.*; do
      [ -e "$t" ] && tar -xf "$t" -C "$out" 2>/dev/null || true
    done
    if ! ls "$WORK/dl/src-$pkg/"*.orig.tar.* >/dev/null 2>&1; then   # native package: one tarball
      for t in "$WORK/dl/src-$pkg/"*.tar.*; do tar -xf "$t" -C "$out" 2>/dev/null || true; done
    fi
    cp "$WORK/dl/src-$pkg/"*.debian.tar.* "$out/" 2>/dev/null || true
  fi
  touch "$out/.done"
done <<< "$rows"
[ "$nosrc" = 0 ] || echo "fetch: warning: $nosrc source packages without their upstream sources (listed above): the corpus is short of the manifest by them" >&2
exit $bad
