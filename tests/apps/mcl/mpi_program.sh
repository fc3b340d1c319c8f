#!/usr/bin/env bash
# opsparse-mcl-mpi under `mpiexec -n NP` (ctest runs it with NP = 1, 2, 4: oversubscribed on a
# small machine), end to end:
#   - on small shared PPI networks its output file is opsparse-mcl's, byte for byte, and its
#     partition is Debian mcl's (clusters compared as sets), with the layout chosen (auto), in
#     the rows layout and on the default grid, and (NP = 4) on 1x4 and 4x1 grids; auto says
#     what it chose;
#   - a malformed input gives one error message (rank 0's, with the file and the line), exit
#     status 1 on every rank, no hang, and leaves the output file as it was (no temporary file);
#   - --backend gpu (grid and rows layouts): on a machine with a GPU its partition is mcl's too;
#     without one, status 1 on every rank and one message naming the rank without a GPU;
#   - --help is printed once and documents --grid and --backend, not the options it refuses; a bad
#     --grid and --backend are usage errors (status 2), reported once.
# The byte comparisons run both programs with --backend cpu (the distributed CPU iterates are
# the single-process ones bit for bit; the GPU engines' sums are not).
# Usage: mpi_program.sh MPIEXEC NP OPSPARSE_MCL_MPI OPSPARSE_MCL DATASETS_DIR
# Exit 77 (skipped, with the reason) without Debian's mcl or the shared data sets.
set -u
mpiexec=$1 np=$2 mcl_mpi=$3 mcl_single=$4 datasets=${OPSPARSE_DATASETS:-$5}
ppi=$datasets/ppi
command -v mcl > /dev/null || { echo "skipped: Debian's mcl is not on PATH (apt-get install mcl)"; exit 77; }
[ -d "$ppi" ] || { echo "skipped: no $ppi (set OPSPARSE_DATASETS)"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# A partition as sorted lines of sorted labels (clusters as sets).
as_sets() { while IFS= read -r line; do tr '\t' '\n' <<< "$line" | sort | paste -sd '\t'; done < "$1" | sort; }
run_mpi() { timeout 120 "$mpiexec" -n "$np" "$mcl_mpi" "$@"; }

for name in PPISB_yeast PPISB_mouse ghsom_Ito_core ghsom_Y2H_union; do
  f=$ppi/$name.abc
  [ -f "$f" ] || { fail "missing $f"; continue; }
  "$mcl_single" "$f" --abc --backend cpu -o "$work/$name.single" -q x 2> /dev/null || fail "$name: opsparse-mcl failed"
  mcl "$f" --abc -o "$work/$name.mcl" -V all 2> /dev/null || fail "$name: mcl failed"
  grids=("" "--layout rows" "--layout grid")
  [ "$np" = 4 ] && grids+=("--grid 1x4" "--grid 4x1")
  for grid in "${grids[@]}"; do
    # shellcheck disable=SC2086  # $grid is two words or none
    run_mpi "$f" --abc --backend cpu -o "$work/$name.mpi" $grid 2> "$work/$name.err"
    status=$?
    [ $status = 0 ] || { fail "$name $grid: exit status $status"; cat "$work/$name.err"; continue; }
    cmp -s "$work/$name.mpi" "$work/$name.single" ||
      fail "$name $grid: output differs from opsparse-mcl's"
    [ "$(as_sets "$work/$name.mpi")" = "$(as_sets "$work/$name.mcl")" ] ||
      fail "$name $grid: partition differs from mcl's"
    grep -q "clusters found" "$work/$name.err" || fail "$name $grid: no summary on stderr"
    [ "$(grep -c "backend: cpu (CPU engine on $np rank" "$work/$name.err")" = 1 ] ||
      fail "$name $grid: not one backend line"
    echo "ok: $name $grid ($(wc -l < "$work/$name.mpi") clusters, $np ranks)"
  done
done

# --layout auto (the default) says what it chose and why: on the CPU engine the rows layout when
# the whole iterate fits every rank's memory (these networks do), the grid with --grid.
y=$ppi/PPISB_yeast.abc
run_mpi "$y" --abc --backend cpu --verbose -o "$work/auto.out" 2> "$work/auto.err"
grep -q "layout: rows (auto: two whole iterates on each of a node's [0-9]* rank(s) take about" \
  "$work/auto.err" || { fail "--layout auto: no rows layout said on the CPU"; grep layout "$work/auto.err"; }
run_mpi "$y" --abc --backend cpu --verbose --grid "1x$np" -o "$work/auto-grid.out" 2> "$work/auto-grid.err"
grep -q "layout: grid (auto: --grid asks for the grid layout)" "$work/auto-grid.err" ||
  fail "--layout auto with --grid: the grid layout not said"
cmp -s "$work/auto.out" "$work/auto-grid.out" || fail "--layout auto: the two layouts' files differ"
echo "ok: --layout auto: $(grep -o 'layout: rows (.*' "$work/auto.err")"

# --backend gpu, in both layouts: mcl's partition where every rank has a GPU (they share the
# node's GPUs), else status 1 and one message (OPSPARSE_REQUIRE_GPU=1: a GPU is required).
g=$ppi/PPISB_yeast.abc
# In the rows layout the kept rows go GPU to GPU by NCCL when every rank owns its GPU:
# OPSPARSE_EXPECT_NCCL=1 (scripts/gpu-check-mpi, where it knows there are as many GPUs as ranks)
# makes the host path a failure there.
for layout in grid rows; do
  run_mpi "$g" --abc --backend gpu --layout $layout --verbose -o "$work/gpu.out" 2> "$work/gpu.err"
  status=$?
  if [ $status = 0 ]; then
    [ "$(as_sets "$work/gpu.out")" = "$(as_sets "$work/PPISB_yeast.mcl")" ] ||
      fail "--backend gpu --layout $layout: partition differs from mcl's"
    [ "$(grep -c "backend: gpu (GPU engine on $np rank" "$work/gpu.err")" = 1 ] ||
      { fail "--backend gpu --layout $layout: not one GPU backend line"; cat "$work/gpu.err"; }
    how=$(grep -o "gathered through .*" "$work/gpu.err")
    if [ $layout = rows ]; then
      [ -n "$how" ] || fail "--backend gpu --layout rows: -V does not say how the rows were gathered"
      if [ "${OPSPARSE_EXPECT_NCCL:-0}" = 1 ]; then
        case $how in
          "gathered through NCCL; the iterate spread over the GPUs"*) ;;
          *) fail "--backend gpu --layout rows: $how, not NCCL with the iterate spread (OPSPARSE_EXPECT_NCCL=1)" ;;
        esac
        # The spread iterate gives the file of the whole one, in any number of column stages.
        OPSPARSE_MCL_WHOLE_ITERATE=1 run_mpi "$g" --abc --backend gpu --layout rows -o "$work/whole.out" 2> /dev/null &&
          cmp -s "$work/gpu.out" "$work/whole.out" ||
          fail "--backend gpu --layout rows: the spread iterate's output differs from the whole one's"
        # Rows split anew by the products before every expansion that changes the split
        # (moved GPU to GPU): each row is expanded as before, by another rank.
        OPSPARSE_MCL_RESPLIT=1 run_mpi "$g" --abc --backend gpu --layout rows --verbose \
          -o "$work/resplit.out" 2> "$work/resplit.err" &&
          cmp -s "$work/gpu.out" "$work/resplit.out" ||
          fail "--backend gpu --layout rows: rows split anew give another output"
        if [ "$np" -gt 1 ] && grep -q "split anew by the products 0 time" "$work/resplit.err"; then
          fail "--backend gpu --layout rows: OPSPARSE_MCL_RESPLIT=1 split nothing anew on $np ranks"
        fi
        # The fused expansion in 1 and 5 column stages (windows of 64 columns: several a stage).
        OPSPARSE_MCL_FUSED=1 OPSPARSE_MCL_FUSED_WINDOW=64 OPSPARSE_MCL_COLUMN_STAGES=1 \
          run_mpi "$g" --abc --backend gpu --layout rows -o "$work/stages1.out" 2> /dev/null &&
          OPSPARSE_MCL_FUSED=1 OPSPARSE_MCL_FUSED_WINDOW=64 OPSPARSE_MCL_COLUMN_STAGES=5 \
            run_mpi "$g" --abc --backend gpu --layout rows -o "$work/stages5.out" 2> /dev/null &&
          cmp -s "$work/stages1.out" "$work/stages5.out" &&
          [ "$(as_sets "$work/stages5.out")" = "$(as_sets "$work/PPISB_yeast.mcl")" ] ||
          fail "--backend gpu --layout rows: the fused expansion in 5 column stages differs from 1 stage's or mcl's"
      fi
    fi
    echo "ok: --backend gpu --layout $layout on $np ranks ($(wc -l < "$work/gpu.out") clusters, mcl's partition${how:+; $how})"
  elif [ $status = 1 ] && [ "${OPSPARSE_REQUIRE_GPU:-0}" != 1 ]; then
    [ "$(grep -c "^opsparse-mcl-mpi: .*--backend gpu: rank [0-9]* has no usable GPU" "$work/gpu.err")" = 1 ] ||
      { fail "--backend gpu --layout $layout without a GPU: not one message naming the rank"; cat "$work/gpu.err"; }
    [ -e "$work/gpu.out" ] && fail "--backend gpu --layout $layout without a GPU: an output file was written"
    echo "ok: --backend gpu --layout $layout refused without a GPU ($(grep -m1 "no usable GPU" "$work/gpu.err"))"
  else
    fail "--backend gpu --layout $layout: exit status $status"; cat "$work/gpu.err"
  fi
  rm -f "$work/gpu.out"
done

# A malformed input: a weight that is no number on line 3.
bad=$work/bad.abc
printf 'a\tb\t1\nb\tc\t2\nc\td\tnot-a-number\n' > "$bad"
out=$work/kept.out
echo "an earlier result" > "$out"
rm -f "$work"/status.*
# Each rank's own exit status, through a shell around it (mpiexec reports only one).
timeout 120 "$mpiexec" -n "$np" sh -c \
  '"$0" "$@"; echo $? > "'"$work"'/status.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-$$}}"' \
  "$mcl_mpi" "$bad" --abc -o "$out" 2> "$work/bad.err"
[ $? = 124 ] && fail "malformed input: mpiexec hung (timeout)"
statuses=$(cat "$work"/status.* 2> /dev/null | sort | uniq -c | sed 's/^ *//')
[ "$statuses" = "$np 1" ] || fail "malformed input: exit statuses '$statuses', want $np times 1"
errors=$(grep -c "^opsparse-mcl-mpi: error" "$work/bad.err")
[ "$errors" = 1 ] || { fail "malformed input: $errors error lines, want 1"; cat "$work/bad.err"; }
grep -q "bad.abc" "$work/bad.err" && grep -q ":3" "$work/bad.err" ||
  { fail "malformed input: the message does not name the file and line 3"; cat "$work/bad.err"; }
[ "$(cat "$out")" = "an earlier result" ] || fail "malformed input: the output file was changed"
leftovers=$(find "$work" -name '.kept.out.tmp*' | wc -l)
[ "$leftovers" = 0 ] || fail "malformed input: $leftovers temporary files left beside the output"
echo "ok: malformed input ($(grep "^opsparse-mcl-mpi: error" "$work/bad.err"))"

# A bad line in a later rank's part of the file (every rank reads its part): the message of
# opsparse-mcl, which reads the file whole, with the same line.
late=$work/late.abc
{ cat "$ppi/PPISB_yeast.abc"; printf 'x\ty\tnot-a-number\n'; head -100 "$ppi/PPISB_yeast.abc"; } > "$late"
"$mcl_single" "$late" --abc --backend cpu -o "$work/late.single" 2> "$work/late.single.err"
run_mpi "$late" --abc --backend cpu -o "$work/late.out" 2> "$work/late.err"
# (only the programs' own lines: an MPI runtime may write its own with "error" in them)
[ "$(grep "^opsparse-mcl-mpi: error" "$work/late.err")" = "$(grep "^opsparse-mcl: error" "$work/late.single.err" | sed 's/^opsparse-mcl:/opsparse-mcl-mpi:/')" ] &&
  grep -q ":$(( $(wc -l < "$ppi/PPISB_yeast.abc") + 1 )):" "$work/late.err" ||
  { fail "a bad line late in the file: not opsparse-mcl's message"; cat "$work/late.err" "$work/late.single.err"; }
echo "ok: a bad line late in the file ($(grep -m1 error "$work/late.err"))"
# A missing input: status 1, one message, no output.
run_mpi "$work/missing.abc" --abc -o "$work/missing.out" 2> "$work/missing.err"
[ $? = 1 ] || fail "missing input: exit status is not 1"
[ "$(grep -c "^opsparse-mcl-mpi: error" "$work/missing.err")" = 1 ] ||
  { fail "missing input: not one error line"; cat "$work/missing.err"; }
[ -e "$work/missing.out" ] && fail "missing input: an output file was written"

# --help: rank 0 prints it once, with --grid and without the options that do not apply.
run_mpi --help > "$work/help.out" 2>&1
[ "$(grep -c "^Usage: mpirun -np P opsparse-mcl-mpi" "$work/help.out")" = 1 ] || fail "--help: not one usage"
grep -q -- "--grid RxC" "$work/help.out" || fail "--help does not document --grid"
grep -q -- "--backend" "$work/help.out" || fail "--help does not document --backend"
grep -q -- "--layout L" "$work/help.out" || fail "--help does not document --layout"
grep -Eq -- "^ +--(inflations|block-products)" "$work/help.out" &&
  fail "--help lists an option opsparse-mcl-mpi refuses"
run_mpi "$ppi/PPISB_yeast.abc" --backend tpu -o "$work/tpu.out" 2> /dev/null
[ $? = 2 ] || fail "--backend tpu: not refused as a usage error"

# An unknown layout: a usage error.
run_mpi "$ppi/PPISB_yeast.abc" --abc --layout columns -o "$work/rows.out" 2> /dev/null
[ $? = 2 ] || fail "--layout columns: not refused as a usage error"
[ -e "$work/rows.out" ] && fail "a refused layout wrote an output file"

# A grid that does not fit the job: a usage error, once.
run_mpi "$ppi/PPISB_yeast.abc" --abc --grid 3x5 -o "$work/grid.out" 2> "$work/grid.err"
[ $? = 2 ] || fail "--grid 3x5: exit status is not 2"
[ "$(grep -c "^opsparse-mcl-mpi: error: --grid 3x5 needs 15 ranks" "$work/grid.err")" = 1 ] &&
  [ "$(grep -c "^Try 'opsparse-mcl-mpi --help'.$" "$work/grid.err")" = 1 ] ||
  { fail "--grid 3x5: not one message"; cat "$work/grid.err"; }

[ $failures = 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all checks passed on $np ranks"
