// R-MAT (Chakrabarti, Zhan, Faloutsos 2004) as Graph500 generates it: every edge descends the
// levels of the 2x2 probability matrix independently; vertex labels are then shuffled.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "common.hpp"
#include "rmat_impl.hpp"

namespace opsparse::datasets {
namespace detail {

void rmat_edges(int levels, double a, double b, double c, offset_t edges, std::uint64_t seed,
                std::vector<index_t>& rows, std::vector<index_t>& cols) {
  if (levels < 1 || levels > 30) throw std::invalid_argument("rmat: scale must be in [1, 30]");
  if (!(a >= 0 && b >= 0 && c >= 0 && a + b + c <= 1.0 + 1e-12))
    throw std::invalid_argument("rmat: need a, b, c >= 0 and a + b + c <= 1");
  if (edges < 0) throw std::invalid_argument("rmat: negative edge count");
  rows.resize(static_cast<std::size_t>(edges));
  cols.resize(static_cast<std::size_t>(edges));
  // 32-bit thresholds: one 64-bit draw decides two levels.
  const auto threshold = [](double p) {
    return static_cast<std::uint64_t>(std::min(1.0, p) * 4294967296.0);
  };
  const std::uint64_t t_a = threshold(a), t_ab = threshold(a + b), t_abc = threshold(a + b + c);
  constexpr offset_t chunk = offset_t(1) << 16;
  const offset_t chunks = (edges + chunk - 1) / chunk;
  // Each chunk has its own stream, so the edges do not depend on how chunks meet threads.
#pragma omp parallel for schedule(dynamic, 4)
  for (offset_t ch = 0; ch < chunks; ++ch) {
    rng g(derive(seed, static_cast<std::uint64_t>(ch)));
    const offset_t end = std::min(edges, (ch + 1) * chunk);
    for (offset_t e = ch * chunk; e < end; ++e) {
      std::uint32_t u = 0, v = 0;
      std::uint64_t bits = 0;
      for (int l = 0; l < levels; ++l) {
        std::uint64_t r;
        if ((l & 1) == 0) {
          bits = g.next();
          r = bits & 0xffffffffULL;
        } else {
          r = bits >> 32;
        }
        const std::uint32_t row_bit = r >= t_ab;                             // quadrants c and d
        const std::uint32_t col_bit = (r >= t_a && r < t_ab) || r >= t_abc;  // b and d
        u = (u << 1) | row_bit;
        v = (v << 1) | col_bit;
      }
      rows[e] = static_cast<index_t>(u);
      cols[e] = static_cast<index_t>(v);
    }
  }
}

}  // namespace detail

host_csr<double> rmat(int scale, double edge_factor, double a, double b, double c,
                      std::uint64_t seed, const rmat_options& options) {
  if (scale < 1 || scale > 30) throw std::invalid_argument("rmat: scale must be in [1, 30]");
  if (!(edge_factor >= 0)) throw std::invalid_argument("rmat: edge factor must be >= 0");
  const index_t n = index_t(1) << scale;
  const auto edges = static_cast<offset_t>(std::llround(edge_factor * static_cast<double>(n)));
  std::vector<index_t> r, cl;
  detail::rmat_edges(scale, a, b, c, edges, seed, r, cl);
  std::vector<index_t> perm;
  if (options.permute) perm = detail::random_permutation(n, detail::derive(seed, 0x9e7b));
#pragma omp parallel for schedule(static)
  for (offset_t e = 0; e < edges; ++e) {
    index_t u = r[e], v = cl[e];
    if (options.permute) {
      u = perm[u];
      v = perm[v];
    }
    if (options.drop_loops && u == v) u = v = -1;
    r[e] = u;
    cl[e] = v;
  }
  return detail::build_csr(n, n, r, cl, options.symmetric, options.values, seed);
}

host_csr<double> rmat(int scale, double edge_factor, double a, double b, double c,
                      std::uint64_t seed, bool symmetric, bool drop_loops) {
  rmat_options o;
  o.symmetric = symmetric;
  o.drop_loops = drop_loops;
  return rmat(scale, edge_factor, a, b, c, seed, o);
}

}  // namespace opsparse::datasets
