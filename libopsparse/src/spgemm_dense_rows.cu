// Whether the engine can accumulate rows of `cols` columns densely in shared memory.
#include "opsparse/detail/kernels/spgemm_kernels.cuh"
#include "opsparse/spgemm.hpp"

namespace opsparse {
bool spgemm_dense_rows_fit(const context& ctx, index_t cols) {
  return detail::dense_columns_fit(ctx.device().smem_per_block_optin, cols);
}
}  // namespace opsparse
