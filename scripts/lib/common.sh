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
  opsparse_find_cuda
}

# opsparse_find_cuda: puts the CUDA Toolkit's nvcc on PATH when it is installed (PATH, $CUDA_HOME,
# else /usr/local/cuda) and sets OPSPARSE_ENGINE to gpu, or to cpu when there is none: the
# configure step then builds the CPU engine alone (no CUDA needed at all), and says so once.
# OPSPARSE_ENGINE=cpu set by the caller skips the GPU build even where the toolkit is present.
opsparse_find_cuda() {
  if [ "${OPSPARSE_ENGINE:-}" = cpu ]; then
    echo "[opsparse] OPSPARSE_ENGINE=cpu: building the CPU engine only" >&2
    return 0
  fi
  local cuda_home=${CUDA_HOME:-/usr/local/cuda}
  if ! command -v nvcc >/dev/null && [ -x "$cuda_home/bin/nvcc" ]; then
    export PATH=$cuda_home/bin:$PATH
  fi
  if command -v nvcc >/dev/null; then
    OPSPARSE_ENGINE=gpu
  else
    OPSPARSE_ENGINE=cpu
    echo "[opsparse] no CUDA Toolkit (nvcc not on PATH nor in $cuda_home/bin): building the CPU" \
      "engine only (OpenMP). Install the CUDA Toolkit 12.x or 13.x for the GPU engine." >&2
  fi
  export OPSPARSE_ENGINE
}

# opsparse_engine_args: the configure arguments that OPSPARSE_ENGINE implies (one a line).
# cpu: no GPU engine and no benchmark (it times cuSPARSE). gpu: the architectures named by
# OPSPARSE_CUDA_ARCHITECTURES (e.g. "90" or "80;90"; default: CMakeLists.txt's choice, the
# machine's GPU or 80 and 90 without one).
opsparse_engine_args() {
  if [ "${OPSPARSE_ENGINE:-gpu}" = cpu ]; then
    printf '%s\n' -DOPSPARSE_GPU=OFF -DOPSPARSE_BUILD_BENCH=OFF
    return 0
  fi
  printf '%s\n' -DOPSPARSE_GPU=ON -DOPSPARSE_BUILD_BENCH=ON
  if [ -n "${OPSPARSE_CUDA_ARCHITECTURES:-}" ]; then
    printf '%s\n' "-DCMAKE_CUDA_ARCHITECTURES=$OPSPARSE_CUDA_ARCHITECTURES"
  fi
}

# opsparse_configure <build-dir> [cmake args...]
# $OPSPARSE_CMAKE_ARGS adds configure arguments, split at spaces (e.g. "-DOPSPARSE_GPU=OFF
# -DOPSPARSE_BUILD_BENCH=OFF" for a host-only build); they come last, so they win.
opsparse_configure() {
  local build=$1; shift
  local extra=() engine=()
  read -r -a extra <<<"${OPSPARSE_CMAKE_ARGS:-}"
  mapfile -t engine < <(opsparse_engine_args)
  cmake -S "$(opsparse_root)" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" \
    "${engine[@]}" "${extra[@]}" >/dev/null
}

# opsparse_built_programs BUILD [find tests...]: the executables a build folder made (the paths,
# one a line), not the copies left under it by the install tests (tests/consumer, built earlier:
# a benchmark once ran such a stale opsparse-msbfs), the Python package's CPU-only build
# (python-build: its opsparse-mcl has no GPU engine) nor the package's copies of the programs
# (python/opsparse/bin).
opsparse_built_programs() {
  local build=$1; shift
  find "$build" \( -path '*/tests/consumer/work-*' -o -path '*/python-build' \
    -o -path '*/python/opsparse/bin' \) -prune -o -type f -executable "$@" -print
}
