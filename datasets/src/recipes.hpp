#pragma once
// Building blocks of the paper stand-ins that are not part of the public API (exposed here for
// paper.cpp and for parameter tuning).
#include <cstdint>
#include <vector>

#include "opsparse_datasets/generators.hpp"

namespace opsparse::datasets::detail {

/// Web-like directed graph with about `nnz` distinct entries on n vertices: hosts (runs of
/// consecutive ids with power-law sizes) whose pages link to the host's first `nav` pages, with
/// a `host_share` fraction of the entries inside hosts, plus R-MAT links on 2^ceil(log2 n) ids
/// folded onto n. Rows get a random labelling, columns the same one except for a (1 - shared)
/// fraction of the vertices, which tunes the in/out-degree correlation and hence the products of
/// A*A.
struct web_params {
  double a = 0.57, b = 0.19, c = 0.19;
  double shared = 0.0;
  double host_exponent = 1.5;
  index_t max_host = 1000;
  index_t nav = 1 << 30;  ///< menu size; >= max_host makes every host a random dense block
  double host_share = 0.0;
  bool drop_loops = true;
  bool symmetric = false;  ///< store every entry in both directions
  bool diagonal = false;   ///< store the full diagonal
};
host_csr<double> web_standin(const web_params& w, index_t n, offset_t nnz, std::uint64_t seed,
                             value_kind values);

/// Random geometric graph with two radius classes: a fraction `big_fraction` of the points
/// reach `big_radius` times further; i ~ j when the distance is at most max(r_i, r_j) (or the
/// mean when !max_rule). base_degree sets the small radius as in random_geometric_3d.
host_csr<double> geometric_two_radii(index_t n, double base_degree, double big_fraction,
                                     double big_radius, bool max_rule, std::uint64_t seed,
                                     value_kind values);

/// Wilson-Dirac hopping term (Dirac basis for the gamma matrices, no diagonal) on a periodic
/// 4D lattice with 4 spins x 3 colours per site: 39 entries per row.
host_csr<double> wilson_dirac_hopping(const std::vector<index_t>& dims, std::uint64_t seed,
                                      value_kind values);

/// Stencil on a grid with a dense block per node whose size is drawn uniformly from
/// [min_block, max_block] per node.
host_csr<double> grid_stencil_random_blocks(const std::vector<index_t>& dims,
                                            const std::vector<std::vector<int>>& offsets,
                                            index_t min_block, index_t max_block,
                                            std::uint64_t seed, value_kind values);

/// Adds `count` long rows of min_len..max_len new draws, with columns near the row index within
/// +-window; `mirror` adds the matching columns too (a symmetric pattern stays symmetric).
host_csr<double> add_long_rows(const host_csr<double>& a, index_t count, index_t min_len,
                               index_t max_len, index_t window, bool mirror, std::uint64_t seed,
                               value_kind values);

/// Grid sides close to a cube (square, 4-cube) whose product is close to `points`, each side
/// at least `min_side`.
std::vector<index_t> grid_dims(double points, int d, index_t min_side = 2);

}  // namespace opsparse::datasets::detail
