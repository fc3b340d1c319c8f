#pragma once
// One CPU product over Semiring with the mask the call names, the GIL released meanwhile.
#include "common.hpp"
#include "opsparse/cpu/spgemm.hpp"

namespace opsparse::python {

template <class Semiring, class VA, class VB>
nb::object host_spgemm_as(const host_product& p) {
  host_csr<VA> a = to_host<VA>(*p.a, "A");
  host_csr<VB> b = to_host<VB>(*p.b, "B");
  cpu::options opt;
  opt.threads = p.threads;
  opt.sorted = p.sorted;
  // The mask's structure is read in place from the NumPy arrays: checked first.
  if (p.mask) check_in_place(*p.mask, "mask");
  host_csr<typename Semiring::value_type> c;
  {
    nb::gil_scoped_release nogil;
    if (!p.mask) {
      c = cpu::spgemm<Semiring>(a, b, no_mask{}, opt);
    } else {
      const host_operand& m = *p.mask;
      if (p.complement)
        c = cpu::spgemm<Semiring>(
            a, b, make_mask<complement_mask>(m.rows, m.cols, m.indptr.data(), m.indices.data()),
            opt);
      else
        c = cpu::spgemm<Semiring>(
            a, b, make_mask<structural_mask>(m.rows, m.cols, m.indptr.data(), m.indices.data()),
            opt);
    }
  }
  return from_host(std::move(c));
}

/// The arithmetic semirings over values of type T, plus_times and min_plus; an empty object for
/// any other semiring.
template <class T>
nb::object arithmetic_family(const host_product& p) {
  if (p.semiring == "plus_times") return host_spgemm_as<plus_times<T>, T, T>(p);
  if (p.semiring == "min_plus") return host_spgemm_as<min_plus<T>, T, T>(p);
  return nb::object();
}

/// The dtype of A's values (A and B have one dtype: the Python side promotes them).
inline bool values_are(const host_product& p, nb::dlpack::dtype t) {
  return p.a->values && p.a->values->dtype() == t;
}

}  // namespace opsparse::python
