#pragma once
// Helpers shared by the msbfs tests: a plain queue BFS reference, comparisons (small graphs and
// reference tables: tests/apps/common/app_test_util.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "app_test_util.hpp"
#include "msbfs/msbfs.hpp"
#include "msbfs/msbfs_cli.hpp"
#include "opsparse/csr.hpp"

namespace msbfs_test {

using namespace app_test;  // host_csr, index_t, offset_t, pattern, adjacency, tsv_rows
using opsparse::msbfs::level_t;

/// Levels from `source` by a plain FIFO queue over A's rows (out-edges); -1 where unreached.
inline std::vector<level_t> queue_bfs(const host_csr<pattern>& a, index_t source,
                                      level_t max_depth = -1) {
  std::vector<level_t> level(static_cast<std::size_t>(a.rows), -1);
  std::deque<index_t> q{source};
  level[source] = 0;
  while (!q.empty()) {
    const index_t u = q.front();
    q.pop_front();
    if (max_depth >= 0 && level[u] >= max_depth) continue;
    for (offset_t p = a.rpt[u]; p < a.rpt[u + 1]; ++p) {
      const index_t v = a.col[p];
      if (level[v] < 0) {
        level[v] = level[u] + 1;
        q.push_back(v);
      }
    }
  }
  return level;
}

/// Row `row` of the levels matrix equals the queue BFS from `source` (the reached set and every
/// level), and the summary agrees with both.
inline ::testing::AssertionResult same_as_queue_bfs(const host_csr<pattern>& a,
                                                    const opsparse::msbfs::result& r,
                                                    std::size_t row, index_t source,
                                                    level_t max_depth = -1) {
  const auto want = queue_bfs(a, source, max_depth);
  const auto& lv = r.levels;
  if (row >= static_cast<std::size_t>(lv.rows))
    return ::testing::AssertionFailure() << "no row " << row;
  std::vector<level_t> got(want.size(), -1);
  for (offset_t p = lv.rpt[row]; p < lv.rpt[row + 1]; ++p) {
    if (p > lv.rpt[row] && lv.col[p] <= lv.col[p - 1])
      return ::testing::AssertionFailure() << "row " << row << " not sorted";
    got[lv.col[p]] = lv.val[p];
  }
  for (std::size_t v = 0; v < want.size(); ++v)
    if (got[v] != want[v])
      return ::testing::AssertionFailure() << "source " << source << ", vertex " << v << ": level "
                                           << got[v] << " vs queue BFS " << want[v];
  offset_t reached = 0;
  std::int64_t sum = 0;
  level_t ecc = 0;
  for (level_t l : want)
    if (l >= 0) {
      ++reached;
      sum += l;
      ecc = std::max(ecc, l);
    }
  const auto& s = r.summary[row];
  if (s.source != source || s.reached != reached || s.level_sum != sum || s.eccentricity != ecc)
    return ::testing::AssertionFailure()
           << "summary of source " << source << ": " << s.source << " " << s.reached << " "
           << s.level_sum << " " << s.eccentricity << " vs " << reached << " " << sum << " " << ecc;
  return ::testing::AssertionSuccess();
}

}  // namespace msbfs_test
