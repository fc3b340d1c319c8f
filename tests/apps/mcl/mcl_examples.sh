#!/usr/bin/env bash
# mcl's own example graphs (Debian's mcl-doc: /usr/share/doc/mcl/examples/*.mci) clustered at
# several inflations by Debian's mcl and by opsparse-mcl: the same output wherever mcl clusters
# (its "# cline" comment aside), and a refusal naming the file wherever mcl refuses.
# Exit 77 (skipped) without mcl or the examples.
# Usage: mcl_examples.sh <opsparse-mcl> <scratch dir> [examples dir]
set -uo pipefail
exe=$1 scratch=$2 examples=${3:-/usr/share/doc/mcl/examples}
command -v mcl >/dev/null || { echo "skipped: Debian's mcl is not on PATH (apt-get install mcl)"; exit 77; }
ls "$examples"/*.mci >/dev/null 2>&1 \
  || { echo "skipped: no mcl examples in $examples (apt-get install mcl-doc)"; exit 77; }
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch"
same=0 refused=0 failures=0
for f in "$examples"/*.mci; do
  name=$(basename "$f" .mci)
  for inflation in 1.4 2 3 5; do
    mcl "$f" -I "$inflation" -o theirs >/dev/null 2>&1
    theirs=$?
    "$exe" "$f" -I "$inflation" --backend cpu -o ours >/dev/null 2>ours.err
    ours=$?
    if [ $theirs = 0 ]; then
      if [ $ours != 0 ]; then
        echo "FAIL $name -I $inflation: mcl clusters it, opsparse-mcl exits $ours: $(head -1 ours.err)"
        failures=$((failures + 1))
      elif ! cmp -s <(grep -v '^# cline' theirs) <(grep -v '^# cline' ours); then
        echo "FAIL $name -I $inflation: the outputs differ"
        diff <(grep -v '^# cline' theirs) <(grep -v '^# cline' ours) | head -5
        failures=$((failures + 1))
      else
        same=$((same + 1))
      fi
    elif [ $ours = 0 ]; then
      echo "FAIL $name -I $inflation: mcl refuses it, opsparse-mcl clusters it"
      failures=$((failures + 1))
    elif ! grep -q "$f" ours.err; then
      echo "FAIL $name -I $inflation: the refusal does not name the file: $(head -1 ours.err)"
      failures=$((failures + 1))
    else
      refused=$((refused + 1))
    fi
    rm -f theirs ours ours.err
  done
done
echo "mcl examples: $same clusterings equal to mcl's, $refused refused as mcl refuses them, $failures failures"
[ $failures = 0 ] && [ $same -gt 0 ]
