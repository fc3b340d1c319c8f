// GPU products the Python module offers beyond those the library instantiates
// (libopsparse/src/spgemm_*.cu): the pattern semirings under the masks the apps do not use.
#include "opsparse/detail/spgemm_impl.cuh"

namespace opsparse {
using i64 = long long;
OPSPARSE_INSTANTIATE_SPGEMM(plus_pair<i64>, pattern, pattern, complement_mask)
OPSPARSE_INSTANTIATE_SPGEMM(any_pair, pattern, pattern, structural_mask)
}  // namespace opsparse
