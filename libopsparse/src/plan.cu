#include <cuda_runtime.h>

#include "opsparse/detail/plan_state.hpp"
#include "opsparse/error.hpp"
#include "opsparse/plan.hpp"

namespace opsparse {
namespace detail {
plan_state::plan_state() {
  void* p = nullptr;
  OPSPARSE_CUDA_TRY(cudaMallocHost(&p, sizeof(bin_counters)));
  h_counters = static_cast<bin_counters*>(p);
  for (auto& e : timing) OPSPARSE_CUDA_TRY(cudaEventCreate(&e));
}
plan_state::~plan_state() {
  if (h_counters) OPSPARSE_CUDA_TRY_NO_THROW(cudaFreeHost(h_counters));
  for (auto& e : timing)
    if (e) OPSPARSE_CUDA_TRY_NO_THROW(cudaEventDestroy(e));
}
void plan_state::reserve_pool(device_buffer<unsigned char>& pool, std::size_t bytes) {
  if (pool.reserve(bytes)) ++allocations;
}
}  // namespace detail

plan::plan() : state_(std::make_unique<detail::plan_state>()) {}
plan::~plan() = default;
plan::plan(plan&&) noexcept = default;
plan& plan::operator=(plan&&) noexcept = default;
std::int64_t plan::metadata_allocations() const noexcept { return state_->allocations; }
std::size_t plan::device_bytes() const noexcept {
  return state_->meta.capacity() + state_->sym_pool.capacity() + state_->num_pool.capacity();
}
const spgemm_stats& plan::stats() const noexcept { return state_->stats; }

}  // namespace opsparse
