#pragma once
// Products of host (SciPy) matrices on the GPU in row blocks within a device-memory budget, the
// result gathered on the host (opsparse/spgemm_blocks.cuh). Plain C++ between the binding
// (device.cpp) and the CUDA source (device_blocks.cu).
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "opsparse/context.hpp"
#include "opsparse/csr.hpp"
#include "opsparse/plan.hpp"

namespace opsparse::python {

/// A host CSR operand as Python hands it over (canonical; values null for a pattern).
struct host_arrays {
  index_t rows = 0, cols = 0;
  const std::int64_t* indptr = nullptr;
  const std::int32_t* indices = nullptr;
  const void* values = nullptr;  ///< of the product's value type
};

using blocks_result =
    std::variant<host_csr<double>, host_csr<float>, host_csr<long long>, host_csr<pattern>>;

/// C = A·B (mask: C<M> or, complemented, C<¬M>) over `semiring` ("plus_times" over float64 or
/// float32 values, "plus_pair", "any_pair") on ctx's device in blocks within `device_bytes`.
/// std::invalid_argument for a semiring or dtype not offered, or a budget no row fits.
blocks_result spgemm_blocks_on_host(context& ctx, plan& p, const std::string& semiring,
                                    const std::string& dtype, const host_arrays& a,
                                    const host_arrays& b, const host_arrays* mask, bool complement,
                                    bool sorted, std::size_t device_bytes);

}  // namespace opsparse::python
