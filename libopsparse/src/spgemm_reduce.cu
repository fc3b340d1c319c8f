// Explicit instantiations of spgemm_reduce: triangle counting (plus_pair over patterns, 64-bit
// counts) and a valued form (plus_times over doubles) that the tests check against the CPU
// engine's C<M> = A·B followed by row sums.
#include "opsparse/detail/spgemm_reduce_impl.cuh"

namespace opsparse {
using i64 = long long;
OPSPARSE_INSTANTIATE_SPGEMM_REDUCE(plus_pair<i64>, pattern, pattern)
OPSPARSE_INSTANTIATE_SPGEMM_REDUCE(plus_times<double>, double, double)
}  // namespace opsparse
