#pragma once
// The fused expansion's visit (mcl_fused.cuh's epilogue over opsparse::visit_dense_rows) and its
// buffers, for the GPU backend (mcl_gpu.cu): rows of A·B expanded and pruned into an output
// buffer, each row's kept entries contiguous, which the backend then lays out as the next
// iterate. A visit covers every column at once, or one column block of B per stage (a
// distributed rank receives B so, mcl_dist_rows.cpp): between stages each row's candidates, bar
// and measures are parked in device memory, and the last stage prunes the rows as a whole visit
// does, with the same result (the sums are exact and the candidates keep every entry pruning
// may need).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

#include "mcl_fused.cuh"
#include "opsparse/context.hpp"
#include "opsparse/dense_rows.cuh"
#include "opsparse/device_csr.hpp"
#include "opsparse/error.hpp"

namespace opsparse::mcl {

/// One stage of a staged visit: B holds columns [first_col, last_col) only.
struct visit_stage {
  index_t first_col = 0;
  index_t last_col = -1;  ///< -1: every column (a whole visit)
  bool first = true;      ///< no parked rows to take up
  bool last = true;       ///< prune (else park the rows for the next stage)
};

template <class T>
class fused_visit {
 public:
  using epilogue = fused::prune_epilogue<T>;
  using S = plus_times<double>;

  /// dense_rows_options::lane_walk for every visit (gpu_backend_options::fused_lane_walk).
  bool lane_walk = false;

  /// Where each visited row's kept entries lie after the last stage: out_col()/out_val() from
  /// row_base()[i], kept[i] of them (kept: the caller's array of m + 1).
  const index_t* out_col() const { return out_col_.data(); }
  const T* out_val() const { return out_val_.data(); }
  const offset_t* row_base() const { return row_base_.data(); }

  /// Visits rows [r0, r0 + m) of A (a: the rows' view, A's row pointers from r0) times b in the
  /// given stage; `kept` (m + 1) and `chaos` (per global row) are written by the last stage.
  /// Returns the visit's counters (flags: overflow_candidates when a row's candidates did not
  /// fit, which the caller handles; the output and parking buffers grow and the stage runs
  /// again when they are short). `ms` gets the visits' GPU milliseconds.
  fused::counters run(context& ctx, const csr_view<T>& a, const csr_view<T>& b, bool b_sorted,
                      const prune_rule& rule, index_t r0, index_t m, int max_window,
                      const visit_stage& stage, offset_t* kept, double* chaos, float* ms) {
    cudaStream_t s = ctx.stream();
    const long long k = std::max(rule.select, rule.recover);
    epilogue epi{};
    epi.rule = rule;
    epi.rank_k = k;
    // Without selection the cutoff's entries are all needed (mcl_fused.cuh): tau stays below.
    epi.tau_cap = rule.select > 0 ? ~0u : cutoff_key(rule.cutoff);
    // The whole width's window on every stage, so that the candidates' room is the same.
    epi.window_cols = dense_rows_window<S, epilogue>(ctx, b.cols);
    if (max_window > 0) epi.window_cols = std::min(epi.window_cols, std::max(32, max_window));
    epi.r0 = r0;
    epi.cap = static_cast<int>((2ll * epi.window_cols + 2 * k + 1024 + 31) / 32 * 32);
    const int blocks = dense_rows_blocks(ctx, m);
    cand_col_.reserve(static_cast<std::size_t>(blocks) * epi.cap);
    cand_val_.reserve(static_cast<std::size_t>(blocks) * epi.cap);
    row_base_.reserve(static_cast<std::size_t>(m));
    counters_.reserve(1);
    if (!pinned_) OPSPARSE_CUDA_TRY(cudaMallocHost(&pinned_, sizeof(fused::counters)));
    if (!events_[0])
      for (auto& e : events_) OPSPARSE_CUDA_TRY(cudaEventCreate(&e));
    // Room for K kept entries a row (at most 2,048 assumed; the visit runs again with the exact
    // size when rows keep more); parked rows keep about as many.
    const auto per_row = static_cast<unsigned long long>(std::min(k, 1984ll) + 64);
    unsigned long long out_cap = std::max<unsigned long long>(stage.last ? out_col_.capacity() : 0,
                                                              stage.last ? m * per_row : 0);
    const int in = parked_in_, out = 1 - parked_in_;
    unsigned long long park_cap = std::max<unsigned long long>(
        stage.last ? 0 : parked_col_[out].capacity(), stage.last ? 0 : m * per_row);
    if (!stage.last) parked_[out].reserve(static_cast<std::size_t>(m));
    dense_rows_options vo;
    vo.b_sorted = b_sorted;
    vo.max_window = epi.window_cols;
    vo.first_col = stage.first_col;
    vo.last_col = stage.last_col;
    vo.lane_walk = lane_walk;
    fused::counters c{};
    *ms = 0;
    for (;;) {
      out_col_.reserve(static_cast<std::size_t>(std::max(out_cap, 1ull)));
      out_val_.reserve(static_cast<std::size_t>(std::max(out_cap, 1ull)));
      epi.cand_col = cand_col_.data();
      epi.cand_val = cand_val_.data();
      epi.out_col = out_col_.data();
      epi.out_val = out_val_.data();
      epi.out_cap = out_cap;
      epi.row_base = row_base_.data();
      epi.row_count = kept;
      epi.chaos = chaos;
      epi.cnt = counters_.data();
      if (!stage.first) {
        epi.resume = parked_[in].data();
        epi.resume_col = parked_col_[in].data();
        epi.resume_val = parked_val_[in].data();
      }
      if (!stage.last) {
        parked_col_[out].reserve(static_cast<std::size_t>(std::max(park_cap, 1ull)));
        parked_val_[out].reserve(static_cast<std::size_t>(std::max(park_cap, 1ull)));
        epi.park = parked_[out].data();
        epi.park_col = parked_col_[out].data();
        epi.park_val = parked_val_[out].data();
        epi.park_cap = park_cap;
      }
      OPSPARSE_CUDA_TRY(cudaMemsetAsync(counters_.data(), 0, sizeof(fused::counters), s));
      OPSPARSE_CUDA_TRY(cudaEventRecord(events_[0], s));
      visit_dense_rows<S>(ctx, a, b, epi, no_mask{}, vo);
      OPSPARSE_CUDA_TRY(cudaEventRecord(events_[1], s));
      OPSPARSE_CUDA_TRY(cudaMemcpyAsync(pinned_, counters_.data(), sizeof(fused::counters),
                                        cudaMemcpyDeviceToHost, s));
      OPSPARSE_CUDA_TRY(cudaStreamSynchronize(s));
      std::memcpy(&c, pinned_, sizeof(c));
      float t = 0;
      OPSPARSE_CUDA_TRY(cudaEventElapsedTime(&t, events_[0], events_[1]));
      *ms += t;
      if (c.flags & fused::overflow_candidates) return c;
      const bool again_out = (c.flags & fused::overflow_output) != 0;
      const bool again_park = (c.flags & fused::overflow_parked) != 0;
      if (!again_out && !again_park) break;
      if (again_out) out_cap = c.out_cursor;  // rows kept more than assumed: room for them
      if (again_park) park_cap = c.parked_cursor;
    }
    if (!stage.last) parked_in_ = out;
    return c;
  }

  /// Device bytes of the buffers.
  std::size_t bytes() const {
    std::size_t b = (out_col_.capacity() + cand_col_.capacity()) * sizeof(index_t) +
                    (out_val_.capacity() + cand_val_.capacity()) * sizeof(T);
    for (int i = 0; i < 2; ++i)
      b += parked_[i].capacity() * sizeof(fused::parked_row) +
           parked_col_[i].capacity() * sizeof(index_t) + parked_val_[i].capacity() * sizeof(T);
    return b;
  }

  void release() {
    out_col_ = device_buffer<index_t>();
    out_val_ = device_buffer<T>();
    cand_col_ = device_buffer<index_t>();
    cand_val_ = device_buffer<T>();
    for (int i = 0; i < 2; ++i) {
      parked_[i] = device_buffer<fused::parked_row>();
      parked_col_[i] = device_buffer<index_t>();
      parked_val_[i] = device_buffer<T>();
    }
  }

  fused_visit() = default;
  fused_visit(const fused_visit&) = delete;
  fused_visit& operator=(const fused_visit&) = delete;
  ~fused_visit() {
    for (auto& e : events_)
      if (e) OPSPARSE_CUDA_TRY_NO_THROW(cudaEventDestroy(e));
    if (pinned_) OPSPARSE_CUDA_TRY_NO_THROW(cudaFreeHost(pinned_));
  }

  /// The key (float bits) of the cutoff: every cell at or above the cutoff has a key at or above.
  static unsigned cutoff_key(double cutoff) {
    const float f = static_cast<float>(cutoff);
    unsigned k;
    std::memcpy(&k, &f, sizeof k);
    return cutoff > 0 ? k : 0u;
  }

 private:
  device_buffer<index_t> cand_col_;  ///< candidates, a slice per thread block
  device_buffer<T> cand_val_;
  device_buffer<index_t> out_col_;  ///< kept entries, a row's contiguous, rows in any order
  device_buffer<T> out_val_;
  device_buffer<offset_t> row_base_;
  device_buffer<fused::counters> counters_;
  // parked rows between stages: one pair read, the other written
  device_buffer<fused::parked_row> parked_[2];
  device_buffer<index_t> parked_col_[2];
  device_buffer<T> parked_val_[2];
  int parked_in_ = 0;
  void* pinned_ = nullptr;
  cudaEvent_t events_[2] = {};
};

}  // namespace opsparse::mcl
