// The GPU engine for CuPy matrices: device pointers in, device pointers out, no host copy. The
// Python side hands over canonical CSR arrays already on the device (int64 row pointers, int32
// columns, values of the product's type) and wraps the result's arrays as CuPy arrays that keep
// the result object alive.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <variant>

#include "common.hpp"

#if OPSPARSE_HAS_GPU_ENGINE
#include <cuda_runtime_api.h>

#include "opsparse/context.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/error.hpp"
#include "opsparse/plan.hpp"
#include "opsparse/spgemm.hpp"
#include "device_blocks.hpp"
#endif

namespace opsparse::python {
namespace {

/// A product's result on the device: its shape and the addresses of its arrays, owned here.
struct device_result {
  index_t rows = 0, cols = 0;
  offset_t nnz = 0;
  std::uintptr_t indptr = 0, indices = 0, values = 0;  ///< values 0: a pattern (no values)
  int device = 0;
  virtual ~device_result() = default;
};

#if OPSPARSE_HAS_GPU_ENGINE

template <class V>
struct owned_result final : device_result {
  device_csr<V> c;
  ~owned_result() override {
    // CuPy may still have kernels reading these arrays on its own streams, which the library's
    // stream-ordered free (ordered on the context's stream) knows nothing of: wait for them.
    // Not in the library's path: only when Python drops the last array of a result.
    OPSPARSE_CUDA_TRY_NO_THROW(cudaSetDevice(device));
    OPSPARSE_CUDA_TRY_NO_THROW(cudaDeviceSynchronize());
  }
};

/// One context and one plan (the persistent workspace) for one device. Calls on one plan are
/// serialised: the GIL is released while a product runs.
class gpu_plan {
 public:
  explicit gpu_plan(int device) : device_(select(device)), ctx_(device_) {}
  int device() const noexcept { return device_; }
  std::mutex& mutex() noexcept { return mutex_; }
  context& ctx() noexcept { return ctx_; }
  plan& workspace() noexcept { return plan_; }

 private:
  static int select(int device) {
    if (device < 0) OPSPARSE_CUDA_TRY(cudaGetDevice(&device));
    OPSPARSE_CUDA_TRY(cudaSetDevice(device));
    return device;
  }
  int device_;
  std::mutex mutex_;
  context ctx_;
  plan plan_;
};

/// (rows, cols, nnz, indptr address, indices address, values address or 0)
template <class V>
csr_view<V> view_from(const nb::tuple& t) {
  csr_view<V> v;
  v.rows = nb::cast<index_t>(t[0]);
  v.cols = nb::cast<index_t>(t[1]);
  v.nnz = nb::cast<offset_t>(t[2]);
  v.rpt = reinterpret_cast<const offset_t*>(nb::cast<std::uintptr_t>(t[3]));
  v.col = reinterpret_cast<const index_t*>(nb::cast<std::uintptr_t>(t[4]));
  if constexpr (has_values_v<V>) v.val = reinterpret_cast<const V*>(nb::cast<std::uintptr_t>(t[5]));
  return v;
}

template <class MaskT>
MaskT mask_from(const nb::tuple& t) {
  return make_mask<MaskT>(nb::cast<index_t>(t[0]), nb::cast<index_t>(t[1]),
                          reinterpret_cast<const offset_t*>(nb::cast<std::uintptr_t>(t[3])),
                          reinterpret_cast<const index_t*>(nb::cast<std::uintptr_t>(t[4])));
}

template <class Semiring, class VA, class VB>
std::unique_ptr<device_result> product(gpu_plan& gp, const nb::tuple& a, const nb::tuple& b,
                                       const nb::object& mask, bool complement,
                                       const spgemm_options& opt) {
  using V = typename Semiring::value_type;
  const csr_view<VA> va = view_from<VA>(a);
  const csr_view<VB> vb = view_from<VB>(b);
  auto r = std::make_unique<owned_result<V>>();
  r->device = gp.device();
  const bool masked = !mask.is_none();
  structural_mask sm;
  complement_mask cm;
  if (masked) {
    const nb::tuple mt = nb::cast<nb::tuple>(mask);
    sm = mask_from<structural_mask>(mt);
    cm = mask_from<complement_mask>(mt);
  }
  {
    nb::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(gp.mutex());
    OPSPARSE_CUDA_TRY(cudaSetDevice(gp.device()));
    if (!masked)
      spgemm<Semiring>(gp.ctx(), gp.workspace(), va, vb, r->c, no_mask{}, opt);
    else if (complement)
      spgemm<Semiring>(gp.ctx(), gp.workspace(), va, vb, r->c, cm, opt);
    else
      spgemm<Semiring>(gp.ctx(), gp.workspace(), va, vb, r->c, sm, opt);
    // C is complete once the context's stream is idle: CuPy may read it on any stream.
    gp.ctx().synchronize();
  }
  r->rows = r->c.rows();
  r->cols = r->c.cols();
  r->nnz = r->c.nnz();
  r->indptr = reinterpret_cast<std::uintptr_t>(r->c.rpt());
  r->indices = reinterpret_cast<std::uintptr_t>(r->c.col());
  r->values = reinterpret_cast<std::uintptr_t>(r->c.val());
  return r;
}

std::unique_ptr<device_result> spgemm_device(gpu_plan& gp, const std::string& semiring,
                                             const std::string& dtype, nb::tuple a, nb::tuple b,
                                             nb::object mask, bool complement, bool sorted) {
  spgemm_options opt;
  opt.sorted = sorted;
  if (semiring == "plus_times") {
    if (dtype == "float64")
      return product<plus_times<double>, double, double>(gp, a, b, mask, complement, opt);
    if (dtype == "float32")
      return product<plus_times<float>, float, float>(gp, a, b, mask, complement, opt);
  } else if (semiring == "or_and" && dtype == "int32") {
    // CuPy's sparse matrices hold float32, float64 or bool: bool products come as 0/1 int32.
    return product<or_and<int>, int, int>(gp, a, b, mask, complement, opt);
  } else if (semiring == "plus_pair") {
    return product<plus_pair<long long>, pattern, pattern>(gp, a, b, mask, complement, opt);
  } else if (semiring == "any_pair") {
    return product<any_pair, pattern, pattern>(gp, a, b, mask, complement, opt);
  }
  throw std::invalid_argument("the GPU engine does not offer semiring '" + semiring + "' over " +
                              dtype + " values from Python");
}

/// Host (SciPy) operands multiplied on the plan's device in row blocks within `device_bytes`;
/// the result on the host as (rows, cols, indptr, indices, values or None).
nb::tuple spgemm_blocks_host(gpu_plan& gp, const std::string& semiring, const std::string& dtype,
                             nb::tuple a, nb::tuple b, nb::object mask, bool complement,
                             bool sorted, std::size_t device_bytes) {
  const host_operand ha = operand_from(a), hb = operand_from(b);
  std::optional<host_operand> hm;
  if (!mask.is_none()) hm = operand_from(mask);
  auto arrays = [](const host_operand& o) {
    host_arrays h;
    h.rows = o.rows;
    h.cols = o.cols;
    h.indptr = o.indptr.data();
    h.indices = o.indices.data();
    h.values = o.values ? o.values->data() : nullptr;
    return h;
  };
  const host_arrays aa = arrays(ha), ab = arrays(hb);
  const host_arrays am = hm ? arrays(*hm) : host_arrays{};
  blocks_result r;
  {
    nb::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(gp.mutex());
    OPSPARSE_CUDA_TRY(cudaSetDevice(gp.device()));
    r = spgemm_blocks_on_host(gp.ctx(), gp.workspace(), semiring, dtype, aa, ab, hm ? &am : nullptr,
                              complement, sorted, device_bytes);
  }
  return std::visit([](auto&& c) { return from_host(std::move(c)); }, std::move(r));
}

std::pair<bool, std::string> gpu_usable() {
  std::string why;
  const bool ok = gpu_available(&why);
  return {ok, why};
}

#else  // the CPU engine alone

class gpu_plan {
 public:
  explicit gpu_plan(int) { throw std::runtime_error(no_engine); }
  int device() const noexcept { return -1; }
  static constexpr const char* no_engine =
      "this build of opsparse has no GPU engine (it was built without the CUDA toolkit)";
};

std::unique_ptr<device_result> spgemm_device(gpu_plan&, const std::string&, const std::string&,
                                             nb::tuple, nb::tuple, nb::object, bool, bool) {
  throw std::runtime_error(gpu_plan::no_engine);
}

nb::tuple spgemm_blocks_host(gpu_plan&, const std::string&, const std::string&, nb::tuple,
                             nb::tuple, nb::object, bool, bool, std::size_t) {
  throw std::runtime_error(gpu_plan::no_engine);
}

std::pair<bool, std::string> gpu_usable() { return {false, gpu_plan::no_engine}; }

#endif

}  // namespace

void bind_device(nb::module_& m) {
  nb::class_<device_result>(
      m, "DeviceResult",
      "A product's CSR arrays on the device; CuPy arrays over them keep it alive.")
      .def_ro("rows", &device_result::rows)
      .def_ro("cols", &device_result::cols)
      .def_ro("nnz", &device_result::nnz)
      .def_ro("indptr", &device_result::indptr)
      .def_ro("indices", &device_result::indices)
      .def_ro("values", &device_result::values)
      .def_ro("device", &device_result::device);
  auto plan_class = nb::class_<gpu_plan>(
                        m, "GpuPlan", "A GPU context and plan: the workspace kept across products.")
                        .def(nb::init<int>(), nb::arg("device") = -1)
                        .def_prop_ro("device", &gpu_plan::device);
#if OPSPARSE_HAS_GPU_ENGINE
  plan_class
      .def_prop_ro("metadata_allocations",
                   [](gpu_plan& p) { return p.workspace().metadata_allocations(); })
      .def_prop_ro("device_bytes", [](gpu_plan& p) { return p.workspace().device_bytes(); })
      .def_prop_ro("stats", [](gpu_plan& p) {
        const spgemm_stats& s = p.workspace().stats();
        nb::dict d;
        d["products"] = s.products;
        d["nnz"] = s.nnz;
        d["max_row_products"] = s.max_row_products;
        d["max_row_nnz"] = s.max_row_nnz;
        return d;
      });
  m.def("device_allocation_count", &device_allocation_count,
        "Device allocations the library has made in this process (cudaMalloc and pool).");
#endif
  m.def("spgemm_device", &spgemm_device, nb::arg("plan"), nb::arg("semiring"), nb::arg("dtype"),
        nb::arg("a"), nb::arg("b"), nb::arg("mask").none(), nb::arg("complement"),
        nb::arg("sorted") = true);
  m.def("spgemm_blocks_host", &spgemm_blocks_host, nb::arg("plan"), nb::arg("semiring"),
        nb::arg("dtype"), nb::arg("a"), nb::arg("b"), nb::arg("mask").none(), nb::arg("complement"),
        nb::arg("sorted"), nb::arg("device_bytes"),
        "C = A·B of host CSR tuples on the GPU in row blocks within device_bytes; a host tuple.");
  m.def("gpu_available", &gpu_usable, "(usable, why not) for the GPU engine.");
}

}  // namespace opsparse::python
