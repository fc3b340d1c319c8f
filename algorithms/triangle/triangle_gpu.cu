// triangle::backend on the GPU engine: triangle_space.hpp's over gpu_space (one context and one
// plan for every product; A, L, U and C stay on the device, the host reads back scalars and,
// when asked, the n per-vertex counts). What is the GPU's own: the warm-up below.
#include "opsparse/gpu_space.cuh"
#include "triangle/triangle.hpp"
#include "triangle/triangle_space.hpp"

namespace opsparse::triangle {

namespace {

class gpu_backend final : public space_backend<gpu_space> {
 public:
  gpu_backend() : space_backend<gpu_space>("gpu") {}

 protected:
  /// The fused count on a 1×1 graph: CUDA loads a kernel's module at its first launch (lazy
  /// loading, about a millisecond), which belongs to the program's start, not to the product
  /// that the product stage times.
  void prepare() override {
    if (warmed_) return;
    host_csr<pattern> one(1, 1);
    one.col = {0};
    one.rpt = {0, 1};
    device_csr<pattern> d;
    upload(space(), one, d);
    (void)spgemm_reduce<plus_pair<count_t>>(space(), d, d, d);
    warmed_ = true;
  }

 private:
  bool warmed_ = false;
};

}  // namespace

std::unique_ptr<backend> make_gpu_backend() { return std::make_unique<gpu_backend>(); }

}  // namespace opsparse::triangle
