#pragma once
// A local engine for dist::spgemm on one GPU: each stage's two pieces are uploaded, multiplied
// with the GPU engine (opsparse::spgemm, rows sorted) and C is downloaded. One engine per rank,
// on the device the rank chose before constructing it (cudaSetDevice(local rank % devices));
// its context, plan and device matrices live as long as the engine and its copies, so that a
// product's stages and an iterative program's products reuse them (grow-only buffers).
//
// Host header (g++); link the GPU library (opsparse::gpu). It does not need MPI: the GPU tests
// call it alone, against the CPU engine. The broadcasts stay host-staged (docs/design.md, "The
// GPU path"); the engine has no accumulate, so spgemm_options::in_order is refused with it.
#include <cstddef>
#include <memory>
#include <string>

#include "opsparse/context.hpp"
#include "opsparse/csr.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/error.hpp"
#include "opsparse/plan.hpp"
#include "opsparse/spgemm.hpp"

namespace opsparse::dist {

/// The GPU engine is instantiated for the value types of the lists of libopsparse/CMakeLists.txt
/// (e.g. plus_times<double> on double, plus_times<float> on float).
template <class Semiring, class VA = typename Semiring::value_type, class VB = VA>
class gpu_engine {
 public:
  using value_type = typename Semiring::value_type;

  /// A context on CUDA device `device` (-1: the current one); `opt` as for opsparse::spgemm
  /// (rows are always sorted: the merge of the stages walks sorted rows).
  explicit gpu_engine(const opsparse::spgemm_options& opt = {}, int device = -1)
      : s_(std::make_shared<state>(device)) {
    s_->opt = opt;
    s_->opt.sorted = true;
  }

  /// The device's name (for a program's backend line).
  std::string device_name() const { return s_->ctx.device().name; }
  /// The device's global memory in bytes (for a phase budget).
  std::size_t device_memory() const { return s_->ctx.device().global_mem; }

  /// a·b over Semiring, with sorted rows. std::invalid_argument when a.cols != b.rows.
  host_csr<value_type> operator()(const host_csr<VA>& a, const host_csr<VB>& b) const {
    OPSPARSE_EXPECTS(a.cols == b.rows, "gpu_engine: A has " + std::to_string(a.cols) +
                                           " columns, B " + std::to_string(b.rows) + " rows");
    // The engine is not troubled with empty operands (nothing to multiply: an empty C).
    if (a.nnz() == 0 || b.nnz() == 0) return host_csr<value_type>(a.rows, b.cols);
    state& s = *s_;
    s.a.assign(a, s.ctx.stream());
    s.b.assign(b, s.ctx.stream());
    spgemm<Semiring>(s.ctx, s.plan_, s.a.view(), s.b.view(), s.c, no_mask{}, s.opt);
    return s.c.download(s.ctx.stream());
  }

 private:
  struct state {
    explicit state(int device) : ctx(device) {}
    context ctx;
    plan plan_;
    device_csr<VA> a;
    device_csr<VB> b;
    device_csr<value_type> c;
    opsparse::spgemm_options opt;
  };
  std::shared_ptr<state> s_;  ///< shared by copies: dist::spgemm takes the engine by value/const&
};

}  // namespace opsparse::dist
