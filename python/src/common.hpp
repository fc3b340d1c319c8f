#pragma once
// Shared by the module's files: NumPy arrays in and out of host CSR matrices, interruption.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "opsparse/csr.hpp"
#include "opsparse/types.hpp"

namespace opsparse::python {

namespace nb = nanobind;

using offsets_in = nb::ndarray<const std::int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using indices_in = nb::ndarray<const std::int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
/// Values of any dtype; the dispatch checks it against what it expects.
using values_in = nb::ndarray<nb::ndim<1>, nb::c_contig, nb::device::cpu>;

/// A CSR matrix as Python hands it over: shape and the three arrays (canonical: sorted rows,
/// no duplicates; the Python side makes them so). `values` is absent for patterns.
struct host_operand {
  index_t rows = 0, cols = 0;
  offsets_in indptr;
  indices_in indices;
  std::optional<values_in> values;
};

/// (rows, cols, indptr int64, indices int32, values or None), as opsparse/_convert.py and
/// opsparse/_graph.py make it.
inline host_operand operand_from(const nb::handle& t) {
  host_operand m;
  m.rows = nb::cast<index_t>(t[0]);
  m.cols = nb::cast<index_t>(t[1]);
  m.indptr = nb::cast<offsets_in>(t[2]);
  m.indices = nb::cast<indices_in>(t[3]);
  if (!t[4].is_none()) m.values = nb::cast<values_in>(t[4]);
  return m;
}

/// Thrown from a progress hook when Python has a pending signal (Ctrl-C); the binding turns it
/// back into the pending Python exception once it holds the GIL again.
struct interrupted {};

template <class T>
nb::dlpack::dtype dtype_of() {
  return nb::dtype<T>();
}

/// Copies a Python CSR into a host_csr<V> (the CPU engine's type owns std::vectors: the one
/// conversion of a host input). Checks the CSR invariants, naming what is wrong.
template <class V>
host_csr<V> to_host(const host_operand& m, const char* name) {
  const std::size_t n = static_cast<std::size_t>(m.rows);
  if (m.indptr.shape(0) != n + 1)
    throw std::invalid_argument(std::string(name) + ": indptr has " +
                                std::to_string(m.indptr.shape(0)) + " entries, expected " +
                                std::to_string(n + 1));
  host_csr<V> h(m.rows, m.cols);
  h.rpt.assign(m.indptr.data(), m.indptr.data() + n + 1);
  const std::size_t nnz = m.indices.shape(0);
  h.col.assign(m.indices.data(), m.indices.data() + nnz);
  if constexpr (has_values_v<V>) {
    if (!m.values || m.values->dtype() != dtype_of<V>() || m.values->shape(0) != nnz)
      throw std::invalid_argument(std::string(name) + ": values missing or of the wrong type/size");
    const V* v = static_cast<const V*>(m.values->data());
    h.val.assign(v, v + nnz);
  }
  const std::string why = check(h);
  if (!why.empty()) throw std::invalid_argument(std::string(name) + ": " + why);
  return h;
}

/// Checks, without copying, that a CSR read in place (a mask's structure) is one: rows+1 row
/// pointers from 0 that never decrease and end within the stored indices, and sorted column
/// indices in range, so that no kernel reads past its arrays.
inline void check_in_place(const host_operand& m, const char* name) {
  const std::string who(name);
  if (m.rows < 0 || m.cols < 0) throw std::invalid_argument(who + ": negative dimensions");
  const std::size_t n = static_cast<std::size_t>(m.rows);
  if (m.indptr.shape(0) != n + 1)
    throw std::invalid_argument(who + ": indptr has " + std::to_string(m.indptr.shape(0)) +
                                " entries, expected " + std::to_string(n + 1));
  const std::int64_t* rpt = m.indptr.data();
  const std::int32_t* col = m.indices.data();
  if (rpt[0] != 0) throw std::invalid_argument(who + ": indptr[0] is not 0");
  const auto stored = static_cast<std::int64_t>(m.indices.shape(0));
  for (std::size_t i = 0; i < n; ++i) {
    if (rpt[i + 1] < rpt[i] || rpt[i + 1] > stored)
      throw std::invalid_argument(who + ": indptr decreases or points past the " +
                                  std::to_string(stored) + " stored entries at row " +
                                  std::to_string(i));
    for (std::int64_t k = rpt[i]; k < rpt[i + 1]; ++k)
      if (col[k] < 0 || col[k] >= m.cols || (k > rpt[i] && col[k - 1] >= col[k]))
        throw std::invalid_argument(
            who + ": column indices out of range or not increasing in row " + std::to_string(i));
  }
}

/// Hands a vector to NumPy without copying: the array owns it through a capsule.
template <class T>
nb::object to_numpy(std::vector<T>&& v) {
  auto* heap = new std::vector<T>(std::move(v));
  if (heap->capacity() == 0) heap->reserve(1);  // a non-null pointer for an empty array
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(heap->data(), {heap->size()}, owner));
}

/// (rows, cols, indptr, indices, values or None) for the Python side to wrap.
template <class V>
nb::tuple from_host(host_csr<V>&& h) {
  nb::object values = nb::none();
  if constexpr (has_values_v<V>) values = to_numpy(std::move(h.val));
  return nb::make_tuple(h.rows, h.cols, to_numpy(std::move(h.rpt)), to_numpy(std::move(h.col)),
                        values);
}

// The CPU engine's products, by value family (one file each, compiled in parallel). Each returns
// an empty object when `semiring` or the dtype is not its own.
struct host_product {
  std::string semiring;
  const host_operand* a = nullptr;
  const host_operand* b = nullptr;
  const host_operand* mask = nullptr;  ///< null: no mask
  bool complement = false;
  int threads = 0;
  bool sorted = true;  ///< false: C's rows in any column order (saves the sort)
};
nb::object host_spgemm_float(const host_product& p);
nb::object host_spgemm_integer(const host_product& p);
nb::object host_spgemm_graph(const host_product& p);

void bind_apps(nb::module_& m);
void bind_graph_algorithms(nb::module_& m);
void bind_device(nb::module_& m);

}  // namespace opsparse::python
