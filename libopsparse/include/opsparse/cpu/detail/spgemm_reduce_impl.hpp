#pragma once
// cpu::spgemm_reduce (declared in cpu/spgemm.hpp): ⊕ of C<M> = A·B in one pass, C never formed.
// Each row marks its mask row in the thread's accumulator (spgemm_impl.hpp's) and adds up the
// products that land on a mark; rows' sums are combined in row order.
#include <algorithm>
#include <vector>

#include "opsparse/cpu/detail/spgemm_impl.hpp"

namespace opsparse::cpu {
namespace detail {

/// ⊕ over the products of row i whose column of B is in the mask row (marked in acc).
template <class Semiring, class Acc, class VA, class VB>
typename Semiring::value_type reduce_row(index_t i, const host_csr<VA>& a, const host_csr<VB>& b,
                                         const structural_mask& mask, Acc& acc) {
  using T = typename Semiring::value_type;
  T sum = Semiring::identity();
  const offset_t m_lo = mask.rpt[i], m_hi = mask.rpt[i + 1];
  if (m_lo == m_hi || a.rpt[i] == a.rpt[i + 1]) return sum;
  acc.begin_row(m_hi - m_lo);
  for (offset_t p = m_lo; p < m_hi; ++p)
    acc.set(acc.find(mask.col[p]), mask.col[p], slot_state::marked);
  for (offset_t ka = a.rpt[i]; ka < a.rpt[i + 1]; ++ka) {
    const index_t k = a.col[ka];
    const auto av = value_at(a, ka);
    for (offset_t kb = b.rpt[k]; kb < b.rpt[k + 1]; ++kb)
      if (acc.state(acc.find(b.col[kb])) == slot_state::marked)
        sum = Semiring::add(sum, Semiring::multiply(av, value_at(b, kb)));
  }
  return sum;
}

template <class Semiring, class Acc, class VA, class VB>
void reduce_rows_of_product(const host_csr<VA>& a, const host_csr<VB>& b,
                            const structural_mask& mask, int threads,
                            typename Semiring::value_type* sums) {
  for_each_row<Acc>(threads, a.rows, b.cols, false, [&](Acc& acc, index_t i) {
    sums[i] = reduce_row<Semiring>(i, a, b, mask, acc);
  });
}

}  // namespace detail

template <class Semiring, class VA, class VB>
typename Semiring::value_type spgemm_reduce(const host_csr<VA>& a, const host_csr<VB>& b,
                                            const structural_mask& mask,
                                            typename Semiring::value_type* row_sums,
                                            const options& opt) {
  using T = typename Semiring::value_type;
  static_assert(has_values_v<T>, "spgemm_reduce needs a semiring whose addition has a value");
  const offset_t total = count_products(a, b);  // also checks A and B
  OPSPARSE_EXPECTS(mask.rows == a.rows && mask.cols == b.cols,
                   "spgemm_reduce: the mask is " + std::to_string(mask.rows) + "x" +
                       std::to_string(mask.cols) + " but C = A·B is " + std::to_string(a.rows) +
                       "x" + std::to_string(b.cols));
  OPSPARSE_EXPECTS(mask.rpt != nullptr, "spgemm_reduce: the mask has no row pointers");
  detail::check_operand("mask", mask.rows, mask.cols, mask.rpt,
                        static_cast<std::size_t>(mask.rows) + 1, mask.col,
                        static_cast<std::size_t>(mask.rpt[mask.rows]));
  std::vector<T> own;
  T* sums = row_sums;
  if (sums == nullptr) {
    own.assign(static_cast<std::size_t>(a.rows), Semiring::identity());
    sums = own.data();
  }
  if (total == 0) {
    std::fill(sums, sums + a.rows, Semiring::identity());
    return Semiring::identity();
  }
  const detail::run_shape run = detail::shape_of(opt, b.cols, total);
  if (run.dense)
    detail::reduce_rows_of_product<Semiring, detail::dense_accumulator<pattern>>(a, b, mask,
                                                                                 run.threads, sums);
  else
    detail::reduce_rows_of_product<Semiring, detail::hash_accumulator<pattern>>(a, b, mask,
                                                                                run.threads, sums);
  T s = Semiring::identity();
  for (index_t i = 0; i < a.rows; ++i) s = Semiring::add(s, sums[i]);
  return s;
}

}  // namespace opsparse::cpu
