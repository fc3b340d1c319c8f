# Installs the built project into a scratch prefix, then configures and builds a separate project
# that finds it with find_package(opsparse). cmake -P with:
#   BUILD, WORK            this build, a scratch folder (emptied first)
#   GENERATOR, MAKE_PROGRAM, CXX_COMPILER   the build's (the consumer needs nothing from PATH)
#   MODE=cpu   CPU_SRC, GPU_SRC, GPU_MISSING (a regex): with the CUDA toolkit made unfindable, the
#              CPU consumer configures, links (no CUDA library among its runtime dependencies) and
#              runs on a Matrix Market file; the GPU consumer's configure fails, saying why
#              (GPU_MISSING).
#   MODE=gpu   GPU_SRC: the GPU consumer configures and links against the static CUDA runtime
#              (no libcudart among its runtime dependencies); the run is a test of its own.

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "${what} failed: ${rc}")
  endif()
endfunction()

# Configures project `src` into `bin`; `rc_var` and `out_var` get the status and the output.
function(configure_consumer src bin rc_var out_var)
  execute_process(COMMAND ${CMAKE_COMMAND} -S "${src}" -B "${bin}" -G "${GENERATOR}"
                  "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
                  "-DCMAKE_PREFIX_PATH=${WORK}/prefix" -DCMAKE_BUILD_TYPE=Release ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  set(${rc_var} "${rc}" PARENT_SCOPE)
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# Fails when a library whose name matches `regex` is among the runtime dependencies of `exe`.
function(expect_no_runtime_dependency exe regex)
  file(GET_RUNTIME_DEPENDENCIES EXECUTABLES "${exe}" RESOLVED_DEPENDENCIES_VAR resolved
       UNRESOLVED_DEPENDENCIES_VAR unresolved)
  foreach(lib IN LISTS resolved unresolved)
    get_filename_component(name "${lib}" NAME)
    if(name MATCHES "${regex}")
      message(FATAL_ERROR "${exe} needs ${lib} at run time")
    endif()
  endforeach()
  message(STATUS "${exe}: no runtime dependency matches ${regex}")
endfunction()

file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD}" --prefix "${WORK}/prefix"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "install failed: ${rc}")
endif()

if(MODE STREQUAL "cpu")
  # No nvcc on PATH (every folder holding one is dropped, wrappers included), no toolkit
  # location in the environment, and find_package(CUDAToolkit) disabled: a machine without CUDA.
  string(REPLACE ":" ";" dirs "$ENV{PATH}")
  set(kept "")
  foreach(dir IN LISTS dirs)
    if(NOT EXISTS "${dir}/nvcc")
      list(APPEND kept "${dir}")
    endif()
  endforeach()
  string(REPLACE ";" ":" kept "${kept}")
  set(ENV{PATH} "${kept}")
  foreach(var CUDACXX CUDA_PATH CUDA_HOME CUDA_ROOT CUDAToolkit_ROOT)
    unset(ENV{${var}})
  endforeach()
  set(no_cuda -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON)

  configure_consumer("${CPU_SRC}" "${WORK}/cpu" rc out ${no_cuda})
  if(rc)
    message(FATAL_ERROR "configuring the CPU consumer without CUDA failed: ${rc}")
  endif()
  run_step("building the CPU consumer" ${CMAKE_COMMAND} --build "${WORK}/cpu")
  # [[1 2 0] [0 0 3] [4 0 0]], 1-based Matrix Market coordinates.
  file(WRITE "${WORK}/a.mtx" "%%MatrixMarket matrix coordinate real general\n"
       "3 3 4\n1 1 1\n1 2 2\n2 3 3\n3 1 4\n")
  run_step("the CPU consumer" "${WORK}/cpu/consumer" "${WORK}/a.mtx")
  expect_no_runtime_dependency("${WORK}/cpu/consumer" "^lib(cuda|cudart|cusparse|nvJitLink)[.]")

  # The same machine cannot have the GPU component: find_package must fail and say why.
  configure_consumer("${GPU_SRC}" "${WORK}/gpu" rc out ${no_cuda})
  if(NOT rc)
    message(FATAL_ERROR "find_package(opsparse COMPONENTS gpu) succeeded with CUDA hidden")
  endif()
  if(NOT out MATCHES "${GPU_MISSING}")
    message(FATAL_ERROR "the GPU consumer's failure does not match '${GPU_MISSING}'")
  endif()
  message(STATUS "find_package(opsparse COMPONENTS gpu) without CUDA failed as expected")
elseif(MODE STREQUAL "gpu")
  configure_consumer("${GPU_SRC}" "${WORK}/gpu" rc out)
  if(rc)
    message(FATAL_ERROR "configuring the GPU consumer failed: ${rc}")
  endif()
  run_step("building the GPU consumer" ${CMAKE_COMMAND} --build "${WORK}/gpu")
  expect_no_runtime_dependency("${WORK}/gpu/consumer_gpu" "^libcudart[.]")
else()
  message(FATAL_ERROR "MODE must be cpu or gpu, not '${MODE}'")
endif()
