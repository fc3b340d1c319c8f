// The CPU engine over float32 and float64 values: plus_times and min_plus.
#include "host_spgemm_impl.hpp"

namespace opsparse::python {

template <class T>
nb::object float_family(const host_product& p) {
  if (p.semiring == "plus_times") return host_spgemm_as<plus_times<T>, T, T>(p);
  if (p.semiring == "min_plus") return host_spgemm_as<min_plus<T>, T, T>(p);
  return nb::object();
}

nb::object host_spgemm_float(const host_product& p) {
  if (values_are(p, nb::dtype<double>())) return float_family<double>(p);
  if (values_are(p, nb::dtype<float>())) return float_family<float>(p);
  return nb::object();
}

}  // namespace opsparse::python
