#!/usr/bin/env bash
# opsparse-mcl-mpi's checkpoints in the rows layout, end to end under `mpiexec -n NP`:
#   - a run with --checkpoint DIR --checkpoint-interval 0 writes opsparse-mcl's output file (CPU)
#     and leaves one part a rank of its last checkpoint and their list;
#   - --resume DIR on NP ranks, on 1 and on NP + 1 writes the uninterrupted run's file;
#   - SIGUSR1 to mpiexec during a run stops every rank after the running iteration with status
#     138, says where to resume, writes no output; the resumed run writes the uninterrupted file;
#   - a resumption with other options is refused (status 1, the reason); --checkpoint in the
#     grid layout is a usage error (status 2); without --layout they choose the rows layout.
# OPSPARSE_CHECKPOINT_BACKEND=gpu runs them with --backend gpu (the GPU machine: the iterate
# spread over the GPUs where each rank owns one), compared with the GPU run's own file.
# Usage: mpi_checkpoint.sh MPIEXEC NP OPSPARSE_MCL_MPI OPSPARSE_MCL OPSPARSE_GEN
set -u
mpiexec=$1 np=$2 mcl_mpi=$3 mcl_single=$4 gen=$5
backend=${OPSPARSE_CHECKPOINT_BACKEND:-cpu}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# Dense enough that the second iteration takes a while on one thread: the signal lands in it.
"$gen" protein --nodes 6000 --edges 180000 --min-cluster 30 --max-cluster 120 --seed 7 \
  -o g.abc > /dev/null 2>&1 || { echo "FAIL: opsparse-gen"; exit 1; }
run_mpi() {
  local n=$1
  shift
  timeout 300 "$mpiexec" -n "$n" "$mcl_mpi" g.abc --abc --backend "$backend" --layout rows -te 1 "$@"
}

run_mpi "$np" -o whole.out --checkpoint ck --checkpoint-interval 0 2> whole.err ||
  { fail "the checkpointing run failed"; cat whole.err; }
if [ "$backend" = cpu ]; then
  "$mcl_single" g.abc --abc --backend cpu -te 1 -o single.out 2> /dev/null || fail "opsparse-mcl failed"
  cmp -s whole.out single.out || fail "the checkpointing run's output differs from opsparse-mcl's"
fi
[ -f ck/mcl-checkpoint.parts ] || fail "no list of the parts in ck/"
parts=$(find ck -name 'mcl-checkpoint.it*.part*.bin' | wc -l)
[ "$parts" = "$np" ] || fail "$parts part files in ck/, want $np (one a rank, older ones removed)"
grep -q "checkpoint after iteration [0-9]* written to ck/mcl-checkpoint.parts ($np part" whole.err ||
  fail "no note of the checkpoints"
for n in "$np" 1 $((np + 1)); do
  run_mpi "$n" -o "resumed$n.out" --resume ck 2> "resumed$n.err" ||
    { fail "resuming on $n ranks failed"; cat "resumed$n.err"; continue; }
  grep -q "resumed from ck/mcl-checkpoint.parts after iteration" "resumed$n.err" ||
    fail "no note of the resumption on $n ranks"
  cmp -s "resumed$n.out" whole.out || fail "resumed on $n ranks: not the uninterrupted run's file"
done
# The start matrix read by rank 0 alone has the fingerprint of the one read in parts.
OPSPARSE_MCL_READ_ON_ROOT=1 run_mpi 2 -o root.out --resume ck \
  2> root.err || { fail "resuming with the input read on rank 0 failed"; cat root.err; }
cmp -s root.out whole.out || fail "resumed with the input read on rank 0: not the same file"
# Checkpoints of another rank count in the same folder replace every part of the earlier ones.
run_mpi $((np + 1)) -o again.out --checkpoint ck --checkpoint-interval 0 2> again.err ||
  { fail "checkpointing again on $((np + 1)) ranks failed"; cat again.err; }
cmp -s again.out whole.out || fail "$((np + 1)) ranks: not the file of $np ranks"
parts=$(find ck -name 'mcl-checkpoint.it*.part*.bin' | wc -l)
[ "$parts" = $((np + 1)) ] || fail "$parts part files after a run on $((np + 1)) ranks"
echo "ok: checkpoints of $np ranks resumed on $np, 1 and $((np + 1)) ranks"

# Stopped by SIGUSR1 (mpiexec passes it on to every rank), then resumed. (mpiexec itself, not a
# wrapper, receives the signal.) The ranks are paused (SIGSTOP) as soon as the first checkpoint
# is listed and go on (SIGCONT) once the signal has reached them, so that it lands during the
# run however fast the rest of it is (on a GPU, a few milliseconds an iteration).
descendants() {
  local c
  for c in $(ps -o pid= --ppid "$1"); do
    echo "$c"
    descendants "$c"
  done
}
"$mpiexec" -n "$np" "$mcl_mpi" g.abc --abc --backend "$backend" --layout rows -te 1 \
  -o cut.out --checkpoint ck2 --checkpoint-interval 0 2> cut.err &
pid=$!
deadline=$((SECONDS + 60))
while [ ! -f ck2/mcl-checkpoint.parts ] && [ $SECONDS -lt $deadline ]; do :; done
ranks=$(descendants "$pid")
kill -STOP $ranks 2> /dev/null
[ -f ck2/mcl-checkpoint.parts ] || fail "no checkpoint after the first iteration"
kill -USR1 "$pid"
sleep 1
kill -CONT $ranks 2> /dev/null
wait "$pid"
rc=$?
[ "$rc" = 138 ] || { fail "the stopped run exited with $rc, not 138 (128 + SIGUSR1)"; cat cut.err; }
grep -q "stopped by signal 10 after iteration [0-9]*; --resume ck2 continues" cut.err ||
  fail "the stopped run did not say where to resume"
[ ! -e cut.out ] || fail "the stopped run left an output file"
run_mpi "$np" -o cut.out --resume ck2 2> cut-resumed.err || fail "resuming the stopped run failed"
cmp -s cut.out whole.out || fail "the stopped and resumed run's file differs from the uninterrupted one's"
echo "ok: $(grep -o 'stopped by signal 10 after iteration [0-9]*' cut.err), resumed"

# Refusals: other options, the grid layout.
run_mpi "$np" -I 3 -o other.out --resume ck 2> other.err
rc=$?
[ "$rc" = 1 ] || fail "a checkpoint of other options was not refused (status $rc)"
grep -q "another input or other options" other.err || fail "the refusal does not say why"
timeout 120 "$mpiexec" -n "$np" "$mcl_mpi" g.abc --abc --layout grid --checkpoint ck3 -o grid.out \
  2> grid.err
rc=$?
[ "$rc" = 2 ] || fail "--checkpoint in the grid layout: status $rc, not 2"
grep -q "need the rows layout" grid.err || fail "--checkpoint in the grid layout: no reason given"
# Without --layout, checkpoints choose the rows layout and say so.
timeout 120 "$mpiexec" -n "$np" "$mcl_mpi" g.abc --abc --backend "$backend" -te 1 --verbose \
  --checkpoint ck4 -o auto.out 2> auto.err || fail "--checkpoint without --layout failed"
grep -q "layout: rows (auto: checkpoints are the rows layout's)" auto.err ||
  fail "--checkpoint without --layout: the rows layout not chosen or not said"
cmp -s auto.out whole.out || fail "--checkpoint without --layout: not the same file"
[ "$failures" = 0 ] && echo "mpi_checkpoint: all checks passed on $np ranks"
[ "$failures" = 0 ]
