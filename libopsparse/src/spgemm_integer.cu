// Explicit instantiations: integer value types (counts, weights), 32- and 64-bit.
#include "opsparse/detail/spgemm_impl.cuh"

namespace opsparse {
OPSPARSE_INSTANTIATE_SPGEMM(plus_times<int>, int, int, no_mask)
OPSPARSE_INSTANTIATE_SPGEMM(plus_times<long long>, long long, long long, no_mask)
}  // namespace opsparse
