#pragma once
// The CPU engine: row-wise SpGEMM over any semiring and mask, OpenMP over rows.
// It is the oracle of every GPU test and the fallback where no GPU is present.
#include "opsparse/csr.hpp"
#include "opsparse/mask.hpp"
#include "opsparse/semiring.hpp"

namespace opsparse::cpu {

struct options {
  bool sorted = true;  ///< sort columns within each output row (false: any order)
  int threads = 0;     ///< OpenMP threads; 0 = the OpenMP default
};

/// Number of multiplications of A·B (sum over nonzeros A(i,k) of nnz(B row k)).
template <class VA, class VB>
offset_t count_products(const host_csr<VA>& a, const host_csr<VB>& b);

/// C = A·B (or C<M> = A·B, C<¬M> = A·B) over Semiring. Mask views hold host pointers
/// (see host_mask). Entries are structural: a product whose value happens to be the identity is
/// still an entry.
template <class Semiring, class VA, class VB, class Mask = no_mask>
host_csr<typename Semiring::value_type> spgemm(const host_csr<VA>& a, const host_csr<VB>& b,
                                               const Mask& mask = {}, const options& opt = {});

/// A mask view over a host matrix (structural_mask or complement_mask).
template <class MaskT, class V>
MaskT host_mask(const host_csr<V>& m) {
  return make_mask<MaskT>(m.rows, m.cols, m.rpt.data(), m.col.data());
}

}  // namespace opsparse::cpu

#include "opsparse/cpu/detail/spgemm_impl.hpp"
