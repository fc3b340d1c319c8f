# Shared by scripts/demo, scripts/test, scripts/gpu-check and gpu-check-mpi: dependency
# installation, configure, and the built programs of a build folder.
# Installs only from the system package manager, and only when run as root.

opsparse_root() { cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd; }

# opsparse_ensure_deps [extra debian packages...]
opsparse_ensure_deps() {
  local missing=()
  command -v cmake >/dev/null || missing+=(cmake)
  command -v ninja >/dev/null || missing+=(ninja-build)
  command -v g++ >/dev/null || missing+=(g++)
  [ -f /usr/include/boost/program_options.hpp ] && ls /usr/lib/*/libboost_program_options.a >/dev/null 2>&1 \
    || missing+=(libboost-program-options-dev)
  [ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
  [ -f /usr/include/nlohmann/json.hpp ] || missing+=(nlohmann-json3-dev)
  local p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "[opsparse] installing: ${missing[*]}" >&2
      DEBIAN_FRONTEND=noninteractive apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
      echo "[opsparse] missing packages: ${missing[*]} (run as root to install them, or install by hand)" >&2
      return 1
    fi
  fi
  if ! command -v nvcc >/dev/null; then
    [ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
  fi
  command -v nvcc >/dev/null || { echo "[opsparse] nvcc not found: install the CUDA Toolkit (12.x or 13.x)" >&2; return 1; }
}

# opsparse_configure <build-dir> [cmake args...]
# $OPSPARSE_CMAKE_ARGS adds configure arguments, split at spaces (e.g. "-DOPSPARSE_GPU=OFF
# -DOPSPARSE_BUILD_BENCH=OFF" for a host-only build); they come last, so they win.
opsparse_configure() {
  local build=$1; shift
  local extra=()
  read -r -a extra <<<"${OPSPARSE_CMAKE_ARGS:-}"
  cmake -S "$(opsparse_root)" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" "${extra[@]}" >/dev/null
}

# opsparse_built_programs BUILD [find tests...]: the executables a build folder made (the paths,
# one a line), not the copies left under it by the install tests (tests/consumer, built earlier:
# a benchmark once ran such a stale opsparse-msbfs) nor the Python package's CPU-only build
# (python-build: its opsparse-mcl has no GPU engine).
opsparse_built_programs() {
  local build=$1; shift
  find "$build" \( -path '*/tests/consumer/work-*' -o -path '*/python-build' \) -prune -o \
    -type f -executable "$@" -print
}
