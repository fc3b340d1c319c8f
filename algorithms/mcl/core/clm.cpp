// clm dist and clm info's measures (see clm.hpp).
#include "clm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
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
        throw parse_error(
            path, 0,
            "not a partition: node " + std::to_string(m.row_ids[v]) + " is in two clusters");
      seen[v] = 1;
    }
    if (!members.empty()) p.clusters.push_back(std::move(members));
  }
  const auto missing = std::find(seen.begin(), seen.end(), 0);
  if (missing != seen.end())
    throw parse_error(path, 0,
                      "not a partition: node " + std::to_string(m.row_ids[missing - seen.begin()]) +
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
    for (const auto& c : a.clusters)
      sa += static_cast<double>(c.size()) * static_cast<double>(c.size());
    for (const auto& c : b.clusters)
      sb += static_cast<double>(c.size()) * static_cast<double>(c.size());
    d.d1 = sa - sum_meet;
    d.d2 = sb - sum_meet;
  }
  d.d = d.d1 + d.d2;
  return d;
}

namespace {

/// clm's size distribution of p's clusters into r (r.largest already set).
void size_distribution(const partition& p, info& r) {
  // clm's size distribution (clmGranularity in mcl's clm.c): the sizes sorted largest first and
  // summed from the smallest; DGI counts the clusters summed when the sum first reaches the
  // largest size ("David and Goliath"), TWI is the index (largest first, from 0) of the cluster
  // with which it first reaches half the nodes, (N+1)/2 rounded down, and TWL that cluster's size.
  std::vector<std::size_t> sizes;
  sizes.reserve(p.clusters.size());
  for (const auto& c : p.clusters) sizes.push_back(c.size());
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  const std::size_t half = (static_cast<std::size_t>(p.nodes) + 1) / 2;
  std::size_t sum = 0;
  bool half_reached = false;
  for (std::size_t d = sizes.size(); d-- > 0;) {
    sum += sizes[d];
    if (sizes[d] <= 1) ++r.singletons;
    if (sizes[d] <= 4) ++r.up_to_four;
    if (r.david_goliath == 0 && sum >= r.largest) r.david_goliath = sizes.size() - d;
    if (!half_reached && sum >= half) r.half_index = d, r.half_size = sizes[d], half_reached = true;
  }
}

/// mcl's loop of every node of g (mclxLoopCBmax, as clm info adds it before measuring): the
/// largest nonzero off-diagonal weight and, when the file has a loop there, its value set to 0
/// (so that a node with a loop and only negative edges gets 0), replaced by 1 when that is 0 or
/// there is none.
std::vector<double> mcl_loops(const host_csr<double>& g) {
  std::vector<double> loop(static_cast<std::size_t>(g.rows), 0.0);
  for (index_t v = 0; v < g.rows; ++v) {
    bool any = false;
    for (offset_t k = g.rpt[v]; k < g.rpt[v + 1]; ++k) {
      if (g.val[k] == 0) continue;
      const double w = g.col[k] == v ? 0.0 : g.val[k];
      loop[v] = any ? std::max(loop[v], w) : w;
      any = true;
    }
    if (!any || loop[v] == 0) loop[v] = 1;
  }
  return loop;
}

/// Every node's loop weight as `loops` says (0: none).
std::vector<double> loops_of(const host_csr<double>& g, loop_weights loops) {
  if (loops == loop_weights::heaviest_edge) return mcl_loops(g);
  std::vector<double> loop(static_cast<std::size_t>(g.rows), 0.0);
  if (loops == loop_weights::as_given)
    for (index_t v = 0; v < g.rows; ++v)
      for (offset_t k = g.rpt[v]; k < g.rpt[v + 1]; ++k)
        if (g.col[k] == v) loop[v] = g.val[k];
  return loop;
}

/// The mass fraction and efficiency summed over every (cluster, member) pair (see measure):
/// clm's per node, in its order (clusters, then their members; a column in index order), so that
/// the fifth decimal agrees. A node in two clusters (mcl -overlap keep) counts in each.
void sum_fractions(const host_csr<double>& g, const partition& p, const std::vector<double>& loop,
                   double& mass, double& coverage) {
  std::vector<char> inside(static_cast<std::size_t>(p.nodes), 0);
  for (const std::vector<index_t>& members : p.clusters) {
    for (index_t v : members) inside[v] = 1;
    for (index_t v : members) {
      double in_sum = 0, out_sum = 0, squares = 0;
      std::size_t outside = 0;  // of the support
      auto add = [&](index_t i, double w) {
        squares += w * w;
        if (inside[i]) {
          in_sum += w;
        } else {
          out_sum += w;
          ++outside;
        }
      };
      bool loop_done = loop[v] == 0;
      for (offset_t k = g.rpt[v]; k < g.rpt[v + 1]; ++k) {
        if (g.col[k] == v || g.val[k] == 0) continue;  // not an edge
        if (!loop_done && g.col[k] > v) add(v, loop[v]), loop_done = true;
        add(g.col[k], g.val[k]);
      }
      if (!loop_done) add(v, loop[v]);
      const double sum = in_sum + out_sum;
      if (sum == 0) continue;
      mass += in_sum / sum;
      const double ctr = squares / (sum * sum), div = (in_sum - out_sum) / sum;
      const double size = static_cast<double>(members.size());
      if (ctr != 0) coverage += 1.0 - ((size - div / ctr) / (size + static_cast<double>(outside)));
    }
    for (index_t v : members) inside[v] = 0;
  }
}

/// Newman's modularity on the weighted graph without loops, every column as given: the sum over
/// clusters C of W_in(C)/W - (W(C)/W)^2, W the total weight of all entries, W_in(C) that of the
/// entries inside C and W(C) that of the entries in C's columns (a node in several clusters
/// counts in its last). It equals clm's for nonnegative weights (to the fifth decimal, on the PPI
/// networks and random graphs, and mcl -analyze's with overlap). Not reproduced, for want of
/// clm's code (clmModularity is in none of mcl's published sources we could read) and of a
/// formula that fits its numbers:
/// - the sign of a modularity that rounds to zero: clm prints -0.00000 for about two in five
///   single-cluster clusterings (where this formula is 0 exactly), which none of the summation
///   orders tried predicts (fractions summed per node, per entry, in float or double);
/// - the fifth decimal of a value on a rounding boundary (0.0415550045 here, 0.04155 in mcl
///   -analyze): the sums accumulated in float, in cluster order, give clm's there, but not its
///   signs of zero;
/// - clm's value on some graphs with negative weights, which is no formula of the weights: two
///   nodes joined by an edge of -1 in one cluster give -1, by -2 or 2 give 0, and a path of
///   weights 2, -1 gives 1 (a value of exactly -1 seems to be taken as a sentinel).
double modularity(const host_csr<double>& g, const partition& p) {
  std::vector<std::uint32_t> cluster_of(static_cast<std::size_t>(p.nodes));
  for (std::size_t k = 0; k < p.clusters.size(); ++k)
    for (index_t v : p.clusters[k]) cluster_of[v] = static_cast<std::uint32_t>(k);
  std::vector<double> cluster_weight(p.clusters.size(), 0.0);
  double all = 0, within = 0;
  for (index_t v = 0; v < g.rows; ++v)
    for (offset_t k = g.rpt[v]; k < g.rpt[v + 1]; ++k) {
      if (g.col[k] == v || g.val[k] == 0) continue;  // not an edge
      all += g.val[k];
      cluster_weight[cluster_of[v]] += g.val[k];
      if (cluster_of[g.col[k]] == cluster_of[v]) within += g.val[k];
    }
  if (all == 0) return 0;
  double m = within / all;
  for (double w : cluster_weight) m -= (w / all) * (w / all);
  return m;
}

}  // namespace

info measure(const host_csr<double>& g, const partition& p, loop_weights loops) {
  if (g.rows != g.cols || g.rows != p.nodes)
    throw std::invalid_argument("the graph has " + std::to_string(g.rows) + "x" +
                                std::to_string(g.cols) + " nodes, the clustering " +
                                std::to_string(p.nodes));
  info r;
  r.clusters = p.clusters.size();
  r.smallest = p.clusters.empty() ? 0 : p.clusters[0].size();
  double area = 0, squares = 0, memberships = 0;
  for (std::size_t k = 0; k < p.clusters.size(); ++k) {
    const double s = static_cast<double>(p.clusters[k].size());
    area += s * (s - 1);
    squares += s * s;
    memberships += s;
    r.largest = std::max(r.largest, p.clusters[k].size());
    r.smallest = std::min(r.smallest, p.clusters[k].size());
  }
  const double N = static_cast<double>(p.nodes);
  // clm 22-282 (clmPerformance) replaces an area of 0 by -1, the clusters' and the graph's: a
  // clustering of singletons has -1/(N(N-1)), and a graph of one node 1.
  if (area == 0) area = -1;
  r.area_fraction = area / (p.nodes > 1 ? N * (N - 1) : -1.0);
  r.average = r.clusters ? N / static_cast<double>(r.clusters) : 0;
  // Averages over the memberships, the nodes of a partition (mcl -analyze with -overlap keep).
  r.center = memberships ? squares / memberships : 0;
  size_distribution(p, r);
  // clm's column of node v: its nonzero off-diagonal weights, signed as given (an explicit zero
  // or a loop in the file is dropped), plus the loop `loops` says (mcl_loops, or the file's own).
  // Per node v with column u and cluster P: the mass fraction sum_{i in P} u_i / sum u, and the
  // efficiency (van Dongen's coverage, clm's scan.h) cov(P, u) = 1 - (|P| - div/ctr) / |P u S|,
  // S the support of u, div = (sum_{i in P} u_i - sum_{i not in P} u_i) / sum u and
  // ctr = sum u_i^2 / (sum u)^2; a node whose column sums to 0 adds 0 to both.
  double mass = 0, coverage = 0;
  sum_fractions(g, p, loops_of(g, loops), mass, coverage);
  r.efficiency = memberships ? coverage / memberships : 0;
  r.mass_fraction = memberships ? mass / memberships : 0;
  r.modularity = modularity(g, p);
  return r;
}

std::string performance_line(const info& r, const std::string& note) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "eff=%.5f mod=%.5f mf=%.5f af=%.5f ", r.efficiency, r.modularity,
                r.mass_fraction, r.area_fraction);
  return buf + note;
}

std::string granularity_line(const info& r, const std::string& note) {
  char head[64], tail[192];
  std::snprintf(head, sizeof head, "ncl=%zu max=%zu ", r.clusters, r.largest);
  std::snprintf(tail, sizeof tail,
                " ctr=%.1f avg=%.1f min=%zu DGI=%zu TWI=%zu TWL=%zu sgl=%zu qrt=%zu", r.center,
                r.average, r.smallest, r.david_goliath, r.half_index, r.half_size, r.singletons,
                r.up_to_four);
  return head + note + tail;
}

}  // namespace opsparse::clm
