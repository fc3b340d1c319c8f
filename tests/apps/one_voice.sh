#!/usr/bin/env bash
# Every program reports a command-line mistake in one format (apps/common/messages.hpp):
#   PROGRAM: error: MESSAGE
#   Try 'PROGRAM --help'.
# and exits with status 2. Usage: one_voice.sh PROGRAM_PATH...
set -u
failures=0
for path in "$@"; do
  name=$(basename "$path")
  err=$("$path" --no-such-option 2>&1 > /dev/null)
  status=$?
  first=$(sed -n 1p <<< "$err")
  second=$(sed -n 2p <<< "$err")
  if [ $status != 2 ] || [[ $first != "$name: error: "* ]] || [ "$second" != "Try '$name --help'." ] ||
    [ "$(wc -l <<< "$err")" != 2 ]; then
    echo "FAIL: $name --no-such-option (status $status):"
    echo "$err"
    failures=$((failures + 1))
  else
    echo "ok: $name ($first)"
  fi
done
[ $failures = 0 ]
