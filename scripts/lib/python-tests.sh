# The Python package's tests (python/tests), for scripts/test: a virtual environment under the
# build folder gets the build tools and test dependencies from PyPI, the package is built and
# installed from the root's pyproject.toml as a user would (`pip install .`), with the CPU engine
# unless OPSPARSE_PYTHON_GPU=1, and pytest runs. Sets py_passed, py_failed, py_skipped and
# writes "count<TAB>reason" lines for the skips to $py_reasons. Without Python's venv module or
# without a network to reach PyPI, the stage counts as one skipped test with the reason.
# OPSPARSE_PYTHON_TESTS=0 leaves it out.

# python_tests <root> <build>
python_tests() {
  local root=$1 build=$2
  py_passed=0 py_failed=0 py_skipped=0
  py_reasons=$build/Testing/Temporary/python-skips.tsv
  : >"$py_reasons"
  py_skip() { py_skipped=1; printf '1\tpython tests: %s\n' "$1" >"$py_reasons"; echo "[opsparse] python tests skipped: $1"; }
  if [ "${OPSPARSE_PYTHON_TESTS:-1}" = 0 ]; then py_skip "OPSPARSE_PYTHON_TESTS=0"; return 0; fi
  local python=${OPSPARSE_PYTHON:-python3}
  command -v "$python" >/dev/null || { py_skip "no $python"; return 0; }
  local venv=$build/python-venv log=$build/Testing/Temporary/python-tests.log
  echo "[opsparse] python tests: virtual environment $venv"
  if [ ! -x "$venv/bin/python" ] && ! "$python" -m venv "$venv" >"$log" 2>&1; then
    rm -rf "$venv"
    py_skip "$python -m venv failed (install python3-venv): $(tail -1 "$log")"; return 0
  fi
  local need=(scikit-build-core nanobind numpy scipy networkx pytest)
  if ! "$venv/bin/python" -c "import scikit_build_core, nanobind, numpy, scipy, networkx, pytest" 2>/dev/null; then
    if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check "${need[@]}" >"$log" 2>&1; then
      py_skip "pip could not install ${need[*]} (no network or no PyPI?): $(tail -1 "$log")"; return 0
    fi
  fi
  # --config-settings spelled out: pip's short -C came with pip 23.1 (Debian 12 has 23.0.1)
  local cmake_args=(--config-settings="build-dir=$build/python-build")
  [ "${OPSPARSE_PYTHON_GPU:-0}" = 1 ] || cmake_args+=(--config-settings=cmake.define.OPSPARSE_GPU=OFF)
  echo "[opsparse] python tests: pip install $root (${cmake_args[*]})"
  if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation \
      "${cmake_args[@]}" "$root" >"$log" 2>&1; then
    cat "$log" >&2
    echo "[opsparse] python tests: building the package failed" >&2
    py_failed=1; return 0
  fi
  local out=$build/Testing/Temporary/pytest.log
  set +e
  (cd "$root" && OPSPARSE_BUILD_DIR=$build "$venv/bin/python" -m pytest python/tests -q -rs \
      -p no:cacheprovider 2>&1) | tee "$out"
  local prc=${PIPESTATUS[0]}
  set -e
  # pytest's last line: "== 70 passed, 2 skipped in 20.58s ==" (counts in any order)
  local last
  last=$(grep -E '[0-9]+ (passed|failed|skipped|error)' "$out" | tail -1)
  py_passed=$(grep -oE '[0-9]+ passed' <<<"$last" | grep -oE '[0-9]+' || echo 0)
  py_failed=$(( $(grep -oE '[0-9]+ failed' <<<"$last" | grep -oE '[0-9]+' || echo 0) \
              + $(grep -oE '[0-9]+ errors?' <<<"$last" | grep -oE '[0-9]+' || echo 0) ))
  py_skipped=$(grep -oE '[0-9]+ skipped' <<<"$last" | grep -oE '[0-9]+' || echo 0)
  # "SKIPPED [2] python/tests/x.py:14: reason"
  sed -nE 's/^SKIPPED \[([0-9]+)\] [^ ]+: (.*)$/\1\tpython: \2/p' "$out" >"$py_reasons"
  if [ "$prc" != 0 ] && [ "$py_failed" = 0 ]; then py_failed=1; fi  # pytest itself failed
}
