// Host (SciPy) matrices multiplied on the GPU in row blocks within a device-memory budget.
#include "device_blocks.hpp"

#include <stdexcept>

#include "opsparse/device_csr.hpp"
#include "opsparse/error.hpp"
#include "opsparse/spgemm_blocks.cuh"

namespace opsparse::python {
namespace {

/// The operand on ctx's device (synchronous: Python's arrays may go once this returns).
template <class V>
device_csr<V> upload(context& ctx, const host_arrays& h) {
  device_csr<V> d;
  const offset_t nnz = h.indptr[h.rows];
  d.set_shape(h.rows, h.cols);
  d.set_nnz(nnz);
  const cudaStream_t s = ctx.stream();
  detail::copy_to_device(d.rpt(), h.indptr,
                         (static_cast<std::size_t>(h.rows) + 1) * sizeof(offset_t), s);
  const auto n = static_cast<std::size_t>(nnz);
  if (n > 0) {
    detail::copy_to_device(d.col(), h.indices, n * sizeof(index_t), s);
    if constexpr (has_values_v<V>) detail::copy_to_device(d.val(), h.values, n * sizeof(V), s);
  }
  return d;
}

template <class Semiring, class V>
blocks_result run(context& ctx, plan& p, const host_arrays& a, const host_arrays& b,
                  const host_arrays* mask, bool complement, bool sorted, std::size_t device_bytes) {
  spgemm_options opt;
  opt.sorted = sorted;
  const device_csr<V> da = upload<V>(ctx, a), db = upload<V>(ctx, b);
  if (!mask)
    return spgemm_to_host<Semiring>(ctx, p, da.view(), db.view(), device_bytes, no_mask{}, opt);
  const device_csr<pattern> dm = upload<pattern>(ctx, *mask);
  if (complement)
    return spgemm_to_host<Semiring>(
        ctx, p, da.view(), db.view(), device_bytes,
        make_mask<complement_mask>(dm.rows(), dm.cols(), dm.rpt(), dm.col()), opt);
  return spgemm_to_host<Semiring>(
      ctx, p, da.view(), db.view(), device_bytes,
      make_mask<structural_mask>(dm.rows(), dm.cols(), dm.rpt(), dm.col()), opt);
}

}  // namespace

blocks_result spgemm_blocks_on_host(context& ctx, plan& p, const std::string& semiring,
                                    const std::string& dtype, const host_arrays& a,
                                    const host_arrays& b, const host_arrays* mask, bool complement,
                                    bool sorted, std::size_t device_bytes) {
  if (semiring == "plus_times" && dtype == "float64")
    return run<plus_times<double>, double>(ctx, p, a, b, mask, complement, sorted, device_bytes);
  if (semiring == "plus_times" && dtype == "float32")
    return run<plus_times<float>, float>(ctx, p, a, b, mask, complement, sorted, device_bytes);
  if (semiring == "plus_pair")
    return run<plus_pair<long long>, pattern>(ctx, p, a, b, mask, complement, sorted, device_bytes);
  if (semiring == "any_pair")
    return run<any_pair, pattern>(ctx, p, a, b, mask, complement, sorted, device_bytes);
  throw std::invalid_argument(
      "device_memory: the GPU engine computes plus_times over float32 or "
      "float64 values, plus_pair and any_pair in blocks, not " +
      semiring + " over " + dtype);
}

}  // namespace opsparse::python
