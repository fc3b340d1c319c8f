#pragma once
// The GPU engine: C = A·B (C<M> = A·B, C<¬M> = A·B) over a semiring, as OpSparse computes it:
// setup (products per row into C.rpt), symbolic binning, symbolic hashing per bin, numeric
// binning + in-place scan of C.rpt + allocation of C, numeric hashing/condensing/sorting per bin.
// Work is queued on ctx's streams; C is complete once ctx.stream() has been synchronised (the
// call itself blocks only for the two small binning readbacks).
//
// Compiles with the host compiler; the templates are instantiated for the combinations listed in
// the lists of libopsparse/CMakeLists.txt (others fail to link: add them there).
#include "opsparse/context.hpp"
#include "opsparse/spgemm_tuning.hpp"
#include "opsparse/device_csr.hpp"
#include "opsparse/mask.hpp"
#include "opsparse/plan.hpp"
#include "opsparse/semiring.hpp"

namespace opsparse {

/// What a caller sets for a product. The engine's tuning and the paper's ablation switches are
/// in `tuning` (spgemm_tuning.hpp): their defaults are the measured best (docs/tuning.md);
/// the benchmark and the tests reach them.
struct spgemm_options {
  bool sorted = true;        ///< sort each output row by column (false saves the sort)
  bool time_phases = false;  ///< record phase times into plan.stats() (adds syncs)
  detail::spgemm_tuning tuning;
};

/// C = A·B in one call (symbolic then numeric).
template <class Semiring, class VA, class VB, class Mask = no_mask>
void spgemm(context& ctx, plan& p, const csr_view<VA>& a, const csr_view<VB>& b,
            device_csr<typename Semiring::value_type>& c, const Mask& mask = {},
            const spgemm_options& opt = {});

/// Symbolic phase alone: C's row pointers and capacity; records the numeric binning in `p`.
template <class Semiring, class VA, class VB, class Mask = no_mask>
void spgemm_symbolic(context& ctx, plan& p, const csr_view<VA>& a, const csr_view<VB>& b,
                     device_csr<typename Semiring::value_type>& c, const Mask& mask = {},
                     const spgemm_options& opt = {});

/// Numeric phase alone, reusing the plan of the last symbolic phase: A and B must have the
/// structure they had then (values may differ). Checked in debug builds.
template <class Semiring, class VA, class VB, class Mask = no_mask>
void spgemm_numeric(context& ctx, plan& p, const csr_view<VA>& a, const csr_view<VB>& b,
                    device_csr<typename Semiring::value_type>& c, const Mask& mask = {},
                    const spgemm_options& opt = {});

/// Whether the engine's paths for rows too long for shared hash tables (dense_long_rows,
/// dense_windows) are open to a product whose B has `cols` columns on ctx's device: they need a
/// bitmap of B's columns in one block's shared memory (about 1.8 million columns on an H100).
/// Past that such rows take global hash tables, many times slower where they are long and dense.
bool spgemm_dense_rows_fit(const context& ctx, index_t cols);

}  // namespace opsparse
