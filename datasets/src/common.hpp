#pragma once
// Internal helpers shared by the generators: a portable random stream, our own conversions to
// integers and doubles (std::*_distribution differ between standard libraries), and the
// coordinate-list -> CSR builder.
#include <cstdint>
#include <vector>

#include "opsparse/csr.hpp"
#include "opsparse_datasets/generators.hpp"

namespace opsparse::datasets::detail {

/// splitmix64 finaliser: a bijective 64-bit mixer, used to derive independent streams.
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Seed of sub-stream `k` of `seed` (a chunk of edges, a row, a purpose).
constexpr std::uint64_t derive(std::uint64_t seed, std::uint64_t k) noexcept {
  return mix64(mix64(seed ^ 0x6a09e667f3bcc909ULL) + k * 0x9e3779b97f4a7c15ULL);
}

/// splitmix64 (Steele, Lea, Flood 2014): tiny state, passes BigCrush, trivially seekable.
struct rng {
  std::uint64_t state;
  explicit rng(std::uint64_t seed) noexcept : state(seed) {}
  std::uint64_t next() noexcept {
    state += 0x9e3779b97f4a7c15ULL;
    return mix64(state);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, n) by the multiply-high method (Lemire); bias < n / 2^64.
  std::uint64_t below(std::uint64_t n) noexcept {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  bool bernoulli(double p) noexcept { return uniform() < p; }
};

/// Value of entry (i, j): symmetric in i and j, in (0, 1].
inline double entry_value(std::uint64_t seed, index_t i, index_t j) noexcept {
  const std::uint64_t lo = static_cast<std::uint32_t>(i < j ? i : j);
  const std::uint64_t hi = static_cast<std::uint32_t>(i < j ? j : i);
  const std::uint64_t h = mix64(derive(seed, 0xa1ULL) ^ ((hi << 32) | lo));
  return static_cast<double>((h >> 11) + 1) * 0x1.0p-53;
}

/// Fills m.val for an already built pattern.
void fill_values(host_csr<double>& m, value_kind values, std::uint64_t seed);

/// Builds a CSR matrix from coordinates. Entries with a negative row or column are skipped (a
/// cheap way for parallel generators to drop an edge in place); `mirror` also stores (c, r) for
/// every (r, c). Rows are sorted and duplicates merged, then values filled.
host_csr<double> build_csr(index_t rows, index_t cols, const std::vector<index_t>& r,
                           const std::vector<index_t>& c, bool mirror, value_kind values,
                           std::uint64_t seed);

/// Random permutation of 0..n-1 (Fisher-Yates on our stream).
std::vector<index_t> random_permutation(index_t n, std::uint64_t seed);

}  // namespace opsparse::datasets::detail
