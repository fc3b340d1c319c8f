// The CPU engine over float32 and float64 values: plus_times and min_plus.
#include "host_spgemm_impl.hpp"

namespace opsparse::python {

nb::object host_spgemm_float(const host_product& p) {
  if (values_are(p, nb::dtype<double>())) return arithmetic_family<double>(p);
  if (values_are(p, nb::dtype<float>())) return arithmetic_family<float>(p);
  return nb::object();
}

}  // namespace opsparse::python
