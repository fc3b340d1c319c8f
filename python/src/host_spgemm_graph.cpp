// The CPU engine over structure and booleans: plus_pair (counts, int64), any_pair (reachability,
// no values) on patterns, and or_and on 0/1 bytes (the Python side gives bool as uint8).
#include "host_spgemm_impl.hpp"

namespace opsparse::python {

nb::object host_spgemm_graph(const host_product& p) {
  if (p.semiring == "plus_pair")
    return host_spgemm_as<plus_pair<std::int64_t>, pattern, pattern>(p);
  if (p.semiring == "any_pair") return host_spgemm_as<any_pair, pattern, pattern>(p);
  if (p.semiring == "or_and" && values_are(p, nb::dtype<std::uint8_t>()))
    return host_spgemm_as<or_and<std::uint8_t>, std::uint8_t, std::uint8_t>(p);
  return nb::object();
}

}  // namespace opsparse::python
