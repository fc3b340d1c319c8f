// Structured building blocks: grid stencils (optionally with dense node blocks), the mc2depi
// Markov chain, a randomly triangulated grid and banded random matrices.
#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "common.hpp"
#include "recipes.hpp"

namespace opsparse::datasets {

std::vector<std::vector<int>> stencil_offsets(const std::string& name) {
  std::vector<std::vector<int>> o;
  if (name == "5pt" || name == "9pt") {
    for (int x = -1; x <= 1; ++x)
      for (int y = -1; y <= 1; ++y)
        if (name == "9pt" || std::abs(x) + std::abs(y) <= 1) o.push_back({x, y});
    return o;
  }
  if (name == "7pt" || name == "15pt" || name == "19pt" || name == "27pt") {
    for (int x = -1; x <= 1; ++x)
      for (int y = -1; y <= 1; ++y)
        for (int z = -1; z <= 1; ++z) {
          const int taxi = std::abs(x) + std::abs(y) + std::abs(z);
          const bool keep = name == "27pt" || taxi <= 1 || (name == "15pt" && taxi == 3) ||
                            (name == "19pt" && taxi <= 2);
          if (keep) o.push_back({x, y, z});
        }
    return o;
  }
  throw std::invalid_argument("stencil_offsets: unknown stencil '" + name +
                              "' (5pt, 9pt, 7pt, 15pt, 19pt, 27pt)");
}

namespace detail {

// Stencil with a dense block per node; `block_of(x)` gives node x's block size.
template <class BlockOf>
host_csr<double> block_stencil(const std::vector<index_t>& dims,
                               const std::vector<std::vector<int>>& offsets, bool periodic,
                               BlockOf block_of, std::uint64_t seed, value_kind values) {
  const int d = static_cast<int>(dims.size());
  if (d < 1 || d > 4) throw std::invalid_argument("grid_stencil: 1 to 4 dimensions");
  double nodes_d = 1;
  for (index_t n : dims) {
    if (n < 1) throw std::invalid_argument("grid_stencil: every dimension must be >= 1");
    nodes_d *= n;
  }
  if (nodes_d > 2147483647.0) throw std::invalid_argument("grid_stencil: too many nodes");
  for (const auto& o : offsets)
    if (static_cast<int>(o.size()) != d)
      throw std::invalid_argument("grid_stencil: offset of the wrong dimension");
  const auto nodes = static_cast<index_t>(nodes_d);
  // First row of every node's block.
  std::vector<offset_t> first(static_cast<std::size_t>(nodes) + 1, 0);
  for (index_t x = 0; x < nodes; ++x) first[x + 1] = first[x] + block_of(x);
  if (first[nodes] > 2147483647) throw std::invalid_argument("grid_stencil: too many rows");
  const auto rows = static_cast<index_t>(first[nodes]);
  // Neighbour node ids of node x, sorted and unique (periodic wrap on a short side can alias).
  auto neighbours = [&](index_t x, std::vector<index_t>& out) {
    std::array<index_t, 4> coord{};
    index_t rest = x;
    for (int k = d - 1; k >= 0; --k) {
      coord[k] = rest % dims[k];
      rest /= dims[k];
    }
    out.clear();
    for (const auto& o : offsets) {
      index_t y = 0;
      bool inside = true;
      for (int k = 0; k < d; ++k) {
        index_t c = coord[k] + o[k];
        if (c < 0 || c >= dims[k]) {
          if (!periodic) {
            inside = false;
            break;
          }
          c = ((c % dims[k]) + dims[k]) % dims[k];
        }
        y = y * dims[k] + c;
      }
      if (inside) out.push_back(y);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  };
  host_csr<double> m(rows, rows);
  // Pass 1: row lengths; pass 2: columns. Each node's rows are written independently.
#pragma omp parallel
  {
    std::vector<index_t> nb;
#pragma omp for schedule(static, 1024)
    for (index_t x = 0; x < nodes; ++x) {
      neighbours(x, nb);
      offset_t len = 0;
      for (index_t y : nb) len += first[y + 1] - first[y];
      for (offset_t i = first[x]; i < first[x + 1]; ++i) m.rpt[i + 1] = len;
    }
  }
  for (index_t i = 0; i < rows; ++i) m.rpt[i + 1] += m.rpt[i];
  m.col.resize(static_cast<std::size_t>(m.rpt.back()));
#pragma omp parallel
  {
    std::vector<index_t> nb;
#pragma omp for schedule(static, 1024)
    for (index_t x = 0; x < nodes; ++x) {
      neighbours(x, nb);
      for (offset_t i = first[x]; i < first[x + 1]; ++i) {
        offset_t k = m.rpt[i];
        for (index_t y : nb)
          for (offset_t c = first[y]; c < first[y + 1]; ++c) m.col[k++] = static_cast<index_t>(c);
      }
    }
  }
  fill_values(m, values, seed);
  return m;
}

host_csr<double> grid_stencil_random_blocks(const std::vector<index_t>& dims,
                                            const std::vector<std::vector<int>>& offsets,
                                            index_t min_block, index_t max_block,
                                            std::uint64_t seed, value_kind values) {
  if (min_block < 1 || max_block < min_block)
    throw std::invalid_argument("grid_stencil_random_blocks: need 1 <= min_block <= max_block");
  const std::uint64_t s = derive(seed, 0xb10c);
  const auto span = static_cast<std::uint64_t>(max_block - min_block + 1);
  auto block_of = [&](index_t x) {
    return min_block +
           static_cast<index_t>(
               (static_cast<unsigned __int128>(mix64(s ^ static_cast<std::uint64_t>(x))) * span) >>
               64);
  };
  return block_stencil(dims, offsets, false, block_of, seed, values);
}

}  // namespace detail

host_csr<double> grid_stencil(const std::vector<index_t>& dims,
                              const std::vector<std::vector<int>>& offsets, bool periodic,
                              index_t block, std::uint64_t seed, value_kind values) {
  if (block < 1) throw std::invalid_argument("grid_stencil: block must be >= 1");
  return detail::block_stencil(
      dims, offsets, periodic, [block](index_t) { return block; }, seed, values);
}

host_csr<double> triangle_markov_chain(index_t side, std::uint64_t seed, value_kind values) {
  if (side < 1 || static_cast<double>(side) * (side + 1) / 2 > 2147483647.0)
    throw std::invalid_argument("triangle_markov_chain: bad side");
  // State (s, i), s-major: first(s) = sum_{t<s} (side - t).
  std::vector<index_t> first(static_cast<std::size_t>(side) + 1, 0);
  for (index_t s = 0; s < side; ++s) first[s + 1] = first[s] + (side - s);
  const index_t n = first[side];
  auto id = [&](index_t s, index_t i) { return first[s] + i; };
  auto valid = [&](index_t s, index_t i) { return s >= 0 && i >= 0 && s + i <= side - 1; };
  host_csr<double> m(n, n);
  m.col.reserve(static_cast<std::size_t>(n) * 4);
  static constexpr int ds[4] = {0, -1, 0, +1}, di[4] = {0, +1, -1, 0};
  for (index_t s = 0; s < side; ++s)
    for (index_t i = 0; s + i <= side - 1; ++i) {
      std::array<index_t, 4> c{};
      int k = 0;
      for (int t = 0; t < 4; ++t)
        if (valid(s + ds[t], i + di[t])) c[k++] = id(s + ds[t], i + di[t]);
      // Insertion sort of at most 4 (std::sort on a std::array trips a GCC 12 false warning).
      for (int x = 1; x < k; ++x)
        for (int y = x; y > 0 && c[y - 1] > c[y]; --y) std::swap(c[y - 1], c[y]);
      m.col.insert(m.col.end(), c.begin(), c.begin() + k);
      m.rpt[id(s, i) + 1] = static_cast<offset_t>(m.col.size());
    }
  detail::fill_values(m, values, seed);
  return m;
}

host_csr<double> random_triangulated_grid(index_t nx, index_t ny, std::uint64_t seed,
                                          value_kind values) {
  if (nx < 1 || ny < 1 || static_cast<double>(nx) * ny > 2147483647.0)
    throw std::invalid_argument("random_triangulated_grid: bad size");
  const index_t n = nx * ny;
  const std::uint64_t diag_seed = detail::derive(seed, 0xd1a9);
  // Square (x, y) (lower-left corner (x, y)) is split along (x,y)-(x+1,y+1) when its bit is 0,
  // along (x+1,y)-(x,y+1) when 1.
  auto anti = [&](index_t x, index_t y) {
    return (detail::mix64(diag_seed ^ (static_cast<std::uint64_t>(x) * ny + y)) >> 63) != 0;
  };
  auto square = [&](index_t x, index_t y) { return x >= 0 && y >= 0 && x < nx - 1 && y < ny - 1; };
  host_csr<double> m(n, n);
  // Row lengths first so that rows can be filled in parallel.
  auto row_of = [&](index_t x, index_t y, index_t* out) {
    int k = 0;
    auto add = [&](index_t a, index_t b) { out[k++] = a * ny + b; };
    if (x > 0) add(x - 1, y);
    if (x + 1 < nx) add(x + 1, y);
    if (y > 0) add(x, y - 1);
    if (y + 1 < ny) add(x, y + 1);
    if (square(x, y) && !anti(x, y)) add(x + 1, y + 1);
    if (square(x - 1, y - 1) && !anti(x - 1, y - 1)) add(x - 1, y - 1);
    if (square(x - 1, y) && anti(x - 1, y)) add(x - 1, y + 1);
    if (square(x, y - 1) && anti(x, y - 1)) add(x + 1, y - 1);
    std::sort(out, out + k);
    return k;
  };
#pragma omp parallel for schedule(static, 4096)
  for (index_t v = 0; v < n; ++v) {
    index_t buf[8];
    m.rpt[v + 1] = row_of(v / ny, v % ny, buf);
  }
  for (index_t v = 0; v < n; ++v) m.rpt[v + 1] += m.rpt[v];
  m.col.resize(static_cast<std::size_t>(m.rpt.back()));
#pragma omp parallel for schedule(static, 4096)
  for (index_t v = 0; v < n; ++v) row_of(v / ny, v % ny, m.col.data() + m.rpt[v]);
  detail::fill_values(m, values, seed);
  return m;
}

host_csr<double> banded_random(index_t n, double per_row, index_t half_width, std::uint64_t seed,
                               value_kind values) {
  if (n < 1 || half_width < 1 || !(per_row >= 1))
    throw std::invalid_argument("banded_random: need n >= 1, half_width >= 1, per_row >= 1");
  // Each row draws a uniform number in [0, 2u] of distinct upper-triangle columns (u = mean);
  // mirroring gives the lower ones (a binomial number of hits from the rows above), so rows vary
  // in length as in the cage matrices, and there are no duplicates.
  const double upper = (per_row - 1.0) / 2.0;
  std::vector<index_t> cnt(static_cast<std::size_t>(n) + 1, 0);
  for (index_t i = 0; i < n; ++i) {
    detail::rng g(detail::derive(seed, static_cast<std::uint64_t>(i)));
    const auto want = static_cast<index_t>(g.uniform() * (2.0 * upper + 1.0));
    cnt[i + 1] = cnt[i] + 1 + std::min(want, std::min(half_width, n - 1 - i));
  }
  std::vector<index_t> r(static_cast<std::size_t>(cnt[n])), c(r.size());
#pragma omp parallel for schedule(static, 4096)
  for (index_t i = 0; i < n; ++i) {
    detail::rng g(detail::derive(seed, static_cast<std::uint64_t>(i)));
    g.uniform();  // the draw that decided the count
    index_t k = cnt[i];
    r[k] = i;
    c[k++] = i;
    const index_t span = std::min(half_width, n - 1 - i);
    const index_t first = k;
    while (k < cnt[i + 1]) {
      const index_t j = i + 1 + static_cast<index_t>(g.below(static_cast<std::uint64_t>(span)));
      if (std::find(c.begin() + first, c.begin() + k, j) != c.begin() + k) continue;
      r[k] = i;
      c[k++] = j;
    }
  }
  return detail::build_csr(n, n, r, c, /*mirror=*/true, values, seed);
}

}  // namespace opsparse::datasets
