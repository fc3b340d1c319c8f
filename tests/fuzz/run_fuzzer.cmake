# Runs one fuzzer for a fixed number of inputs over a fresh seed corpus (ctest's fuzz_* tests).
#   cmake -DFUZZER=<exe> -DWORK_DIR=<dir> -DRUNS=<n> -DMAX_LEN=<bytes> -DDICT=<file>
#         -DEXTENSION=<.mtx|.txt|.abc> -DSEED_DIR=<tests/data/io> -DDATASETS_DIR=<dir>
#         -DSEED_MAX_BYTES=<n> -P run_fuzzer.cmake
#   cmake -DSKIP_REASON=<why> -P run_fuzzer.cmake      (no fuzzer could be built)
# The seeds are the files of SEED_DIR with the extension and those of the shared data sets
# ($OPSPARSE_DATASETS, else DATASETS_DIR; searched recursively) of at most SEED_MAX_BYTES.
# $OPSPARSE_FUZZ_SEED sets libFuzzer's seed (default 1, so that a run repeats), and
# $OPSPARSE_FUZZ_RUNS the number of inputs.
if(DEFINED SKIP_REASON)
  # ctest marks the test skipped on this text (SKIP_REGULAR_EXPRESSION).
  message("opsparse fuzz test skipped: ${SKIP_REASON}")
  return()
endif()
foreach(_var FUZZER WORK_DIR RUNS MAX_LEN EXTENSION DICT SEED_DIR SEED_MAX_BYTES)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "run_fuzzer.cmake: -D${_var}=... is missing")
  endif()
endforeach()
if(DEFINED ENV{OPSPARSE_FUZZ_RUNS})
  set(RUNS $ENV{OPSPARSE_FUZZ_RUNS})
endif()
set(_seed 1)
if(DEFINED ENV{OPSPARSE_FUZZ_SEED})
  set(_seed $ENV{OPSPARSE_FUZZ_SEED})
endif()
set(_datasets "${DATASETS_DIR}")
if(DEFINED ENV{OPSPARSE_DATASETS})
  set(_datasets "$ENV{OPSPARSE_DATASETS}")
endif()

# A fresh corpus every run: libFuzzer adds the inputs it finds to the first folder given, and a
# corpus grown by earlier runs would make the test's work depend on its history.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/corpus ${WORK_DIR}/seeds)
file(GLOB _local "${SEED_DIR}/*${EXTENSION}")
set(_shared "")
if(_datasets AND IS_DIRECTORY "${_datasets}")
  file(GLOB_RECURSE _shared "${_datasets}/*${EXTENSION}")
endif()
set(_count 0)
set(_skipped 0)
foreach(_f IN LISTS _local _shared)
  file(SIZE ${_f} _size)
  if(_size GREATER SEED_MAX_BYTES)
    math(EXPR _skipped "${_skipped} + 1")
    continue()
  endif()
  # Names unique across both sources: "<n>_<file name>".
  get_filename_component(_name ${_f} NAME)
  file(COPY_FILE ${_f} ${WORK_DIR}/seeds/${_count}_${_name})
  math(EXPR _count "${_count} + 1")
endforeach()
list(LENGTH _local _nlocal)
if(_datasets AND IS_DIRECTORY "${_datasets}")
  message("seeds: ${_count} files (${_nlocal} from ${SEED_DIR}, the rest from ${_datasets}; "
          "${_skipped} over ${SEED_MAX_BYTES} bytes left out)")
else()
  message("seeds: ${_count} files from ${SEED_DIR} (no shared data sets at '${_datasets}')")
endif()
if(_count EQUAL 0)
  message(FATAL_ERROR "no seed files with extension ${EXTENSION} in ${SEED_DIR}")
endif()

# UBSan aborts (-fno-sanitize-recover); the stack says where.
if(NOT DEFINED ENV{UBSAN_OPTIONS})
  set(ENV{UBSAN_OPTIONS} "print_stacktrace=1")
endif()
# -timeout turns a hang into a failure with the input saved; -rss_limit_mb bounds memory.
set(_cmd ${FUZZER} -runs=${RUNS} -max_len=${MAX_LEN} -seed=${_seed} -timeout=20 -rss_limit_mb=2048
    -dict=${DICT} -artifact_prefix=${WORK_DIR}/ -print_final_stats=1
    ${WORK_DIR}/corpus ${WORK_DIR}/seeds)
string(REPLACE ";" " " _shown "${_cmd}")
message("running: ${_shown}")
execute_process(COMMAND ${_cmd} RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  file(GLOB _found ${WORK_DIR}/crash-* ${WORK_DIR}/timeout-* ${WORK_DIR}/oom-*
       ${WORK_DIR}/leak-*)
  string(REPLACE ";" "\n  " _found "${_found}")
  message(FATAL_ERROR
          "${FUZZER} failed (exit ${_rc}). The input that failed:\n  ${_found}\n"
          "Reproduce with: ${FUZZER} <input>; then add it to tests/unit/io/test_io_fuzz.cpp as a "
          "regression test.")
endif()
