#pragma once
// The GPU backend's device memory budget: what the backend may take beyond what the process
// held when it was made (the CUDA context's own memory), within the device's free memory.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "opsparse/context.hpp"
#include "opsparse/error.hpp"

namespace opsparse::mcl {

/// What the process's device memory held at one moment (bytes), for --verbose.
struct device_memory_use {
  std::size_t used = 0;          ///< the process's device memory (cudaMemGetInfo)
  std::size_t iterate = 0;       ///< the current iterate's arrays
  std::size_t next_iterate = 0;  ///< the next iterate's device arrays (streamed: its buffers)
  std::size_t workspaces = 0;    ///< the expansion's workspaces
  std::size_t pool_idle = 0;     ///< freed blocks the memory pool keeps
};

class device_memory_budget {
 public:
  /// `bytes`: the budget (0: the device's free memory now).
  explicit device_memory_budget(std::size_t bytes) {
    std::size_t free_bytes = 0, total_bytes = 0;
    OPSPARSE_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    baseline_ = total_bytes - free_bytes;
    budget_ = bytes > 0 ? bytes : free_bytes;
  }

  std::size_t bytes() const noexcept { return budget_; }

  /// "at WHERE: before the backend X MiB, iterate ..., the rest R MiB": the rest is what the
  /// backend does not count (the engine's plan and windows, CUB's and other scratch).
  std::string describe(const char* where, const device_memory_use& u) const {
    const std::size_t known = baseline_ + u.iterate + u.next_iterate + u.workspaces + u.pool_idle;
    const auto mib = [](std::size_t b) { return std::to_string(b >> 20) + " MiB"; };
    return std::string("at ") + where + ": before the backend " + mib(baseline_) + ", iterate " +
           mib(u.iterate) + ", next iterate " + mib(u.next_iterate) + ", expansion workspaces " +
           mib(u.workspaces) + ", idle in the pool " + mib(u.pool_idle) + ", the rest " +
           mib(u.used > known ? u.used - known : 0);
  }

  /// Device bytes the backend may still take: the budget less what the process holds beyond
  /// the baseline, within the device's free memory, plus `reusable` (the backend's own arrays
  /// that the caller reuses or frees) and what the pool holds unused, less a reserve for the
  /// engine's plan (its hash pools take at most 1 GiB each) and the runtime.
  std::size_t available(const context& ctx, std::size_t reusable) const {
    std::size_t free_bytes = 0, total_bytes = 0;
    OPSPARSE_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t used = total_bytes - free_bytes;
    const std::size_t held = used > baseline_ ? used - baseline_ : 0;
    const std::size_t fresh = std::min(free_bytes, budget_ > held ? budget_ - held : 0);
    const std::size_t have = fresh + ctx.pool_idle_bytes() + reusable;
    const std::size_t reserve =
        std::max(std::min<std::size_t>(std::size_t(1) << 30, budget_ / 8), budget_ / 16);
    return have > reserve ? have - reserve : 0;
  }

 private:
  std::size_t baseline_ = 0;  ///< device bytes in use when the budget was set
  std::size_t budget_ = 0;
};

}  // namespace opsparse::mcl
