// The CPU engine over int32 and int64 values: plus_times and min_plus.
#include "host_spgemm_impl.hpp"

namespace opsparse::python {

template <class T>
nb::object integer_family(const host_product& p) {
  if (p.semiring == "plus_times") return host_spgemm_as<plus_times<T>, T, T>(p);
  if (p.semiring == "min_plus") return host_spgemm_as<min_plus<T>, T, T>(p);
  return nb::object();
}

nb::object host_spgemm_integer(const host_product& p) {
  if (values_are(p, nb::dtype<std::int64_t>())) return integer_family<std::int64_t>(p);
  if (values_are(p, nb::dtype<std::int32_t>())) return integer_family<std::int32_t>(p);
  return nb::object();
}

}  // namespace opsparse::python
