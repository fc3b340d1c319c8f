// Explicit instantiations: the plain numeric products (MCL's expansion, the benchmark).
#include "opsparse/detail/spgemm_impl.cuh"

namespace opsparse {
OPSPARSE_INSTANTIATE_SPGEMM(plus_times<double>, double, double, no_mask)
// MCL's float cells multiplied and summed in double (a product of two floats is exact in double)
OPSPARSE_INSTANTIATE_SPGEMM(plus_times<double>, float, float, no_mask)
OPSPARSE_INSTANTIATE_SPGEMM(plus_times<float>, float, float, no_mask)
OPSPARSE_INSTANTIATE_SPGEMM(min_plus<double>, double, double, no_mask)

bool spgemm_dense_rows_fit(const context& ctx, index_t cols) {
  return detail::dense_columns_fit(ctx.device().smem_per_block_optin, cols);
}
}  // namespace opsparse
