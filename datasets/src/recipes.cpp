// Building blocks of the paper stand-ins: geometric graphs (unstructured meshes), the QCD
// hopping matrix, web-graph R-MAT with tunable degree correlation, long rows, grid shapes.
#include "recipes.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "common.hpp"
#include "rmat_impl.hpp"

namespace opsparse::datasets {
namespace detail {

host_csr<double> geometric_two_radii(index_t n, double base_degree, double big_fraction,
                                     double big_radius, bool max_rule, std::uint64_t seed,
                                     value_kind values) {
  if (n < 1 || !(base_degree >= 0) || !(big_fraction >= 0 && big_fraction <= 1) ||
      !(big_radius >= 1))
    throw std::invalid_argument("random geometric graph: bad parameters");
  // Integer coordinates on a torus of side 2^21: exact distance tests, so the graph is the same
  // on every machine, and no boundary, so the degree distribution does not depend on n.
  constexpr std::int64_t side = std::int64_t(1) << 21;
  const double pi = 3.14159265358979323846;
  const auto r_small =
      static_cast<std::int64_t>(side * std::cbrt(3.0 * base_degree / (4.0 * pi * n)));
  const auto r_big = static_cast<std::int64_t>(static_cast<double>(r_small) * big_radius);
  if (r_big >= side / 2)
    throw std::invalid_argument("random geometric graph: radius too large for n");
  // Cells of side >= the largest radius: a point's neighbours lie in the 27 cells around it.
  const std::int64_t cube = static_cast<std::int64_t>(std::cbrt(static_cast<double>(n))) + 1;
  const std::int64_t g =
      std::max<std::int64_t>(1, std::min(side / std::max<std::int64_t>(r_big, 1), cube));
  const std::int64_t cell_side = (side + g - 1) / g;
  struct point {
    std::array<std::int64_t, 3> x;
    std::int64_t r;
  };
  std::vector<point> p(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    rng gen(derive(seed, static_cast<std::uint64_t>(i)));
    for (auto& x : p[i].x) x = static_cast<std::int64_t>(gen.below(side));
    p[i].r = gen.uniform() < big_fraction ? r_big : r_small;
  }
  auto cell_of = [&](const point& q) {
    return ((q.x[0] / cell_side) * g + q.x[1] / cell_side) * g + q.x[2] / cell_side;
  };
  // Number the points cell by cell, as a mesh generator with a locality ordering would.
  const std::int64_t cells = g * g * g;
  std::vector<index_t> cell_start(static_cast<std::size_t>(cells) + 1, 0);
  for (const auto& q : p) ++cell_start[cell_of(q) + 1];
  for (std::int64_t k = 0; k < cells; ++k) cell_start[k + 1] += cell_start[k];
  {
    std::vector<point> sorted(p.size());
    std::vector<index_t> next(cell_start.begin(), cell_start.end() - 1);
    for (const auto& q : p) sorted[next[cell_of(q)]++] = q;
    p.swap(sorted);
  }
  auto torus = [&](std::int64_t d) {
    d = d < 0 ? -d : d;
    return std::min(d, side - d);
  };
  auto row_of = [&](index_t i, std::vector<index_t>& out, std::vector<std::int64_t>& nc) {
    out.clear();
    nc.clear();
    const point& q = p[i];
    const std::int64_t cx = q.x[0] / cell_side, cy = q.x[1] / cell_side, cz = q.x[2] / cell_side;
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz)
          nc.push_back((((cx + dx + g) % g) * g + (cy + dy + g) % g) * g + (cz + dz + g) % g);
    std::sort(nc.begin(), nc.end());
    nc.erase(std::unique(nc.begin(), nc.end()), nc.end());
    for (std::int64_t c : nc)
      for (index_t j = cell_start[c]; j < cell_start[c + 1]; ++j) {
        const std::int64_t dx = torus(p[j].x[0] - q.x[0]), dy = torus(p[j].x[1] - q.x[1]),
                           dz = torus(p[j].x[2] - q.x[2]);
        const std::int64_t lim = max_rule ? std::max(q.r, p[j].r) : (q.r + p[j].r) / 2;
        if (dx * dx + dy * dy + dz * dz <= lim * lim) out.push_back(j);
      }
    std::sort(out.begin(), out.end());
  };
  // use(i, row) for every row i, in parallel; each call computes the rows again.
  const auto each_row = [&](auto&& use) {
#pragma omp parallel
    {
      std::vector<index_t> row;
      std::vector<std::int64_t> nc;
#pragma omp for schedule(dynamic, 1024)
      for (index_t i = 0; i < n; ++i) {
        row_of(i, row, nc);
        use(i, row);
      }
    }
  };
  host_csr<double> m(n, n);
  each_row([&](index_t i, const std::vector<index_t>& row) {
    m.rpt[i + 1] = static_cast<offset_t>(row.size());
  });
  for (index_t i = 0; i < n; ++i) m.rpt[i + 1] += m.rpt[i];
  m.col.resize(static_cast<std::size_t>(m.rpt.back()));
  each_row([&](index_t i, const std::vector<index_t>& row) {
    std::copy(row.begin(), row.end(), m.col.begin() + m.rpt[i]);
  });
  fill_values(m, values, seed);
  return m;
}

host_csr<double> wilson_dirac_hopping(const std::vector<index_t>& dims, std::uint64_t seed,
                                      value_kind values) {
  if (dims.size() != 4) throw std::invalid_argument("wilson_dirac_hopping: 4 dimensions");
  for (index_t l : dims)
    if (l < 3) throw std::invalid_argument("wilson_dirac_hopping: every side must be >= 3");
  const index_t sites = dims[0] * dims[1] * dims[2] * dims[3];
  const index_t n = sites * 12;
  // Row (site, spin s, colour c) couples through U (dense 3x3 in colour) and the projectors
  // (1 -+ gamma_mu) to the neighbours. Dirac basis: gamma_1, gamma_2 pair spins s <-> 3-s,
  // gamma_3 pairs s <-> s^2, gamma_4 = diag(1,1,-1,-1), so (1 - gamma_4) keeps spins 2,3 forward
  // and (1 + gamma_4) spins 0,1 backward: 6 x 2 x 3 + 3 = 39 entries per row.
  std::vector<index_t> r, c;
  r.reserve(static_cast<std::size_t>(n) * 39);
  c.reserve(r.capacity());
  for (index_t x = 0; x < sites; ++x) {
    std::array<index_t, 4> co{};
    index_t rest = x;
    for (int k = 3; k >= 0; --k) {
      co[k] = rest % dims[k];
      rest /= dims[k];
    }
    auto site_at = [&](int mu, int dir) {
      std::array<index_t, 4> y = co;
      y[mu] = (y[mu] + dir + dims[mu]) % dims[mu];
      return ((y[0] * dims[1] + y[1]) * dims[2] + y[2]) * dims[3] + y[3];
    };
    for (index_t s = 0; s < 4; ++s)
      for (index_t colour = 0; colour < 3; ++colour) {
        const index_t row = x * 12 + s * 3 + colour;
        auto add = [&](index_t y, index_t t) {
          for (index_t cc = 0; cc < 3; ++cc) {
            r.push_back(row);
            c.push_back(y * 12 + t * 3 + cc);
          }
        };
        for (int mu = 0; mu < 3; ++mu)
          for (int dir : {-1, +1}) {
            const index_t y = site_at(mu, dir);
            add(y, s);
            add(y, mu < 2 ? 3 - s : (s ^ 2));
          }
        add(site_at(3, s >= 2 ? +1 : -1), s);
      }
  }
  return build_csr(n, n, r, c, false, values, seed);
}

host_csr<double> add_long_rows(const host_csr<double>& a, index_t count, index_t min_len,
                               index_t max_len, index_t window, bool mirror, std::uint64_t seed,
                               value_kind values) {
  const index_t n = a.rows;
  if (n == 0 || count <= 0) return a;
  std::vector<index_t> r, c;
  r.reserve(static_cast<std::size_t>(a.nnz()) + static_cast<std::size_t>(count) * max_len);
  c.reserve(r.capacity());
  for (index_t i = 0; i < n; ++i)
    for (offset_t k = a.rpt[i]; k < a.rpt[i + 1]; ++k) {
      r.push_back(i);
      c.push_back(a.col[k]);
    }
  rng g(derive(seed, 0x10e6));
  for (index_t h = 0; h < count; ++h) {
    const auto row = static_cast<index_t>(g.below(static_cast<std::uint64_t>(n)));
    const index_t lo = std::max<index_t>(0, row - window),
                  hi = std::min<index_t>(n - 1, row + window);
    const index_t len = std::min<index_t>(
        hi - lo + 1,
        min_len + static_cast<index_t>(g.below(static_cast<std::uint64_t>(max_len - min_len + 1))));
    // Duplicates (with the existing row or among the draws) merge in build_csr; the row's final
    // length is therefore at most len plus what it had.
    for (index_t k = 0; k < len; ++k) {
      const index_t j = lo + static_cast<index_t>(g.below(static_cast<std::uint64_t>(hi - lo + 1)));
      r.push_back(row);
      c.push_back(j);
    }
  }
  // Mirror only the new entries: the original ones are already there in both directions when
  // the pattern is symmetric.
  const std::size_t original = static_cast<std::size_t>(a.nnz());
  if (mirror && a.rows == a.cols) {
    const std::size_t added = r.size() - original;
    for (std::size_t k = 0; k < added; ++k) {
      r.push_back(c[original + k]);
      c.push_back(r[original + k]);
    }
  }
  return build_csr(a.rows, a.cols, r, c, false, values, seed);
}

std::vector<index_t> grid_dims(double points, int d, index_t min_side) {
  const auto side =
      std::max<index_t>(min_side, static_cast<index_t>(std::llround(std::pow(points, 1.0 / d))));
  std::vector<index_t> dims(static_cast<std::size_t>(d), side);
  double rest = points;
  for (int k = 0; k + 1 < d; ++k) rest /= side;
  dims[d - 1] = std::max<index_t>(min_side, static_cast<index_t>(std::llround(rest)));
  return dims;
}

/// The in-host links of web_standin: hosts are consecutive id ranges (a crawl ordered by URL)
/// with power-law sizes; each page links to its host's first `nav` pages (the navigation menu;
/// nav >= host size: a random dense block) with the probability that puts a `host_share`
/// fraction of the `nnz` entries inside hosts. Pages of one host share out-links, which repeats
/// products of A*A as in real web graphs. Appended to (r, c).
void host_links(const web_params& w, index_t n, offset_t nnz, std::uint64_t seed,
                std::vector<index_t>& r, std::vector<index_t>& c) {
  if (w.host_share <= 0 || w.max_host <= 1) return;
  rng g(derive(seed, 0x4057));
  std::vector<double> cum;
  double total = 0;
  for (index_t s = 1; s <= w.max_host; ++s)
    cum.push_back(total += std::pow(static_cast<double>(s), -w.host_exponent));
  std::vector<index_t> host_start{0};
  double pairs = 0;
  while (host_start.back() < n) {
    const index_t h0 = host_start.back();
    const index_t size = std::min<index_t>(
        n - h0,
        1 + static_cast<index_t>(std::upper_bound(cum.begin(), cum.end(), g.uniform() * total) -
                                 cum.begin()));
    const index_t menu = std::min(size, w.nav);
    pairs += static_cast<double>(size) * menu - menu;
    host_start.push_back(h0 + size);
  }
  const double p_nav =
      pairs > 0 ? std::min(1.0, w.host_share * static_cast<double>(nnz) / pairs) : 0.0;
  for (std::size_t h = 0; h + 1 < host_start.size(); ++h) {
    const index_t h0 = host_start[h], size = host_start[h + 1] - h0;
    const index_t menu = std::min(size, w.nav);
    for (index_t i = h0; i < h0 + size; ++i)
      for (index_t j = h0; j < h0 + menu; ++j)
        if (j != i && g.uniform() < p_nav) {
          r.push_back(i);
          c.push_back(j);
        }
  }
}

/// The column labels of web_standin's R-MAT links: the row labels, except for a random
/// (1 - shared) fraction of the vertices, whose labels are shuffled among themselves. This sets
/// how far in- and out-degrees correlate, hence the number of products of A*A.
std::vector<index_t> column_labels(const std::vector<index_t>& row_label, double shared,
                                   std::uint64_t seed) {
  std::vector<index_t> col_label = row_label;
  rng g(derive(seed, 0x7002));
  std::vector<index_t> moved;
  for (index_t v = 0; v < static_cast<index_t>(row_label.size()); ++v)
    if (g.uniform() >= shared) moved.push_back(v);
  std::vector<index_t> labels;
  for (index_t v : moved) labels.push_back(col_label[v]);
  for (std::size_t i = labels.size(); i > 1; --i) std::swap(labels[i - 1], labels[g.below(i)]);
  for (std::size_t k = 0; k < moved.size(); ++k) col_label[moved[k]] = labels[k];
  return col_label;
}

host_csr<double> web_standin(const web_params& w, index_t n, offset_t nnz, std::uint64_t seed,
                             value_kind values) {
  if (n < 2) throw std::invalid_argument("web stand-in: n must be >= 2");
  int levels = 1;
  while ((index_t(1) << levels) < n && levels < 30) ++levels;
  std::vector<index_t> r, cl;
  host_links(w, n, nnz, seed, r, cl);
  // Out-of-host links: R-MAT on 2^levels ids folded onto n (id * n >> levels), rows under a
  // random labelling, columns under column_labels'.
  const std::vector<index_t> row_label = random_permutation(n, derive(seed, 0x7001));
  const std::vector<index_t> col_label = column_labels(row_label, w.shared, seed);
  if (w.diagonal)
    for (index_t i = 0; i < n; ++i) {
      r.push_back(i);
      cl.push_back(i);
    }
  auto generate = [&](offset_t edges, bool with_hosts) {
    std::vector<index_t> er, ec;
    rmat_edges(levels, w.a, w.b, w.c, edges, seed, er, ec);
#pragma omp parallel for schedule(static)
    for (offset_t e = 0; e < edges; ++e) {
      const auto u = static_cast<index_t>(
          (static_cast<std::uint64_t>(er[e]) * static_cast<std::uint64_t>(n)) >> levels);
      const auto v = static_cast<index_t>(
          (static_cast<std::uint64_t>(ec[e]) * static_cast<std::uint64_t>(n)) >> levels);
      er[e] = row_label[u];
      ec[e] = col_label[v];
      if (w.drop_loops && er[e] == ec[e]) er[e] = ec[e] = -1;
    }
    if (with_hosts) {
      er.insert(er.end(), r.begin(), r.end());
      ec.insert(ec.end(), cl.begin(), cl.end());
    }
    return build_csr(n, n, er, ec, w.symmetric, values, seed);
  };
  // Duplicates merge, so the number of R-MAT edges that gives `nnz` distinct entries is found by
  // one secant step on the R-MAT links alone (cheap next to the hosts); host entries are distinct
  // by construction unless mirrored, so only the symmetric case needs a build to count them.
  const offset_t base = r.empty()     ? 0
                        : w.symmetric ? generate(0, true).nnz()
                                      : static_cast<offset_t>(r.size());
  const double per_edge = w.symmetric ? 2.0 : 1.0;
  offset_t edges = std::max<offset_t>(0, static_cast<offset_t>((nnz - base) / per_edge));
  if (edges > 0) {
    const offset_t distinct = generate(edges, false).nnz();
    if (distinct > 0) {
      // The yield falls slightly as edges are added; aim a little above.
      const double yield = static_cast<double>(distinct) / static_cast<double>(edges);
      edges = static_cast<offset_t>(std::llround(1.003 * static_cast<double>(nnz - base) / yield));
    }
  }
  host_csr<double> m = generate(edges, true);
  return m;
}

}  // namespace detail

host_csr<double> random_geometric_3d(index_t n, double mean_degree, std::uint64_t seed,
                                     value_kind values) {
  return detail::geometric_two_radii(n, mean_degree, 0.0, 1.0, true, seed, values);
}

}  // namespace opsparse::datasets
