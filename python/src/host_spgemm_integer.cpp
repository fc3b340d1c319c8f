// The CPU engine over int32 and int64 values: plus_times and min_plus.
#include "host_spgemm_impl.hpp"

namespace opsparse::python {

nb::object host_spgemm_integer(const host_product& p) {
  if (values_are(p, nb::dtype<std::int64_t>())) return arithmetic_family<std::int64_t>(p);
  if (values_are(p, nb::dtype<std::int32_t>())) return arithmetic_family<std::int32_t>(p);
  return nb::object();
}

}  // namespace opsparse::python
