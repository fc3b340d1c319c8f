#pragma once
// Consecutive blocks of rows cut by a cost per row: how a product too large for the device (or a
// memory plan's share of it) is computed block after block. Host code, no CUDA.
#include <algorithm>
#include <vector>

#include "opsparse/error.hpp"
#include "opsparse/types.hpp"

namespace opsparse {

/// Cuts rows [0, rows) into consecutive blocks, each of as many rows as fit `budget`, where rows
/// [r0, r1) cost (prefix[r1] - prefix[r0]) * per_item + (r1 - r0) * per_row: `prefix` holds
/// rows + 1 non-decreasing values (a scan of the products per row, or of the entries). A row
/// that costs more than the budget alone is a block of its own (the caller decides whether that
/// is an error); budget <= 0 is one block. Returns the blocks' first rows and then `rows`
/// (blocks + 1 values; {0} when there are no rows).
inline std::vector<index_t> rows_within(const std::vector<offset_t>& prefix, double per_item,
                                        double per_row, double budget) {
  OPSPARSE_EXPECTS(!prefix.empty(), "rows_within: the prefix needs rows + 1 entries");
  OPSPARSE_EXPECTS(per_item >= 0 && per_row >= 0, "rows_within: negative costs");
  const auto rows = static_cast<index_t>(prefix.size() - 1);
  std::vector<index_t> first{0};
  if (rows == 0) return first;
  auto cost = [&](index_t r0, index_t r1) {
    return static_cast<double>(prefix[static_cast<std::size_t>(r1)] -
                               prefix[static_cast<std::size_t>(r0)]) *
               per_item +
           static_cast<double>(r1 - r0) * per_row;
  };
  if (budget <= 0 || cost(0, rows) <= budget) {
    first.push_back(rows);
    return first;
  }
  index_t r0 = 0;
  while (r0 < rows) {
    // the last r1 with cost(r0, r1) <= budget (the cost grows with r1), at least one row
    index_t lo = r0 + 1, hi = rows;
    if (cost(r0, lo) > budget) {
      hi = lo;
    } else {
      while (lo < hi) {
        const index_t mid = lo + (hi - lo + 1) / 2;
        if (cost(r0, mid) <= budget)
          lo = mid;
        else
          hi = mid - 1;
      }
    }
    first.push_back(hi);
    r0 = hi;
  }
  return first;
}

}  // namespace opsparse
