#include <cuda_runtime.h>

#include "opsparse/detail/dispatch/plan_state.hpp"
#include "opsparse/error.hpp"
#include "opsparse/plan.hpp"

namespace opsparse {
namespace detail {
plan_state::plan_state() = default;
plan_state::~plan_state() {
  if (counted) OPSPARSE_CUDA_TRY_NO_THROW(cudaEventDestroy(counted));
  for (auto& e : timing)
    if (e) OPSPARSE_CUDA_TRY_NO_THROW(cudaEventDestroy(e));
  for (auto& ph : bin_done)
    for (auto& e : ph)
      if (e) OPSPARSE_CUDA_TRY_NO_THROW(cudaEventDestroy(e));
}
void plan_state::ensure_timing_events() {
  for (auto& e : timing)
    if (!e) OPSPARSE_CUDA_TRY(cudaEventCreate(&e));
  for (auto& ph : bin_done)
    for (auto& e : ph)
      if (!e) OPSPARSE_CUDA_TRY(cudaEventCreate(&e));
}
cudaEvent_t plan_state::counted_event() {
  if (!counted) OPSPARSE_CUDA_TRY(cudaEventCreateWithFlags(&counted, cudaEventDisableTiming));
  return counted;
}
void plan_state::bin_finished(int ph, int bin, cudaStream_t s, bool timing_on) {
  if (!timing_on) return;
  OPSPARSE_CUDA_TRY(cudaEventRecord(bin_done[ph][bin], s));
  bin_ran[ph][bin] = true;
}
std::vector<float> plan_state::bin_end_ms(int ph, cudaEvent_t start) const {
  std::vector<float> ms(max_bins, 0.0f);
  for (int i = 0; i < max_bins; ++i)
    if (bin_ran[ph][i]) OPSPARSE_CUDA_TRY(cudaEventElapsedTime(&ms[i], start, bin_done[ph][i]));
  return ms;
}
void plan_state::reserve_pool(device_buffer<unsigned char>& pool, std::size_t bytes,
                              const pool_ref& from) {
  if (pool.reserve(bytes, from)) ++allocations;
}
}  // namespace detail

plan::plan() : state_(std::make_unique<detail::plan_state>()) {}
plan::~plan() = default;
plan::plan(plan&&) noexcept = default;
plan& plan::operator=(plan&&) noexcept = default;
std::int64_t plan::metadata_allocations() const noexcept { return state_->allocations; }
std::size_t plan::device_bytes() const noexcept {
  return state_->meta.capacity() + state_->sym_pool.capacity() + state_->num_pool.capacity() +
         state_->reduce_meta.capacity() + state_->reduce_pool.capacity();
}
const spgemm_stats& plan::stats() const noexcept { return state_->stats; }

}  // namespace opsparse
