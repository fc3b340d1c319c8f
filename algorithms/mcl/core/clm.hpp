#pragma once
// The clustering measures of mcl's companion `clm` (22-282) that pipelines use, over clusterings
// in mcl's native format (what mcl and opsparse-mcl write without labels):
//  - clm dist: split/join distance (sj), variance of information (vi, natural logarithm) and
//    the Mirkin metric (mk), each with its two parts d1 (from the first clustering to the meet
//    of both) and d2 (from the second);
//  - clm info: efficiency (van Dongen's coverage of a node's column by its cluster, averaged
//    over nodes), Newman's modularity on the weighted graph, mass fraction (per node, the share
//    of its edge weight, with mcl's loop as heavy as its heaviest edge for the first clustering,
//    that stays inside its cluster, averaged over nodes), area fraction (sum of |C|(|C|-1) over
//    N(N-1)) and the cluster sizes with clm's summary of their distribution (DGI, TWI, TWL,
//    sgl, qrt). The formulas are in clm.cpp.
// Written from clm's manual pages and checked against its output (tests/apps/mcl).
#include <cstdint>
#include <string>
#include <vector>

#include "opsparse/csr.hpp"

namespace opsparse::clm {

/// A partition of nodes 0..nodes-1 (from a native cluster matrix).
struct partition {
  index_t nodes = 0;
  std::vector<std::vector<index_t>> clusters;
};

/// Reads a native cluster matrix; parse_error (file, line) when it is not one or when it is no
/// partition (a node in no cluster or in two).
partition read_partition(const std::string& path);

struct distance {
  double d = 0, d1 = 0, d2 = 0;
};
enum class distance_mode { split_join, variance_of_information, mirkin };

/// Throws std::invalid_argument when the two are not partitions of the same nodes.
distance compare(const partition& a, const partition& b, distance_mode mode);

struct info {
  double efficiency = 0;  ///< clm's eff: van Dongen's coverage, averaged over nodes (clm.cpp)
  double modularity = 0;  ///< clm's mod: Newman's, weighted, loops left out
  double mass_fraction = 0;
  double area_fraction = 0;
  std::size_t clusters = 0, largest = 0, smallest = 0;
  double average = 0;  ///< nodes per cluster
  double center = 0;   ///< sum of |C|^2 over N (clm's ctr)
  // With the clusters sorted by size, largest first (index 0), and added up smallest first:
  std::size_t david_goliath = 0;  ///< clm's DGI: how many of the smallest sum to >= the largest
  std::size_t half_index = 0;     ///< clm's TWI: the index of the one that brings the sum to
                                  ///< >= (N+1)/2 (integer division)
  std::size_t half_size = 0;      ///< clm's TWL: that cluster's size
  std::size_t singletons = 0;     ///< clm's sgl: clusters of one node
  std::size_t up_to_four = 0;     ///< clm's qrt: clusters of at most four nodes
};

/// The loops that count in the mass fraction and the efficiency (never in the modularity).
enum class loop_weights {
  /// every node's loop as heavy as its heaviest edge (1 without edges), the graph's own loops
  /// replaced: clm 22-282's info for the first clustering of a command line
  heaviest_edge,
  none,      ///< no loops: clm info's later clusterings
  as_given,  ///< the graph's own loops: mcl -analyze y, over the matrix it clustered
};

/// `graph`: columns as CSR rows (io::mcl_native_matrix::columns), square, the partition's nodes.
/// Clusters that overlap (mcl -analyze after -overlap keep) count a node in each of its clusters:
/// eff, mf and ctr are then averaged over the memberships, as clm's.
info measure(const host_csr<double>& graph, const partition& p,
             loop_weights loops = loop_weights::heaviest_edge);

/// clm's two lines of an info (its clmPerformancePrint and clmGranularityPrint), without a
/// newline, `note` where clm prints its own (clm info: the clustering's file; mcl -analyze: the
/// graph's and the output's names):
///   eff=%.5f mod=%.5f mf=%.5f af=%.5f NOTE
///   ncl=N max=N NOTE ctr=%.1f avg=%.1f min=N DGI=N TWI=N TWL=N sgl=N qrt=N
std::string performance_line(const info& r, const std::string& note);
std::string granularity_line(const info& r, const std::string& note);

}  // namespace opsparse::clm
