// Explicit instantiations: the graph products over patterns (triangle counting with a
// structural mask, BFS with a complemented mask) and their unmasked forms.
#include "opsparse/detail/spgemm_impl.cuh"

namespace opsparse {
using i64 = long long;
OPSPARSE_INSTANTIATE_SPGEMM(plus_pair<i64>, pattern, pattern, structural_mask)
OPSPARSE_INSTANTIATE_SPGEMM(plus_pair<i64>, pattern, pattern, no_mask)
OPSPARSE_INSTANTIATE_SPGEMM(any_pair, pattern, pattern, complement_mask)
OPSPARSE_INSTANTIATE_SPGEMM(any_pair, pattern, pattern, no_mask)
OPSPARSE_INSTANTIATE_SPGEMM(plus_times<double>, double, double, structural_mask)
OPSPARSE_INSTANTIATE_SPGEMM(or_and<int>, int, int, complement_mask)
}  // namespace opsparse
