# Runs test binaries from a copy of the tree in a temporary folder (cmake -P). The copy:
#   T/tree/tests/data, T/tree/datasets/{fetch.sh,manifest.tsv}, T/tree/bin/<binaries>
#   T/src/tests/data, T/src/datasets/{fetch.sh,manifest.tsv}   a second copy, named by the environment
#   T/empty/                                                   an empty source tree
# 1. With OPSPARSE_SOURCE_DIR=T/src, OPSPARSE_BIN_DIR=T/tree/bin (and OPSPARSE_DATASETS): every
#    binary of TESTS passes, and the paths binary reports T/src, not T/tree nor the real tree.
# 2. With OPSPARSE_SOURCE_DIR=T/empty, the paths binary and the tests of the committed files in
#    the I/O and data-set binaries fail, naming T/empty: the variable steers their lookups (in
#    this tree the compiled paths exist, so a binary that ignored it would pass).
# 3. With no variable: the paths binary reports T/tree (found from the binary's folder), and the
#    I/O tests of the committed samples pass.
# The source tree is never touched. T is removed on success and kept (its path printed) on failure.
# Inputs: SRC (source root), BINARIES (|-separated files to copy), TESTS (|-separated names of the
# GoogleTest binaries among them, to run, each optionally followed by @<gtest filter>), DATASETS
# (the configured data-set folder).
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" BINARIES "${BINARIES}")
string(REPLACE "|" ";" TESTS "${TESTS}")
list(FILTER BINARIES EXCLUDE REGEX "^$")
list(FILTER TESTS EXCLUDE REGEX "^$")

if(DEFINED ENV{TMPDIR} AND IS_DIRECTORY "$ENV{TMPDIR}")
  set(tmp "$ENV{TMPDIR}")
else()
  set(tmp /tmp)
endif()
string(RANDOM LENGTH 10 tag)
set(T "${tmp}/opsparse_relocated_${tag}")
file(REMOVE_RECURSE "${T}")

foreach(copy tree src)
  file(MAKE_DIRECTORY "${T}/${copy}/tests" "${T}/${copy}/datasets")
  file(COPY "${SRC}/tests/data" DESTINATION "${T}/${copy}/tests")
  file(COPY "${SRC}/datasets/fetch.sh" "${SRC}/datasets/manifest.tsv" DESTINATION "${T}/${copy}/datasets")
endforeach()
file(MAKE_DIRECTORY "${T}/tree/bin" "${T}/empty")
file(COPY ${BINARIES} DESTINATION "${T}/tree/bin")

# The data sets stay where they are (they are shared, not part of the tree); the environment's
# setting wins over the configured one, as it does for the tests.
set(datasets_env --unset=OPSPARSE_DATASETS)
if(DEFINED ENV{OPSPARSE_DATASETS})
  set(datasets_env "OPSPARSE_DATASETS=$ENV{OPSPARSE_DATASETS}")
elseif(IS_DIRECTORY "${DATASETS}")
  get_filename_component(d "${DATASETS}" ABSOLUTE)
  set(datasets_env "OPSPARSE_DATASETS=${d}")
endif()

set(errors "")
# run(<label> <expect: pass|fail> <env args> -- <binary> [args...]); output in run_output
function(run label expect)
  cmake_parse_arguments(PARSE_ARGV 2 R "" "" "ENV;CMD")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${R_ENV} ${R_CMD}
                  WORKING_DIRECTORY "${T}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out
                  TIMEOUT 900)
  set(run_output "${out}" PARENT_SCOPE)
  if(expect STREQUAL "pass" AND NOT rc EQUAL 0)
    message("---- ${label}: exit ${rc}; output:\n${out}")
    set(errors "${errors}\n  ${label}: failed (exit ${rc})" PARENT_SCOPE)
  elseif(expect STREQUAL "fail" AND rc EQUAL 0)
    message("---- ${label}: passed but should have failed; output:\n${out}")
    set(errors "${errors}\n  ${label}: passed although the source tree it was given is empty" PARENT_SCOPE)
  else()
    message("${label}: exit ${rc} as expected")
  endif()
endfunction()

# expect_line(<label> <text>): run_output must hold <text> as a whole line
function(expect_line label text)
  string(FIND "${run_output}\n" "${text}\n" at)
  if(at EQUAL -1)
    set(errors "${errors}\n  ${label}: no line '${text}' in its output" PARENT_SCOPE)
  endif()
endfunction()

# expect_text(<label> <text>): run_output must contain <text>
function(expect_text label text)
  string(FIND "${run_output}" "${text}" at)
  if(at EQUAL -1)
    set(errors "${errors}\n  ${label}: '${text}' not in its output" PARENT_SCOPE)
  endif()
endfunction()

set(bin "${T}/tree/bin")
set(env_set "OPSPARSE_SOURCE_DIR=${T}/src" "OPSPARSE_BIN_DIR=${bin}" ${datasets_env})
foreach(entry IN LISTS TESTS)
  string(REPLACE "@" ";" entry "${entry}")
  list(GET entry 0 t)
  set(filter "*")
  list(LENGTH entry n)
  if(n GREATER 1)
    list(GET entry 1 filter)
  endif()
  run("${t} (variables set)" pass ENV ${env_set} CMD "${bin}/${t}" --gtest_brief=1 "--gtest_filter=${filter}")
  if(t STREQUAL "opsparse_test_paths")
    expect_line("${t} (variables set)" "[ paths    ] test_data_dir=${T}/src/tests/data")
    expect_line("${t} (variables set)" "[ paths    ] fetch_script=${T}/src/datasets/fetch.sh")
  endif()
endforeach()

# The failures must come from the empty tree: its path in the messages.
set(env_empty "OPSPARSE_SOURCE_DIR=${T}/empty" "OPSPARSE_BIN_DIR=${bin}" ${datasets_env})
run("opsparse_test_paths (empty source tree)" fail ENV ${env_empty}
    CMD "${bin}/opsparse_test_paths" --gtest_brief=1 --gtest_filter=Paths.ReportWhatResolvesHere)
expect_line("opsparse_test_paths (empty source tree)" "[ paths    ] test_data_dir=${T}/empty/tests/data")
if("opsparse_test_io" IN_LIST TESTS)
  run("opsparse_test_io (empty source tree)" fail ENV ${env_empty}
      CMD "${bin}/opsparse_test_io" --gtest_brief=1 "--gtest_filter=-IoFuzz.*:IoDatasets.*")
  expect_text("opsparse_test_io (empty source tree)" "${T}/empty/tests/data/io/")
endif()
if("opsparse_test_datasets" IN_LIST TESTS)
  run("opsparse_test_datasets (empty source tree)" fail ENV ${env_empty}
      CMD "${bin}/opsparse_test_datasets" --gtest_brief=1 "--gtest_filter=datasets_fetch.*")
  expect_text("opsparse_test_datasets (empty source tree)" "${T}/empty/datasets/")
endif()

set(env_unset --unset=OPSPARSE_SOURCE_DIR --unset=OPSPARSE_BIN_DIR ${datasets_env})
run("opsparse_test_paths (no variables)" pass ENV ${env_unset}
    CMD "${bin}/opsparse_test_paths" --gtest_brief=1)
expect_line("opsparse_test_paths (no variables)" "[ paths    ] test_data_dir=${T}/tree/tests/data")
expect_line("opsparse_test_paths (no variables)" "[ paths    ] fetch_script=${T}/tree/datasets/fetch.sh")
# the committed samples, without the slow fuzz test and the shared data sets run above
run("opsparse_test_io (no variables)" pass ENV ${env_unset}
    CMD "${bin}/opsparse_test_io" --gtest_brief=1 "--gtest_filter=-IoFuzz.*:IoDatasets.*")

if(errors)
  message(FATAL_ERROR "relocated tree in ${T} (kept for inspection):${errors}")
endif()
file(REMOVE_RECURSE "${T}")
message("relocated tree: every run as expected")
