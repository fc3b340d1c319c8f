#pragma once
// One expanded row (an mcl column) on the host: mcl's pruning decision with its chaos, the
// survivors renormalised, and inflation. The CPU backend (mcl_cpu.cpp) and the distributed driver
// (mcl_dist.cpp, which owns whole rows after its redistribution) call the same code, so that
// their iterates agree bit for bit.
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "mcl_prune.hpp"

namespace opsparse::mcl::detail {

/// What pruning decided for one expanded row.
struct row_decision {
  double bar = 0;          ///< keep values >= bar
  double mass = 0;         ///< their sum (the divisor of the renormalisation)
  offset_t keep = 0;       ///< how many
  bool emergency = false;  ///< the row becomes a loop of weight 1
};

/// mcl's pruning of one expanded row of n values (see mcl_prune.hpp), and its chaos. `tmp` is
/// rank scratch; `signed_values`: the start matrix had negative values (NaN is then ranked last).
template <class T>
row_decision decide_row(const prune_rule& rule, const T* val, offset_t n, std::vector<T>& tmp,
                        double& chaos, bool signed_values) {
  double maxval = 0, center = 0, mass_prune = 0;
  offset_t n_prune = 0;
  for (offset_t k = 0; k < n; ++k) {
    const double v = static_cast<double>(val[k]);
    center += v * v;
    maxval = std::max(maxval, v);
    // Without a branch (see keep_survivors); mass + 0.0 is mass, as it is never -0.0.
    const bool kept = v >= rule.cutoff;
    n_prune += kept;
    mass_prune += kept ? v : 0.0;
  }
  auto rank_value = [&](long long rank) {  // the rank-th largest value (1-based)
    tmp.assign(val, val + n);
    // NaN (a negative value's fractional power) is ranked last, so that the order stays one
    // (mcl's heap selection places it as its comparisons happen to fall: not reproduced).
    auto end = tmp.end();
    if (signed_values) end = std::partition(tmp.begin(), tmp.end(), [](T x) { return x == x; });
    if (rank > end - tmp.begin()) return static_cast<double>(NAN);
    std::nth_element(tmp.begin(), tmp.begin() + (rank - 1), end, std::greater<T>());
    return static_cast<double>(tmp[static_cast<std::size_t>(rank - 1)]);
  };
  auto measure = [&](double bar, long long& count, double& mass) {
    offset_t c = 0;
    mass = 0;
    for (offset_t k = 0; k < n; ++k) {
      const double v = static_cast<double>(val[k]);
      const bool kept = v >= bar;
      c += kept;
      mass += kept ? v : 0.0;
    }
    count = static_cast<long long>(c);
  };
  const int pcase = prune_case_of(rule, n, n_prune, mass_prune);
  const prune_decision pd = decide(rule, pcase, n_prune, mass_prune, rank_value, measure);
  row_decision d;
  d.emergency = pcase == case_emergency;
  d.bar = pd.bar;
  d.keep = static_cast<offset_t>(pd.count);
  d.mass = pd.mass;
  chaos = (maxval - center) * static_cast<double>(d.keep);
  return d;
}

/// Inflation of one row of n values, as mcl's mclvInflate: every value to the power `power`,
/// stored (rounded to T) before it is summed, then divided by the sum. Returns false when the
/// row is not empty and its powers sum to at most 0 (only negative weights leave such values):
/// mcl empties that row, which the caller does.
template <class T>
bool inflate_row(T* val, offset_t n, double power) {
  double sum = 0;
  for (offset_t k = 0; k < n; ++k) {
    const double v = static_cast<double>(val[k]);
    val[k] = static_cast<T>(power == 2.0 ? v * v : std::pow(v, power));
    sum += static_cast<double>(val[k]);
  }
  // mcl divides by any other sum, NaN included.
  if (!(sum <= 0)) {
    for (offset_t k = 0; k < n; ++k) val[k] = static_cast<T>(static_cast<double>(val[k]) / sum);
    return true;
  }
  return n == 0;
}

}  // namespace opsparse::mcl::detail
