#pragma once
// Header-only implementations for csr.hpp (templates over every value type).
#include <stdexcept>
#include <string>

namespace opsparse {

template <class Value>
std::string check(const host_csr<Value>& m) {
  if (m.rows < 0 || m.cols < 0) return "negative dimensions";
  if (m.rpt.size() != static_cast<std::size_t>(m.rows) + 1)
    return "rpt has " + std::to_string(m.rpt.size()) +
           " entries, expected rows+1 = " + std::to_string(static_cast<long long>(m.rows) + 1);
  if (m.rpt[0] != 0) return "rpt[0] is " + std::to_string(m.rpt[0]) + ", expected 0";
  for (index_t i = 0; i < m.rows; ++i)
    if (m.rpt[i + 1] < m.rpt[i]) return "rpt decreases at row " + std::to_string(i);
  if (static_cast<offset_t>(m.col.size()) != m.rpt.back())
    return "col has " + std::to_string(m.col.size()) + " entries, rpt says " +
           std::to_string(m.rpt.back());
  if constexpr (has_values_v<Value>) {
    if (m.val.size() != m.col.size())
      return "val has " + std::to_string(m.val.size()) + " entries, col has " +
             std::to_string(m.col.size());
  } else {
    if (!m.val.empty()) return "a pattern matrix carries values";
  }
  for (index_t i = 0; i < m.rows; ++i) {
    for (offset_t k = m.rpt[i]; k < m.rpt[i + 1]; ++k) {
      const index_t c = m.col[k];
      if (c < 0 || c >= m.cols)
        return "column " + std::to_string(c) + " out of range [0," + std::to_string(m.cols) +
               ") in row " + std::to_string(i);
      if (k > m.rpt[i] && m.col[k - 1] >= c)
        return "columns not strictly increasing in row " + std::to_string(i);
    }
  }
  return {};
}

template <class Value>
void validate(const host_csr<Value>& m) {
  const std::string msg = check(m);
  if (!msg.empty()) throw std::invalid_argument("invalid CSR matrix: " + msg);
}

template <class To, class From>
host_csr<To> convert(const host_csr<From>& m) {
  host_csr<To> r;
  r.rows = m.rows;
  r.cols = m.cols;
  r.rpt = m.rpt;
  r.col = m.col;
  if constexpr (has_values_v<To>) {
    r.val.resize(m.col.size());
    for (std::size_t k = 0; k < m.col.size(); ++k) {
      if constexpr (has_values_v<From>)
        r.val[k] = static_cast<To>(m.val[k]);
      else
        r.val[k] = To(1);
    }
  }
  return r;
}

template <class Value>
host_csr<Value> transpose(const host_csr<Value>& m) {
  host_csr<Value> t(m.cols, m.rows);
  for (index_t c : m.col) ++t.rpt[static_cast<std::size_t>(c) + 1];
  for (index_t j = 0; j < m.cols; ++j) t.rpt[j + 1] += t.rpt[j];
  t.col.resize(m.col.size());
  if constexpr (has_values_v<Value>) t.val.resize(m.col.size());
  std::vector<offset_t> next(t.rpt.begin(), t.rpt.end() - 1);
  for (index_t i = 0; i < m.rows; ++i)
    for (offset_t k = m.rpt[i]; k < m.rpt[i + 1]; ++k) {
      const offset_t dst = next[m.col[k]]++;
      t.col[dst] = i;
      if constexpr (has_values_v<Value>) t.val[dst] = m.val[k];
    }
  return t;
}

}  // namespace opsparse
