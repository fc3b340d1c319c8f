// Protein-interaction-like networks: a degree-corrected planted partition. Complexes (clusters)
// have power-law sizes; inside a complex, proteins i and j interact with probability
// min(1, kappa * theta_i * theta_j); between complexes, endpoints are drawn proportionally to
// theta (Chung-Lu). theta is Pareto, which gives hubs, as in real interactomes.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "common.hpp"

namespace opsparse::datasets {
namespace {

// Complex sizes that cover exactly n proteins.
std::vector<index_t> draw_cluster_sizes(const protein_params& p, detail::rng& g) {
  std::vector<double> cum;
  double total = 0;
  for (index_t s = p.min_cluster; s <= p.max_cluster; ++s) {
    total += std::pow(static_cast<double>(s), -p.cluster_exponent);
    cum.push_back(total);
  }
  std::vector<index_t> sizes;
  index_t remaining = p.nodes;
  while (remaining > 0) {
    const double u = g.uniform() * total;
    index_t s = p.min_cluster +
                static_cast<index_t>(std::upper_bound(cum.begin(), cum.end(), u) - cum.begin());
    s = std::min(s, p.max_cluster);
    // Never leave a tail smaller than a complex: the last one absorbs it.
    if (s >= remaining || remaining - s < p.min_cluster) s = remaining;
    sizes.push_back(s);
    remaining -= s;
  }
  return sizes;
}

/// The scale kappa of the in-complex edge probabilities min(1, kappa theta_i theta_j) whose
/// expected count is target_in (bisection); complexes `start[k]` to `start[k + 1]` with `pairs`
/// pairs in all. A huge kappa when even complete complexes fall short of the target.
double solve_kappa(const std::vector<index_t>& start, const std::vector<double>& theta,
                   double pairs, double target_in) {
  const auto clusters = static_cast<index_t>(start.size() - 1);
  auto expected_in = [&](double kappa) {
    double e = 0;
    for (index_t k = 0; k < clusters; ++k)
      for (index_t i = start[k]; i < start[k + 1]; ++i)
        for (index_t j = i + 1; j < start[k + 1]; ++j)
          e += std::min(1.0, kappa * theta[i] * theta[j]);
    return e;
  };
  if (pairs <= target_in) return 1e300;  // complexes are complete and still short of the target
  double lo = 0, hi = 1;
  while (expected_in(hi) < target_in) hi *= 2;
  for (int it = 0; it < 40; ++it) {
    const double mid = 0.5 * (lo + hi);
    (expected_in(mid) < target_in ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace

host_csr<double> protein_network(const protein_params& p, protein_info* info) {
  if (p.nodes < 2) throw std::invalid_argument("protein_network: need at least 2 proteins");
  if (p.min_cluster < 2 || p.max_cluster < p.min_cluster)
    throw std::invalid_argument("protein_network: need 2 <= min_cluster <= max_cluster");
  if (!(p.avg_degree > 0)) throw std::invalid_argument("protein_network: avg_degree must be > 0");
  if (!(p.mixing >= 0 && p.mixing <= 1))
    throw std::invalid_argument("protein_network: mixing in [0, 1]");
  if (!(p.degree_exponent == 0 || p.degree_exponent > 2))
    throw std::invalid_argument("protein_network: degree_exponent must be 0 or > 2");
  const index_t n = p.nodes;
  detail::rng g(detail::derive(p.seed, 0x5123));
  const std::vector<index_t> sizes = draw_cluster_sizes(p, g);
  const auto clusters = static_cast<index_t>(sizes.size());
  std::vector<index_t> start(sizes.size() + 1, 0);
  for (std::size_t k = 0; k < sizes.size(); ++k) start[k + 1] = start[k] + sizes[k];

  // Propensities, normalised to mean 1 inside each complex so that p_in means the same everywhere.
  std::vector<double> theta(static_cast<std::size_t>(n), 1.0);
  if (p.degree_exponent > 0)
    for (auto& t : theta)
      t = std::min(10.0, std::pow(1.0 - g.uniform(), -1.0 / (p.degree_exponent - 1.0)));
  for (index_t k = 0; k < clusters; ++k) {
    double sum = 0;
    for (index_t i = start[k]; i < start[k + 1]; ++i) sum += theta[i];
    for (index_t i = start[k]; i < start[k + 1]; ++i) theta[i] *= sizes[k] / sum;
  }

  // Solve kappa: expected internal edges = (1 - mixing) * target edges.
  const double target_edges = static_cast<double>(n) * p.avg_degree / 2.0;
  const double target_in = (1.0 - p.mixing) * target_edges;
  double pairs = 0;
  for (index_t s : sizes) pairs += 0.5 * s * (s - 1.0);
  const double kappa = solve_kappa(start, theta, pairs, target_in);

  // Proteins are labelled by a random permutation so complexes are not contiguous id ranges.
  const std::vector<index_t> label = detail::random_permutation(n, detail::derive(p.seed, 0x1abe1));
  std::vector<index_t> r, c;
  r.reserve(static_cast<std::size_t>(target_edges * 1.05));
  c.reserve(r.capacity());
  for (index_t k = 0; k < clusters; ++k) {
    detail::rng gc(detail::derive(p.seed, 0x10000000ULL + static_cast<std::uint64_t>(k)));
    for (index_t i = start[k]; i < start[k + 1]; ++i)
      for (index_t j = i + 1; j < start[k + 1]; ++j)
        if (gc.uniform() < std::min(1.0, kappa * theta[i] * theta[j])) {
          r.push_back(label[i]);
          c.push_back(label[j]);
        }
  }
  const offset_t internal_drawn = static_cast<offset_t>(r.size());

  // Between complexes: the rest of the target, endpoints proportional to theta.
  std::vector<index_t> cluster_at(static_cast<std::size_t>(n));
  for (index_t k = 0; k < clusters; ++k)
    for (index_t i = start[k]; i < start[k + 1]; ++i) cluster_at[i] = k;
  std::vector<double> cum(static_cast<std::size_t>(n));
  double acc = 0;
  for (index_t i = 0; i < n; ++i) cum[i] = (acc += theta[i]);
  auto pick = [&](detail::rng& gg) {
    const double u = gg.uniform() * acc;
    return std::min<index_t>(
        n - 1, static_cast<index_t>(std::upper_bound(cum.begin(), cum.end(), u) - cum.begin()));
  };
  const auto target_out =
      static_cast<offset_t>(std::llround(std::max(0.0, target_edges - internal_drawn)));
  detail::rng ge(detail::derive(p.seed, 0xe77e));
  if (clusters > 1)
    for (offset_t e = 0; e < target_out;) {
      const index_t i = pick(ge), j = pick(ge);
      if (cluster_at[i] == cluster_at[j]) continue;
      r.push_back(label[i]);
      c.push_back(label[j]);
      ++e;
    }

  host_csr<double> a = detail::build_csr(n, n, r, c, /*mirror=*/true, p.values, p.seed);
  if (info) {
    info->clusters = clusters;
    info->cluster_of.assign(static_cast<std::size_t>(n), 0);
    for (index_t i = 0; i < n; ++i) info->cluster_of[label[i]] = cluster_at[i];
    info->p_in = pairs > 0 ? std::min(1.0, static_cast<double>(internal_drawn) / pairs) : 0.0;
    info->internal_edges = info->external_edges = 0;
    for (index_t i = 0; i < n; ++i)
      for (offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k) {
        const index_t j = a.col[k];
        if (j <= i) continue;
        (info->cluster_of[i] == info->cluster_of[j] ? info->internal_edges
                                                    : info->external_edges)++;
      }
  }
  return a;
}

}  // namespace opsparse::datasets
