// clm dist and clm info's measures (see clm.hpp).
#include "clm.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "opsparse/io_mcl_native.hpp"

namespace opsparse::clm {

partition read_partition(const std::string& path) {
  const io::mcl_native_matrix m = io::read_mcl_native(path, io::read_options{});
  partition p;
  p.nodes = m.columns.cols;
  std::vector<char> seen(static_cast<std::size_t>(p.nodes), 0);
  for (index_t c = 0; c < m.columns.rows; ++c) {
    std::vector<index_t> members(m.columns.col.begin() + m.columns.rpt[c],
                                 m.columns.col.begin() + m.columns.rpt[c + 1]);
    for (index_t v : members) {
      if (seen[v])
        throw parse_error(path, 0, "not a partition: node " + std::to_string(m.row_ids[v]) +
                                       " is in two clusters");
      seen[v] = 1;
    }
    if (!members.empty()) p.clusters.push_back(std::move(members));
  }
  const auto missing = std::find(seen.begin(), seen.end(), 0);
  if (missing != seen.end())
    throw parse_error(path, 0, "not a partition: node " +
                                   std::to_string(m.row_ids[missing - seen.begin()]) +
                                   " is in no cluster");
  return p;
}

distance compare(const partition& a, const partition& b, distance_mode mode) {
  if (a.nodes != b.nodes)
    throw std::invalid_argument("the clusterings are of " + std::to_string(a.nodes) + " and " +
                                std::to_string(b.nodes) + " nodes");
  const std::size_t n = static_cast<std::size_t>(a.nodes);
  std::vector<std::uint32_t> in_b(n);
  for (std::size_t j = 0; j < b.clusters.size(); ++j)
    for (index_t v : b.clusters[j]) in_b[v] = static_cast<std::uint32_t>(j);
  // The meet: |A_i ∩ B_j| for every pair that meets.
  std::vector<std::uint64_t> best_b(b.clusters.size(), 0);
  double sum_a = 0, sum_b = 0, sum_meet = 0;  // sj: kept nodes; vi: entropies; mk: squares
  distance d;
  const double N = static_cast<double>(n);
  for (std::size_t i = 0; i < a.clusters.size(); ++i) {
    std::unordered_map<std::uint32_t, std::uint64_t> meet;
    for (index_t v : a.clusters[i]) ++meet[in_b[v]];
    std::uint64_t best = 0;
    const double ai = static_cast<double>(a.clusters[i].size());
    for (const auto& [j, c] : meet) {
      best = std::max(best, c);
      best_b[j] = std::max(best_b[j], c);
      const double x = static_cast<double>(c);
      const double bj = static_cast<double>(b.clusters[j].size());
      if (mode == distance_mode::variance_of_information) {
        d.d1 += x / N * std::log(ai / x);
        d.d2 += x / N * std::log(bj / x);
      }
      sum_meet += x * x;
    }
    sum_a += static_cast<double>(best);
  }
  for (std::uint64_t x : best_b) sum_b += static_cast<double>(x);
  if (mode == distance_mode::split_join) {
    d.d1 = N - sum_a;
    d.d2 = N - sum_b;
  } else if (mode == distance_mode::mirkin) {
    double sa = 0, sb = 0;
    for (const auto& c : a.clusters) sa += static_cast<double>(c.size()) * static_cast<double>(c.size());
    for (const auto& c : b.clusters) sb += static_cast<double>(c.size()) * static_cast<double>(c.size());
    d.d1 = sa - sum_meet;
    d.d2 = sb - sum_meet;
  }
  d.d = d.d1 + d.d2;
  return d;
}

info measure(const host_csr<double>& g, const partition& p, bool loops) {
  if (g.rows != g.cols || g.rows != p.nodes)
    throw std::invalid_argument("the graph has " + std::to_string(g.rows) + "x" +
                                std::to_string(g.cols) + " nodes, the clustering " +
                                std::to_string(p.nodes));
  std::vector<std::uint32_t> cluster_of(static_cast<std::size_t>(p.nodes));
  info r;
  r.clusters = p.clusters.size();
  r.smallest = p.clusters.empty() ? 0 : p.clusters[0].size();
  double area = 0, squares = 0;
  for (std::size_t k = 0; k < p.clusters.size(); ++k) {
    const double s = static_cast<double>(p.clusters[k].size());
    area += s * (s - 1);
    squares += s * s;
    r.largest = std::max(r.largest, p.clusters[k].size());
    r.smallest = std::min(r.smallest, p.clusters[k].size());
    for (index_t v : p.clusters[k]) cluster_of[v] = static_cast<std::uint32_t>(k);
  }
  const double N = static_cast<double>(p.nodes);
  // clm 22-282 reports -1/(N(N-1)) for a clustering of singletons only (seen for N = 6, 10, 180;
  // any cluster of two or more gives the plain formula): reproduced so that the numbers agree.
  if (r.largest == 1) area = -1;
  r.area_fraction = p.nodes > 1 ? area / (N * (N - 1)) : 0;
  r.average = r.clusters ? N / static_cast<double>(r.clusters) : 0;
  r.center = p.nodes ? squares / N : 0;
  // Per node: its loop is as heavy as its heaviest edge (1 without edges), as mcl adds it.
  double mass = 0;
  for (index_t v = 0; v < g.rows; ++v) {
    double heaviest = 0, total = 0, inside = 0;
    for (offset_t k = g.rpt[v]; k < g.rpt[v + 1]; ++k) {
      if (g.col[k] == v || g.val[k] <= 0) continue;
      heaviest = std::max(heaviest, g.val[k]);
      total += g.val[k];
      if (cluster_of[g.col[k]] == cluster_of[v]) inside += g.val[k];
    }
    const double loop = !loops ? 0.0 : heaviest > 0 ? heaviest : 1.0;
    mass += total + loop > 0 ? (inside + loop) / (total + loop) : 1.0;
  }
  r.mass_fraction = p.nodes ? mass / N : 0;
  return r;
}

}  // namespace opsparse::clm
