#pragma once
// C += A·B on the host with C's entries as running sums: the in-order mode of dist::spgemm
// (spgemm_options::in_order). Every product is added onto its column's running sum in the order
// of A's row, then B's row, as one pass of opsparse::cpu::spgemm adds them, so that a SUMMA whose
// stages each continue the sums of the stages before it adds every entry's products in the order
// of the inner index, as the single-process product does: plus-times over doubles is then
// cpu::spgemm's result bit for bit.
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <vector>

#include "opsparse/cpu/spgemm.hpp"
#include "opsparse/csr.hpp"
#include "opsparse/error.hpp"

namespace opsparse::dist::detail {

/// The rows of c += a·b cut into runs of about equal work, eight a thread, for threads to take
/// dynamically (contiguous ranges of equal row counts left threads idle behind the ranges that
/// hold the long rows): the first row of each run and then a.rows. bound[i + 1] gets row i's
/// work, its entries of c and its products, which bounds its entries.
template <class VA, class VB, class T>
std::vector<index_t> equal_work_chunks(const host_csr<VA>& a, const host_csr<VB>& b,
                                       const host_csr<T>& c, int threads,
                                       std::vector<offset_t>& bound) {
  const index_t rows = a.rows;
  bound.assign(static_cast<std::size_t>(rows) + 1, 0);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (index_t i = 0; i < rows; ++i) {
    offset_t w = c.rpt[i + 1] - c.rpt[i];
    for (offset_t ka = a.rpt[i]; ka < a.rpt[i + 1]; ++ka)
      w += b.rpt[a.col[ka] + 1] - b.rpt[a.col[ka]];
    bound[static_cast<std::size_t>(i) + 1] = w;
  }
  std::vector<offset_t> work_before(bound.size(), 0);  // work of rows [0, i)
  for (index_t i = 0; i < rows; ++i) work_before[i + 1] = work_before[i] + bound[i + 1];
  const int chunks = static_cast<int>(std::max<offset_t>(1, std::min<offset_t>(rows, 8 * threads)));
  return cpu::balanced_row_blocks(work_before, chunks);
}

/// Row i of c + a·b appended to `out` (its length, columns and values): `bound` is its work
/// (equal_work_chunks); acc, present and touched are the thread's accumulator, flags (left
/// clear) and column list.
template <class Semiring, class VA, class VB, class T, class Out>
void accumulate_row(const host_csr<VA>& a, const host_csr<VB>& b, const host_csr<T>& c, index_t i,
                    offset_t bound, std::vector<T>& acc, std::vector<char>& present,
                    std::vector<index_t>& touched, Out& out) {
  constexpr bool with_values = has_values_v<T>;
  // A row touching a good part of the columns finds them by a scan over the flags
  // (ascending); a sparser one lists them on first touch and sorts (as apps/mcl's CPU
  // backend: sorting dense rows took most of the time).
  const bool scan = bound * 4 >= static_cast<offset_t>(b.cols);
  touched.clear();
  const auto touch = [&](index_t j) {
    present[j] = 1;
    if (!scan) touched.push_back(j);
  };
  for (offset_t k = c.rpt[i]; k < c.rpt[i + 1]; ++k) {
    touch(c.col[k]);
    if constexpr (with_values) acc[c.col[k]] = c.val[k];
  }
  for (offset_t ka = a.rpt[i]; ka < a.rpt[i + 1]; ++ka) {
    const index_t k = a.col[ka];
    const auto av = cpu::detail::value_at(a, ka);
    (void)av;  // (pattern products have no value)
    for (offset_t kb = b.rpt[k]; kb < b.rpt[k + 1]; ++kb) {
      const index_t j = b.col[kb];
      if (present[j]) {
        if constexpr (with_values)
          acc[j] = Semiring::add(acc[j], Semiring::multiply(av, cpu::detail::value_at(b, kb)));
        continue;
      }
      touch(j);
      if constexpr (with_values) acc[j] = Semiring::multiply(av, cpu::detail::value_at(b, kb));
    }
  }
  if (scan) {
    for (index_t j = 0; j < b.cols; ++j)
      if (present[j]) touched.push_back(j);
  } else {
    std::sort(touched.begin(), touched.end());
  }
  out.lengths.push_back(static_cast<offset_t>(touched.size()));
  for (const index_t j : touched) {
    out.col.push_back(j);
    if constexpr (with_values) out.val.push_back(acc[j]);
    present[j] = 0;
  }
}

/// c += a·b over Semiring (c is a.rows × b.cols with sorted rows, and stays sorted): a column
/// already in c's row continues from its value, a new column starts with its first product (as
/// cpu::spgemm starts a sum). A dense accumulator over b's columns per thread (a value and a flag
/// per column); the rows in runs of equal work (equal_work_chunks) taken dynamically, each run
/// written to a buffer of its own, the buffers concatenated in row order afterwards.
template <class Semiring, class VA, class VB>
void accumulate_product(const host_csr<VA>& a, const host_csr<VB>& b,
                        host_csr<typename Semiring::value_type>& c, int threads) {
  using T = typename Semiring::value_type;
  constexpr bool with_values = has_values_v<T>;
  OPSPARSE_EXPECTS(a.cols == b.rows && c.rows == a.rows && c.cols == b.cols,
                   "accumulate_product: a is " + std::to_string(a.rows) + "x" +
                       std::to_string(a.cols) + ", b " + std::to_string(b.rows) + "x" +
                       std::to_string(b.cols) + ", c " + std::to_string(c.rows) + "x" +
                       std::to_string(c.cols));
  const index_t rows = a.rows;
  if (threads <= 0) threads = omp_get_max_threads();
  const offset_t work = a.nnz() + c.nnz();
  // One thread per 2^14 entries at least (as cpu::row_products: below that a team costs more).
  threads = static_cast<int>(std::max<offset_t>(1, std::min<offset_t>(threads, work >> 14)));
  std::vector<offset_t> bound;
  const std::vector<index_t> first_row = equal_work_chunks(a, b, c, threads, bound);
  const int chunks = static_cast<int>(first_row.size()) - 1;
  struct part {
    std::vector<offset_t> lengths;
    std::vector<index_t> col;
    std::vector<T> val;
  };
  std::vector<part> parts(static_cast<std::size_t>(chunks));
  std::exception_ptr error;
#pragma omp parallel num_threads(threads)
  {
    std::vector<T> acc;
    std::vector<char> present;
    std::vector<index_t> touched;
    try {
      acc.resize(with_values ? static_cast<std::size_t>(b.cols) : 0);
      present.assign(static_cast<std::size_t>(b.cols), 0);
    } catch (...) {
#pragma omp critical(opsparse_dist_accumulate)
      if (!error) error = std::current_exception();
    }
#pragma omp for schedule(dynamic, 1)
    for (int chunk = 0; chunk < chunks; ++chunk) {
      if (present.size() != static_cast<std::size_t>(b.cols)) continue;  // allocation failed
      const index_t r0 = first_row[chunk], r1 = first_row[chunk + 1];
      try {
        part& out = parts[static_cast<std::size_t>(chunk)];
        out.lengths.reserve(static_cast<std::size_t>(r1 - r0));
        for (index_t i = r0; i < r1; ++i)
          accumulate_row<Semiring>(a, b, c, i, bound[static_cast<std::size_t>(i) + 1], acc, present,
                                   touched, out);
      } catch (...) {
#pragma omp critical(opsparse_dist_accumulate)
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
  host_csr<T> next(rows, b.cols);
  offset_t nnz = 0;
  for (const part& p : parts) nnz += static_cast<offset_t>(p.col.size());
  next.col.reserve(static_cast<std::size_t>(nnz));
  if constexpr (with_values) next.val.reserve(static_cast<std::size_t>(nnz));
  index_t i = 0;
  for (const part& p : parts) {
    for (const offset_t length : p.lengths) {
      next.rpt[static_cast<std::size_t>(i) + 1] = next.rpt[i] + length;
      ++i;
    }
    next.col.insert(next.col.end(), p.col.begin(), p.col.end());
    if constexpr (with_values) next.val.insert(next.val.end(), p.val.begin(), p.val.end());
  }
  c = std::move(next);
}

}  // namespace opsparse::dist::detail
