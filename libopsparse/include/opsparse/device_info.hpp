#pragma once
// The device properties the engine's tuning is derived from, apart from context.hpp so that the
// host library (policy.hpp: the tables can be derived and printed for any device description)
// compiles without the CUDA headers.
#include <cstddef>
#include <string>

namespace opsparse {

/// What the engine's tuning is derived from (read once from cudaGetDeviceProperties).
struct device_info {
  int device = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  int regs_per_sm = 0;
  std::size_t smem_per_sm = 0;              ///< bytes usable by blocks on one SM
  std::size_t smem_per_block_optin = 0;     ///< the opt-in per-block limit (227 KiB on H100)
  std::size_t smem_reserved_per_block = 0;  ///< the runtime's own reservation (1 KiB from sm_80)
  std::size_t global_mem = 0;
  std::size_t l2_bytes = 0;
};

}  // namespace opsparse
