#!/usr/bin/env bash
# A machine without the CUDA Toolkit: the scripts choose the CPU engine and say so, and the
# project configures without looking for CUDA at all, whether the scripts pass their choice or
# CMake detects it. nvcc is hidden by a PATH without its folder and a CUDA_HOME that holds none.
# Usage: without_cuda.sh <source dir> <scratch dir>
set -euo pipefail
src=$1 scratch=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$scratch" && mkdir -p "$scratch/bin"
# a PATH with every tool the configure step needs but nvcc
for tool in cmake ninja g++ gcc c++ cc ld as ar ranlib nm objdump strip dpkg git sed awk grep \
    uname mkdir rm cat dirname basename bash sh env chmod ln cp mv ls find sort tr cut head tail \
    readlink xargs mpicxx mpicc pkg-config; do
  p=$(command -v "$tool" 2>/dev/null) && ln -sf "$p" "$scratch/bin/$tool"
done
export PATH=$scratch/bin CUDA_HOME=$scratch/no-cuda
unset CUDACXX CMAKE_CUDA_COMPILER OPSPARSE_ENGINE OPSPARSE_CMAKE_ARGS
! command -v nvcc >/dev/null || fail "nvcc is still on PATH"

# 1. the scripts' choice, and their message
msg=$(bash -c "source '$src/scripts/lib/common.sh'; opsparse_find_cuda; echo ENGINE=\$OPSPARSE_ENGINE; opsparse_engine_args" 2>&1)
grep -q 'ENGINE=cpu' <<<"$msg" || fail "engine not cpu without nvcc: $msg"
grep -q 'no CUDA Toolkit' <<<"$msg" || fail "no message saying the GPU engine is not built: $msg"
grep -qx -- '-DOPSPARSE_GPU=OFF' <<<"$msg" || fail "configure arguments lack -DOPSPARSE_GPU=OFF: $msg"
# with nvcc back (a fake one under CUDA_HOME), the GPU engine is chosen
mkdir -p "$scratch/fake-cuda/bin" && printf '#!/bin/sh\nexit 0\n' >"$scratch/fake-cuda/bin/nvcc"
chmod +x "$scratch/fake-cuda/bin/nvcc"
msg=$(CUDA_HOME=$scratch/fake-cuda bash -c "source '$src/scripts/lib/common.sh'; opsparse_find_cuda; echo ENGINE=\$OPSPARSE_ENGINE; OPSPARSE_CUDA_ARCHITECTURES=90 opsparse_engine_args" 2>&1)
grep -q 'ENGINE=gpu' <<<"$msg" || fail "engine not gpu with nvcc under CUDA_HOME: $msg"
grep -qx -- '-DCMAKE_CUDA_ARCHITECTURES=90' <<<"$msg" || fail "OPSPARSE_CUDA_ARCHITECTURES not passed on: $msg"

# 2. CMake alone (no OPSPARSE_GPU given) finds no CUDA compiler, says so and configures the CPU build
configure() {
  local b=$1; shift
  cmake -S "$src" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOPSPARSE_MPI=OFF \
    -DOPSPARSE_BUILD_BENCH=OFF "$@" >"$b.log" 2>&1 || { cat "$b.log" >&2; fail "configure failed: $*"; }
}
configure "$scratch/auto"
grep -q 'no CUDA compiler found: building the CPU engine only' "$scratch/auto.log" \
  || fail "CMake did not say that it builds the CPU engine only"
grep -q '^OPSPARSE_GPU:BOOL=OFF' "$scratch/auto/CMakeCache.txt" || fail "OPSPARSE_GPU is not OFF"
! grep -q '^CMAKE_CUDA_COMPILER:.*nvcc' "$scratch/auto/CMakeCache.txt" || fail "a CUDA compiler was recorded"
# the programs and the CPU tests are configured; the GPU library is not
grep -q 'build opsparse-mcl:' "$scratch/auto/build.ninja" 2>/dev/null \
  || grep -q 'apps/mcl/opsparse-mcl' "$scratch/auto/build.ninja" || fail "opsparse-mcl is not built"
! grep -q 'libopsparse_gpu' "$scratch/auto/build.ninja" || fail "the GPU library is still built"
echo "without_cuda: the scripts and CMake choose the CPU engine without nvcc"
