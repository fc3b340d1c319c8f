// Stand-ins for the OpSparse paper's 26 SuiteSparse matrices. Each recipe was tuned (see
// datasets/README.md) so that rows, nnz/row, max row and the compression ratio of A*A come close
// to the real matrix; `scale` shrinks the row count proportionally.
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "common.hpp"
#include "recipes.hpp"

namespace opsparse::datasets {
namespace {

using detail::grid_dims;

const std::vector<paper_matrix> k_paper = {
#include "paper_table.inc"
};

// Scaled row (or node) count, never below `floor` so that tiny scales still make a matrix.
index_t scaled(double count, double scale, double floor = 64) {
  return static_cast<index_t>(std::llround(std::max(floor, count * scale)));
}

// A plate of fixed thickness whose two other sides shrink with the scale.
std::vector<index_t> plate_dims(double nodes, index_t thickness) {
  const std::vector<index_t> face = grid_dims(nodes / thickness, 2, 3);
  return {thickness, face[0], face[1]};
}

std::vector<std::vector<int>> offsets_27_without(std::vector<std::vector<int>> drop) {
  std::vector<std::vector<int>> o;
  for (const auto& p : stencil_offsets("27pt"))
    if (std::find(drop.begin(), drop.end(), p) == drop.end()) o.push_back(p);
  return o;
}

// Exactly k distinct uniform columns per row.
host_csr<double> fixed_random_rows(index_t n, index_t k, std::uint64_t seed, value_kind values) {
  host_csr<double> m(n, n);
  k = std::min(k, n);
  for (index_t i = 0; i < n; ++i) m.rpt[i + 1] = m.rpt[i] + k;
  m.col.resize(static_cast<std::size_t>(m.rpt.back()));
#pragma omp parallel for schedule(static, 4096)
  for (index_t i = 0; i < n; ++i) {
    detail::rng g(detail::derive(seed, static_cast<std::uint64_t>(i)));
    index_t* row = m.col.data() + m.rpt[i];
    for (index_t t = 0; t < k;) {
      const auto c = static_cast<index_t>(g.below(static_cast<std::uint64_t>(n)));
      if (std::find(row, row + t, c) == row + t) row[t++] = c;
    }
    std::sort(row, row + k);
  }
  detail::fill_values(m, values, seed);
  return m;
}

using builder =
    std::function<host_csr<double>(double scale, std::uint64_t seed, value_kind values)>;

host_csr<double> web(const paper_matrix& p, double scale, std::uint64_t seed, value_kind values,
                     const detail::web_params& w) {
  const index_t n = scaled(p.rows, scale);
  const auto nnz = static_cast<offset_t>(std::llround(p.nnz_per_row * n));
  return detail::web_standin(w, n, nnz, seed, values);
}

// Web-like parameters: R-MAT probabilities a, b, c; the share of links to shared targets; the
// host size exponent, the largest host and the share of rows in hosts; every entry stored in both
// directions; the full diagonal stored. The rest keeps detail::web_params' defaults.
detail::web_params web_like(double a, double b, double c, double shared, double host_exponent,
                            index_t max_host, double host_share, bool symmetric, bool diagonal) {
  detail::web_params w;
  w.a = a;
  w.b = b;
  w.c = c;
  w.shared = shared;
  w.host_exponent = host_exponent;
  w.max_host = max_host;
  w.host_share = host_share;
  w.symmetric = symmetric;
  w.diagonal = diagonal;
  return w;
}

struct web_recipe {
  const char* name;
  detail::web_params params;
};

// The stand-ins built by detail::web_standin, each as
// web_like(a, b, c, shared, host_exponent, max_host, host_share, symmetric, diagonal).
const web_recipe k_web[] = {
    // Mildly skewed links (rows up to ~40), small dense blocks, a full diagonal.
    {"mac_econ_fwd500", web_like(0.28, 0.27, 0.22, 0.0, 1.0, 40, 0.15, false, true)},
    {"patents_main", web_like(0.42, 0.232, 0.232, 0.35, 2.5, 30, 0.4, false, false)},
    {"webbase-1M",
     web_like(0.561, (1 - 0.561) * 0.44, (1 - 0.561) * 0.44, 0.2, 2.82, 67, 0.58, false, false)},
    // b < c: out-degrees less skewed than in-degrees (max row ~4k at full size, as real).
    {"wb-edu", web_like(0.6, 0.138, 0.2, 0.5, 2.2, 100, 0.9, false, false)},
    {"scircuit", web_like(0.46, 0.2, 0.2, 1.0, 2.0, 20, 0.3, true, true)},
};

/// The recipes of the paper's lattice, shell and molecule matrices (structured stencils in
/// dense blocks), or an empty builder for another name.
builder lattice_recipe(const std::string& name, const paper_matrix& p) {
  using V = value_kind;
  if (name == "conf5_4-8x8-05")
    return [&p](double s, std::uint64_t seed, V v) {
      // Sides >= 5 keep the square exact (no wrap-around collisions).
      return detail::wilson_dirac_hopping(grid_dims(p.rows / 12.0 * s, 4, 5), seed, v);
    };
  if (name == "cant")
    return [&p](double s, std::uint64_t seed, V v) {
      // A plate 6 nodes thick, 3 unknowns per node, 27-point minus one edge pair.
      return grid_stencil(plate_dims(p.rows / 3.0 * s, 6),
                          offsets_27_without({{0, 1, -1}, {0, -1, 1}}), false, 3, seed, v);
    };
  if (name == "consph")
    return [&p](double s, std::uint64_t seed, V v) {
      return grid_stencil(plate_dims(p.rows / 3.0 * s, 7), stencil_offsets("27pt"), false, 3, seed,
                          v);
    };
  if (name == "shipsec1" || name == "rma10" || name == "pwtk" || name == "hood")
    return [&p, name](double s, std::uint64_t seed, V v) {
      // Shells: 2D 9-point (x) dense blocks (6 unknowns per node; 5 for hood's lower density),
      // plus a few long rows up to the real maximum.
      const index_t block = name == "hood" ? 5 : 6;
      const host_csr<double> base = grid_stencil(grid_dims(p.rows / block * s, 2, 4),
                                                 stencil_offsets("9pt"), false, block, seed, v);
      const index_t interior = 9 * block, extra = p.max_row - interior;
      if (extra < interior / 2) return base;
      const index_t n = base.rows;
      return detail::add_long_rows(base, std::max<index_t>(1, n / 5000), extra / 2, extra, n / 50,
                                   true, seed, v);
    };
  if (name == "pdb1HYS")
    return [&p](double s, std::uint64_t seed, V v) {
      // Residues of 3..7 atoms' unknowns in dense blocks on a 3D 27-point neighbourhood.
      return detail::grid_stencil_random_blocks(grid_dims(p.rows / 5.0 * s, 3, 4),
                                                stencil_offsets("27pt"), 3, 7, seed, v);
    };
  return {};
}

builder recipe(const std::string& name) {
  const paper_matrix& p = find_paper_matrix(name);
  using V = value_kind;
  if (name == "m133-b3")
    return [&p](double s, std::uint64_t seed, V v) {
      return fixed_random_rows(scaled(p.rows, s), 4, seed, v);
    };
  for (const web_recipe& r : k_web)
    if (name == r.name) {
      const detail::web_params w = r.params;
      return [&p, w](double s, std::uint64_t seed, V v) { return web(p, s, seed, v, w); };
    }
  if (name == "mc2depi")
    return [&p](double s, std::uint64_t seed, V v) {
      // side (side + 1) / 2 states.
      const double states = std::max(64.0, p.rows * s);
      const auto side =
          static_cast<index_t>(std::llround((std::sqrt(8.0 * states + 1.0) - 1.0) / 2.0));
      return triangle_markov_chain(side, seed, v);
    };
  if (name == "mario002")
    return [&p](double s, std::uint64_t seed, V v) {
      return grid_stencil(grid_dims(p.rows * s, 2, 3), stencil_offsets("5pt"), false, 1, seed, v);
    };
  if (name == "majorbasis")
    return [&p](double s, std::uint64_t seed, V v) {
      // 5-point plus +-(3,0), +-(0,3), +-(1,1): 11 points whose square has 51 (CR 2.37).
      std::vector<std::vector<int>> o = stencil_offsets("5pt");
      for (const auto& q :
           std::vector<std::vector<int>>{{3, 0}, {-3, 0}, {0, 3}, {0, -3}, {1, 1}, {-1, -1}})
        o.push_back(q);
      return grid_stencil(grid_dims(p.rows * s, 2, 7), o, false, 1, seed, v);
    };
  if (name == "cage12" || name == "cage15")
    return [&p, name](double s, std::uint64_t seed, V v) {
      return banded_random(scaled(p.rows, s), p.nnz_per_row, name == "cage12" ? 52 : 79, seed, v);
    };
  if (name == "offshore" || name == "2cubes_sphere")
    return [&p](double s, std::uint64_t seed, V v) {
      // 15-point (7-point + corners) plus (0,0,+-2): 17 points, as the meshes' 16.3 per row.
      std::vector<std::vector<int>> o = stencil_offsets("15pt");
      o.push_back({0, 0, 2});
      o.push_back({0, 0, -2});
      return grid_stencil(grid_dims(p.rows * s, 3, 5), o, false, 1, seed, v);
    };
  if (name == "poisson3Da")
    return [&p](double s, std::uint64_t seed, V v) {
      return detail::geometric_two_radii(scaled(p.rows, s, 2000), 15.8, 0.1, 1.6, true, seed, v);
    };
  if (name == "filter3D")
    return [&p](double s, std::uint64_t seed, V v) {
      return detail::geometric_two_radii(scaled(p.rows, s, 2000), 11.52, 0.2, 1.6, true, seed, v);
    };
  if (name == "cop20k_A")
    return [&p](double s, std::uint64_t seed, V v) {
      return detail::geometric_two_radii(scaled(p.rows, s, 2000), 4.64, 0.3, 2.0, true, seed, v);
    };
  if (name == "mono_500Hz")
    return [&p](double s, std::uint64_t seed, V v) {
      const host_csr<double> base =
          detail::geometric_two_radii(scaled(p.rows, s, 2000), 14.24, 0.2, 2.0, false, seed, v);
      const index_t n = base.rows;
      return detail::add_long_rows(base, std::max<index_t>(1, n / 10000), p.max_row / 2, p.max_row,
                                   n / 20, false, seed, v);
    };
  if (builder b = lattice_recipe(name, p)) return b;
  if (name == "delaunay_n24")
    return [&p](double s, std::uint64_t seed, V v) {
      const std::vector<index_t> d = grid_dims(p.rows * s, 2, 3);
      return random_triangulated_grid(d[0], d[1], seed, v);
    };
  throw std::invalid_argument("paper_standin: no recipe for " + name);
}

}  // namespace

const std::vector<paper_matrix>& paper_matrices() { return k_paper; }

const paper_matrix& find_paper_matrix(const std::string& name) {
  for (const auto& p : k_paper)
    if (p.name == name) return p;
  std::string known;
  for (const auto& p : k_paper) known += (known.empty() ? "" : ", ") + p.name;
  throw std::invalid_argument("unknown paper matrix '" + name + "' (known: " + known + ")");
}

host_csr<double> paper_standin(const std::string& name, double scale, std::uint64_t seed,
                               value_kind values) {
  if (!(scale > 0 && scale <= 1))
    throw std::invalid_argument("paper_standin: scale must be in (0, 1]");
  return recipe(name)(scale, seed, values);
}

}  // namespace opsparse::datasets
