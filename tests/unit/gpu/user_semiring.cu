// A semiring the library does not ship, defined in a few lines and instantiated by the user's
// own .cu file: (max, ×) over doubles, applied on the GPU with a compare-and-swap loop.
#include "opsparse/detail/dispatch/spgemm_impl.cuh"
#include "user_semiring.hpp"

namespace opsparse {
OPSPARSE_INSTANTIATE_SPGEMM(test::max_times, double, double, no_mask)
}  // namespace opsparse
