#pragma once
// Host CSR matrix: what the readers produce, what the CPU engine computes on, and what device
// matrices are uploaded from and downloaded to.
#include <cstddef>
#include <string>
#include <vector>

#include "opsparse/types.hpp"

namespace opsparse {

template <class Value>
struct host_csr {
  using value_type = Value;
  index_t rows = 0;
  index_t cols = 0;
  std::vector<offset_t> rpt{0};  ///< rows + 1 entries, rpt[0] == 0
  std::vector<index_t> col;      ///< nnz entries, sorted within each row
  std::vector<Value> val;        ///< nnz entries; always empty when Value is `pattern`

  host_csr() = default;
  host_csr(index_t r, index_t c) : rows(r), cols(c), rpt(static_cast<std::size_t>(r) + 1, 0) {}

  offset_t nnz() const noexcept { return rpt.empty() ? 0 : rpt.back(); }
};

/// Checks the CSR invariants: rpt has rows+1 entries starting at 0 and never decreasing, columns in
/// [0, cols), strictly increasing within each row (sorted, no duplicates), val size matches.
/// Throws std::invalid_argument naming the first violation.
template <class Value>
void validate(const host_csr<Value>& m);

/// Returns a message describing the first violation of the CSR invariants, or "" when valid.
template <class Value>
std::string check(const host_csr<Value>& m);

/// Converts values (e.g. pattern -> double with every value 1, double -> pattern dropping values).
template <class To, class From>
host_csr<To> convert(const host_csr<From>& m);

/// Transpose (keeps sorted columns).
template <class Value>
host_csr<Value> transpose(const host_csr<Value>& m);

}  // namespace opsparse

#include "opsparse/csr_impl.hpp"
