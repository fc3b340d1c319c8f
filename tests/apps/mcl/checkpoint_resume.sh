#!/usr/bin/env bash
# opsparse-mcl stopped by SIGTERM during a run with --checkpoint, then run again with --resume:
# it writes the same file as an uninterrupted run. The interrupted run leaves no output file and
# says where its checkpoint is; a resumption with other options is refused with exit status 1.
# Usage: checkpoint_resume.sh <opsparse-mcl> <opsparse-gen> <scratch dir>
set -euo pipefail
mcl_exe=$1 gen=$2 scratch=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch"
# Dense enough that the second iteration takes seconds on one thread: the signal lands in it.
"$gen" protein --nodes 6000 --edges 180000 --min-cluster 30 --max-cluster 120 --seed 7 \
  -o g.abc >/dev/null 2>&1
run() { "$mcl_exe" g.abc --abc --backend cpu -te 1 "$@"; }
run -o whole.out 2>whole.log

# the program itself in the background (a function would run in a subshell: the signal's target)
"$mcl_exe" g.abc --abc --backend cpu -te 1 -o cut.out --checkpoint ck --checkpoint-interval 0 \
  2>cut.log &
pid=$!
for _ in $(seq 1 1200); do [ -f ck/mcl-checkpoint.bin ] && break; sleep 0.05; done
[ -f ck/mcl-checkpoint.bin ] || { kill $pid; fail "no checkpoint after the first iteration"; }
kill -TERM $pid
set +e
wait $pid
rc=$?
set -e
cat cut.log >&2
[ "$rc" = 143 ] || fail "the interrupted run exited with $rc, not 143 (128 + SIGTERM)"
grep -q 'stopped by signal 15 after iteration [0-9]*; --resume ck continues' cut.log \
  || fail "the interrupted run did not say where to resume"
[ ! -e cut.out ] || fail "the interrupted run left an output file"

run -o cut.out --resume ck 2>resume.log
cat resume.log >&2
grep -q 'resumed from ck/mcl-checkpoint.bin after iteration' resume.log || fail "no resume note"
cmp whole.out cut.out || fail "the resumed run's output differs from the uninterrupted run's"

set +e
run -I 3 -o other.out --resume ck 2>other.log
rc=$?
set -e
[ "$rc" = 1 ] || fail "a checkpoint of other options was not refused (exit $rc)"
grep -q 'another input or other options' other.log || fail "the refusal does not say why"
echo "checkpoint_resume: the resumed run wrote the uninterrupted run's file"
