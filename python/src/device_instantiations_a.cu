// GPU products the Python module offers beyond those the library instantiates
// (libopsparse/src/spgemm_*.cu): floating point under every mask, booleans as or_and on int.
#include "opsparse/detail/spgemm_impl.cuh"

namespace opsparse {
OPSPARSE_INSTANTIATE_SPGEMM(plus_times<float>, float, float, structural_mask)
OPSPARSE_INSTANTIATE_SPGEMM(plus_times<float>, float, float, complement_mask)
OPSPARSE_INSTANTIATE_SPGEMM(plus_times<double>, double, double, complement_mask)
OPSPARSE_INSTANTIATE_SPGEMM(or_and<int>, int, int, no_mask)
OPSPARSE_INSTANTIATE_SPGEMM(or_and<int>, int, int, structural_mask)
}  // namespace opsparse
