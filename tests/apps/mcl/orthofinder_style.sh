#!/usr/bin/env bash
# OrthoFinder's use of mcl, end to end, with opsparse-mcl in mcl's place: a weighted graph in
# mcl's native format (written here by Debian's mcxload, as OrthoFinder writes its own), clustered
# by `PROGRAM GRAPH -I 1.5 -o OUT -te N -V all`, and the native clusters parsed back the way
# OrthoFinder parses them (header up to "begin"; a line that starts with a digit opens a cluster,
# a line that starts with a blank continues it; "$" closes it; ")" ends the matrix). The parsed
# clusters and the files themselves (the program's name in the "# cline:" comment aside) must be
# those of Debian's mcl.
# Usage: orthofinder_style.sh OPSPARSE_MCL [DATASETS]   ($OPSPARSE_DATASETS, when set, wins over
# DATASETS; two of ppi/*.abc are used). Exit 77 with "skipped: <reason>" when mcl, mcxload or the
# data are missing.
set -euo pipefail
prog=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
datasets=${OPSPARSE_DATASETS:-${2:-}}  # the variable wins, as in the other tests
skip() { echo "orthofinder_style skipped: $*"; exit 77; }
command -v mcl > /dev/null || skip "Debian's mcl is not on PATH (apt-get install mcl)"
command -v mcxload > /dev/null || skip "Debian's mcxload is not on PATH (apt-get install mcl)"
[ -n "$datasets" ] && [ -d "$datasets/ppi" ] || skip "no ppi/ data sets in '${datasets}'"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# OrthoFinder's parser (MCL.GetPredictedOGs), in awk: one cluster per output line, members sorted.
parse() {
  awk '
    !body { if ($0 ~ /begin/) body = 1; next }
    /\)/ { exit }
    {
      line = $0
      sub(/[ \t]*\$[ \t]*$/, "", line)
      if (line ~ /^ /) { n = split(line, x, " "); for (i = 1; i <= n; i++) og = og " " x[i]; next }
      if (og != "") print og
      sub(/^[^ ]+ /, "", line)
      og = ""
      n = split(line, x, " "); for (i = 1; i <= n; i++) og = og " " x[i]
    }
    END { if (og != "") print og }
  ' "$1" | while read -r members; do echo "$members" | tr ' ' '\n' | sort -n | tr '\n' ' '; echo; done | sort
}

checked=0
for abc in "$datasets"/ppi/PPISB_yeast.abc "$datasets"/ppi/ghsom_Y2H_union.abc; do
  [ -f "$abc" ] || continue
  name=$(basename "$abc" .abc)
  # Scores as OrthoFinder's graph carries them: deterministic weights in (0, 1].
  awk -F'\t' '{ printf "%s\t%s\t%.3f\n", $1, $2, ((NR * 7919) % 997 + 1) / 997 }' "$abc" > "$work/$name.abc"
  mcxload -abc "$work/$name.abc" --stream-mirror -write-tab "$work/$name.tab" -o "$work/$name.graph" 2> /dev/null
  for threads in 1 2; do
    (cd "$work" && mcl "$name.graph" -I 1.5 -o "$name.out" -te $threads -V all 2> /dev/null)
    mv "$work/$name.out" "$work/$name.mcl"
    (cd "$work" && "$prog" "$name.graph" -I 1.5 -o "$name.out" -te $threads -V all 2> "$work/err")
    mv "$work/$name.out" "$work/$name.ours"
    if [ -s "$work/err" ] && grep -qv '^\[opsparse-mcl\]' "$work/err"; then
      echo "FAIL $name: unexpected messages:"; cat "$work/err"; exit 1
    fi
    parse "$work/$name.mcl" > "$work/$name.mcl.ogs"
    parse "$work/$name.ours" > "$work/$name.ours.ogs"
    [ -s "$work/$name.mcl.ogs" ] || { echo "FAIL $name: no clusters parsed from mcl's output"; exit 1; }
    if ! cmp -s "$work/$name.mcl.ogs" "$work/$name.ours.ogs"; then
      echo "FAIL $name -te $threads: the parsed clusters differ from mcl's"
      diff "$work/$name.mcl.ogs" "$work/$name.ours.ogs" | head -5
      exit 1
    fi
    if ! cmp -s <(sed '1s/^# cline: opsparse-mcl /# cline: mcl /' "$work/$name.ours") "$work/$name.mcl"; then
      echo "FAIL $name -te $threads: the output file is not mcl's byte for byte"
      diff <(sed '1s/^# cline: opsparse-mcl /# cline: mcl /' "$work/$name.ours") "$work/$name.mcl" | head -5
      exit 1
    fi
    checked=$((checked + 1))
    echo "ok $name -te $threads: $(wc -l < "$work/$name.ours.ogs") clusters, as mcl's"
  done
done
[ "$checked" -gt 0 ] || skip "none of the ppi files used here is in '$datasets/ppi'"
echo "orthofinder_style: $checked runs equal to mcl's"
