#!/usr/bin/env bash
# Downloads the real matrices and graphs listed in datasets/manifest.tsv and extracts them:
# SuiteSparse archives (NAME.tar.gz) give DEST/NAME.mtx, SNAP edge lists (NAME.txt.gz) give
# DEST/NAME.txt. Each archive's sha256 is checked against the manifest when recorded there, and
# printed otherwise (so that it can be recorded).
#
#   fetch.sh [--dest DIR] [--from-dir DIR] [--manifest FILE] [--force] [--list] [NAMES...]
#
#   --dest DIR       where the extracted files go (default: ./opsparse-data)
#   --from-dir DIR   offline: take DIR/NAME.tar.gz, DIR/NAME.txt.gz, DIR/NAME.mtx or DIR/NAME.txt
#                    instead of downloading (checked and extracted the same way)
#   --manifest FILE  another manifest (default: manifest.tsv beside this script)
#   --force          fetch again even when DEST already has the file
#   --list           print the manifest's names and exit
#   NAMES            manifest names (default: all)
#
# Exit status: 0 when every requested name was fetched (or already present), 1 otherwise.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
manifest=$here/manifest.tsv
dest=./opsparse-data
from_dir=
force=0
list=0
names=()

usage() { sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "fetch.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case $1 in
    --dest) [ $# -ge 2 ] || die "--dest needs a directory"; dest=$2; shift 2 ;;
    --from-dir) [ $# -ge 2 ] || die "--from-dir needs a directory"; from_dir=$2; shift 2 ;;
    --manifest) [ $# -ge 2 ] || die "--manifest needs a file"; manifest=$2; shift 2 ;;
    --force) force=1; shift ;;
    --list) list=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; names+=("$@"); break ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) names+=("$1"); shift ;;
  esac
done

[ -f "$manifest" ] || die "manifest '$manifest' not found"
[ -z "$from_dir" ] || [ -d "$from_dir" ] || die "--from-dir '$from_dir' is not a directory"

# Manifest rows (comments and the header skipped): name source group url rows nnz sha256.
rows() { awk -F'\t' '!/^#/ && $1 != "name" && NF >= 7' "$manifest"; }

if [ "$list" = 1 ]; then
  rows | awk -F'\t' '{ printf "%-20s %-12s %-22s %10s rows %11s nnz\n", $1, $2, $3, $5, $6 }'
  exit 0
fi
if [ ${#names[@]} -eq 0 ]; then
  mapfile -t names < <(rows | cut -f1)
fi

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

download() {  # url file
  if command -v curl >/dev/null 2>&1; then
    curl -fL --retry 3 --connect-timeout 30 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1"
  else
    echo "fetch.sh: neither curl nor wget is installed" >&2
    return 1
  fi
}

mkdir -p "$dest"
work=$(mktemp -d "${TMPDIR:-/tmp}/opsparse-fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT

failed=0
for name in "${names[@]}"; do
  row=$(rows | awk -F'\t' -v n="$name" '$1 == n' | head -1)
  if [ -z "$row" ]; then
    echo "fetch.sh: '$name' is not in $manifest" >&2
    failed=1
    continue
  fi
  IFS=$'\t' read -r _ source _ url _ _ sha <<<"$row"
  case $source in
    suitesparse) out=$dest/$name.mtx ;;
    *) out=$dest/$name.txt ;;
  esac
  if [ -s "$out" ] && [ "$force" = 0 ]; then
    echo "$name: $out already present"
    continue
  fi
  # 1. Obtain the archive (or plain file).
  archive=
  if [ -n "$from_dir" ]; then
    for candidate in "$name.tar.gz" "$name.txt.gz" "$name.mtx" "$name.txt"; do
      if [ -f "$from_dir/$candidate" ]; then archive=$from_dir/$candidate; break; fi
    done
    if [ -z "$archive" ]; then
      echo "fetch.sh: $name: no $name.tar.gz, .txt.gz, .mtx or .txt in $from_dir" >&2
      failed=1
      continue
    fi
  else
    archive=$work/$(basename "$url")
    echo "$name: downloading $url"
    if ! download "$url" "$archive"; then
      echo "fetch.sh: $name: download failed" >&2
      failed=1
      continue
    fi
  fi
  # 2. Check it.
  actual=$(sha256_of "$archive")
  if [ "$sha" != "-" ] && [ -n "$sha" ]; then
    if [ "$actual" != "$sha" ]; then
      echo "fetch.sh: $name: sha256 mismatch: manifest $sha, got $actual" >&2
      failed=1
      continue
    fi
    echo "$name: sha256 ok"
  else
    echo "$name: sha256 $actual (not in the manifest; record it there)"
  fi
  # 3. Extract to DEST.
  tmp=$out.part
  case $archive in
    *.tar.gz)
      rm -rf "$work/x" && mkdir -p "$work/x"
      if ! tar -xzf "$archive" -C "$work/x"; then
        echo "fetch.sh: $name: cannot extract $archive" >&2; failed=1; continue
      fi
      # SuiteSparse archives hold NAME/NAME.mtx (plus NAME_b.mtx and the like for some).
      mtx=$(find "$work/x" -type f -name "$name.mtx" | head -1)
      [ -n "$mtx" ] || mtx=$(find "$work/x" -type f -name '*.mtx' | sort | head -1)
      if [ -z "$mtx" ]; then
        echo "fetch.sh: $name: no .mtx inside $archive" >&2; failed=1; continue
      fi
      cp "$mtx" "$tmp" ;;
    *.gz)
      if ! gzip -dc "$archive" >"$tmp"; then
        echo "fetch.sh: $name: cannot decompress $archive" >&2; rm -f "$tmp"; failed=1; continue
      fi ;;
    *) cp "$archive" "$tmp" ;;
  esac
  mv "$tmp" "$out"
  echo "$name: wrote $out"
done
exit $failed
