// Rows cut into blocks by a cost per item and per row (opsparse/row_blocks.hpp): what the
// products too large for the device and MCL's expansions are computed in.
#include <gtest/gtest.h>

#include <vector>

#include "opsparse/row_blocks.hpp"

namespace {

using opsparse::index_t;
using v = std::vector<index_t>;

TEST(RowBlocks, BlocksOfAtMostTheBudget) {
  EXPECT_EQ(opsparse::rows_within({0, 5, 10, 15, 20}, 1, 0, 0), (v{0, 4})) << "no budget";
  EXPECT_EQ(opsparse::rows_within({0, 5, 10, 15, 20}, 1, 0, 20), (v{0, 4})) << "all fit";
  EXPECT_EQ(opsparse::rows_within({0, 5, 10, 15, 20}, 1, 0, 10), (v{0, 2, 4}));
  EXPECT_EQ(opsparse::rows_within({0, 5, 10, 15, 20}, 1, 0, 7), (v{0, 1, 2, 3, 4}));
  // a row that alone costs more than the budget is a block of its own
  EXPECT_EQ(opsparse::rows_within({0, 1, 100, 101, 102}, 1, 0, 3), (v{0, 1, 2, 4}));
  EXPECT_EQ(opsparse::rows_within({0}, 1, 0, 3), (v{0})) << "no rows";
  // the cost a row: 4 rows of no items at 2 each in blocks of 5
  EXPECT_EQ(opsparse::rows_within({0, 0, 0, 0, 0}, 1, 2, 5), (v{0, 2, 4}));
  // items and rows together: rows of 3 items at 2 a item plus 1 a row cost 7
  EXPECT_EQ(opsparse::rows_within({0, 3, 6, 9}, 2, 1, 14), (v{0, 2, 3}));
  EXPECT_EQ(opsparse::rows_within({0, 3, 6, 9}, 2, 1, 13.9), (v{0, 1, 2, 3}));
  EXPECT_THROW(opsparse::rows_within({}, 1, 0, 1), std::invalid_argument);
  EXPECT_THROW(opsparse::rows_within({0, 1}, -1, 0, 1), std::invalid_argument);
}

TEST(RowBlocks, EveryBlockWithinTheBudgetAndNoneCouldTakeTheNextRow) {
  std::vector<opsparse::offset_t> prefix{0};
  for (int i = 0; i < 5000; ++i) prefix.push_back(prefix.back() + (i * 7919) % 61);
  for (const double budget : {61.0, 100.0, 1000.0, 12345.0}) {  // (rows cost up to 90.25)
    const v first = opsparse::rows_within(prefix, 1.5, 0.25, budget);
    ASSERT_GE(first.size(), 2u);
    EXPECT_EQ(first.front(), 0);
    EXPECT_EQ(first.back(), 5000);
    auto cost = [&](index_t r0, index_t r1) {
      return static_cast<double>(prefix[r1] - prefix[r0]) * 1.5 + (r1 - r0) * 0.25;
    };
    for (std::size_t k = 0; k + 1 < first.size(); ++k) {
      ASSERT_LT(first[k], first[k + 1]) << "budget " << budget;
      if (first[k + 1] - first[k] > 1)  // (a row alone may cost more)
        EXPECT_LE(cost(first[k], first[k + 1]), budget) << "budget " << budget << ", block " << k;
      if (first[k + 1] < 5000)
        EXPECT_GT(cost(first[k], first[k + 1] + 1), budget)
            << "budget " << budget << ", block " << k;
    }
  }
}

}  // namespace
