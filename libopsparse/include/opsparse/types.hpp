#pragma once
// Index types shared by every part of the library.
#include <cstdint>
#include <type_traits>

namespace opsparse {

/// Column indices and row counts: 32-bit, as the paper's kernels use (hash keys are columns).
using index_t = std::int32_t;
/// Row pointers, nnz and product counts: 64-bit, since nnz(C) and the number of products can
/// pass 2^31 long before the number of columns does.
using offset_t = std::int64_t;

/// Value type of a pattern-only matrix (no value array): a boolean frontier, an unweighted graph.
struct pattern {
  constexpr bool operator==(pattern) const noexcept { return true; }
};

/// Bins of a phase, and so bin streams of a context: enough for the symbolic and numeric bins of
/// every configuration (policy.hpp).
inline constexpr int max_bins = 10;

template <class V>
inline constexpr bool has_values_v = !std::is_same_v<V, pattern>;

}  // namespace opsparse
