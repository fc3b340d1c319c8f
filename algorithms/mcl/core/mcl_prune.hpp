#pragma once
// mcl's per-column pruning decision, shared by the CPU backend and the GPU kernels (host and
// device code). An mcl column is a CSR row here (the iterand is kept transposed).
//
// mcl 22-282 (its default "rigid" pruning, expand.c's mclExpandVector1) treats each expanded
// column v as follows; ranks count from 1 over v's values in descending order:
//   1. cutoff: keep v >= cutoff (cutoff = 0.99999 / P). n_prune entries of mass mass_prune stay.
//   2. R == 0 and nothing survived: the column becomes a single loop of weight 1 (mcl's
//      "emergency measure").
//   3. R > 0, n_prune < R and mass_prune < pct: recovery from the unpruned column. If it has more
//      than R entries the bar is the value of rank R (= the (R - n_prune)-th largest below the
//      cutoff), else the bar is 0: every entry is kept but a negative one (there are such only
//      when the graph has negative weights).
//   4. otherwise S > 0 and n_prune > S: selection. The bar is the value of rank S; n_sel entries of
//      mass mass_sel reach it (ties included, as mcl keeps every value >= its bar). If then
//      n_sel < R and mass_sel < pct, recovery from the post-cutoff column: the bar becomes the
//      value of rank R when n_prune > R, else the cutoff (all post-cutoff entries).
//   5. otherwise the cutoff result stands.
// The survivors are divided by their mass. The column's chaos is (max - sum of squares) of the
// expanded column before pruning, times the number of survivors; the iterate's chaos is the
// maximum over columns and mcl stops once it is below 1e-4 (checked after inflation).
#include "opsparse/semiring.hpp"  // OPSPARSE_HD
#include "opsparse/types.hpp"

namespace opsparse::mcl {

/// The pruning parameters as the backends use them (plain data: copied to the device as is).
struct prune_rule {
  double cutoff = 0.99999 / 10000;  ///< rigid cutoff (0: none)
  long long select = 1100;          ///< S (0: no selection)
  long long recover = 1400;         ///< R (0: no recovery)
  double pct = 0.9;                 ///< recovery threshold on the kept mass, as a fraction
};

/// A bar below every stochastic value: "rank the whole row" (the GPU's pruning; its rows have no
/// negative values, see has_negative_values in mcl.hpp).
inline constexpr double keep_all_bar = -1.0;
/// The bar of case keep_all: mcl's recovery bar when the column has at most R entries (expand.c:
/// rg_rbar = 0.0), which drops the negative values that negative weights give.
inline constexpr double keep_all_recovery_bar = 0.0;

/// What a row needs after the cutoff pass.
enum prune_case : int {
  case_cutoff = 0,     ///< the cutoff result stands (bar = cutoff)
  case_keep_all = 1,   ///< recovery with at most R entries: the whole expanded row stays (its
                       ///< negative values aside)
  case_emergency = 2,  ///< R == 0 and nothing survived: a loop of weight 1
  case_recover = 3,    ///< recovery to rank R of the expanded row
  case_select = 4,     ///< selection at rank S, possibly followed by recovery
};

OPSPARSE_HD int prune_case_of(const prune_rule& r, offset_t n_full, offset_t n_prune,
                              double mass_prune) {
  if (r.recover == 0 && n_prune == 0) return case_emergency;
  if (r.recover > 0 && n_prune < r.recover && mass_prune < r.pct)
    return n_full > r.recover ? case_recover : case_keep_all;
  if (r.select > 0 && n_prune > r.select) return case_select;
  return case_cutoff;
}

/// Whether a selected row (n_sel entries of mass mass_sel at or above the rank-S bar) is
/// recovered from the post-cutoff row.
OPSPARSE_HD bool select_recovers(const prune_rule& r, offset_t n_sel, double mass_sel) {
  return r.recover > 0 && n_sel < r.recover && mass_sel < r.pct;
}

/// The bar after a selection that recovers: rank R of the row when the cutoff left more than R
/// entries, else the cutoff itself. `rank_r_value` is only read in the first case.
OPSPARSE_HD bool select_recovery_needs_rank_r(const prune_rule& r, offset_t n_prune) {
  return n_prune > r.recover;
}

/// The most entries a pruned row keeps, ties at a bar aside: max(S, R) with a selection;
/// without one, the cutoff's survivors (each at least the cutoff, summing to at most 1; one
/// more for the rounding of their sum) or R; with neither, the whole row (`row_entries`).
/// It bounds an iterate's size (the memory plan, the GPU backend's placement).
OPSPARSE_HD long long kept_entries_bound(const prune_rule& r, long long row_entries) {
  if (r.select > 0) return r.select > r.recover ? r.select : r.recover;
  if (r.cutoff > 0) {
    const long long survivors = static_cast<long long>(1.0 / r.cutoff) + 1;
    return survivors > r.recover ? survivors : r.recover;
  }
  return row_entries;
}

/// A row needs an order statistic (its values sorted) in cases recover and select.
OPSPARSE_HD bool case_needs_ranks(int c) { return c == case_recover || c == case_select; }

/// What a row keeps: its entries at or above `bar` (all of them for keep_all_bar), `count` of
/// them, of mass `mass` (the emergency loop: count 1, mass 1).
struct prune_decision {
  double bar;
  long long count;
  double mass;
};

/// Steps 2-5 above for a row of case `pcase` whose cutoff pass kept n_prune entries of mass
/// mass_prune. rank(k) gives the row's value of rank k (descending, k >= 1); measure(bar,
/// count, mass) counts and sums the row's entries at or above bar. Both backends' GPU paths
/// call it (the stored expansion's pruning kernels and the fused expansion's epilogue).
template <class Rank, class Measure>
OPSPARSE_HD prune_decision decide(const prune_rule& r, int pcase, offset_t n_prune,
                                  double mass_prune, Rank&& rank, Measure&& measure) {
  prune_decision d{r.cutoff, static_cast<long long>(n_prune), mass_prune};
  switch (pcase) {
    case case_emergency: d = prune_decision{0.0, 1, 1.0}; break;
    case case_keep_all:
      d.bar = keep_all_recovery_bar;
      measure(d.bar, d.count, d.mass);
      break;
    case case_recover:
      d.bar = rank(r.recover);
      measure(d.bar, d.count, d.mass);
      break;
    case case_select: {
      const double sbar = rank(r.select);
      long long n_sel = 0;
      double mass_sel = 0;
      measure(sbar, n_sel, mass_sel);
      if (select_recovers(r, n_sel, mass_sel)) {
        d.bar = select_recovery_needs_rank_r(r, n_prune) ? rank(r.recover) : r.cutoff;
        measure(d.bar, d.count, d.mass);
      } else {
        d = prune_decision{sbar, n_sel, mass_sel};
      }
      break;
    }
    default: break;  // the cutoff result stands
  }
  return d;
}

}  // namespace opsparse::mcl
